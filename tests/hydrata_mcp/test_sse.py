"""SSE framing per the spec (CRLF, LF or CR line ends), so progress reaches a real client while a tool waits."""

import asyncio
import time

import pytest

from hydrata.anuga.models import Terrain
from hydrata_contract.states import TerrainStatus
from hydrata_mcp.sse import events, rewrite_data
from tests.factories import make_grant, make_project
from tests.mcp_client import mcp_client

STREAM = b'event: message\r\ndata: {"a": 1}\r\n\r\ndata: two\ndata: lines\n\nid: 3\rdata: cr\r\r'
EXPECTED = [
    (b'event: message\r\ndata: {"a": 1}', b"\r\n\r\n"),
    (b"data: two\ndata: lines", b"\n\n"),
    (b"id: 3\rdata: cr", b"\r\r"),
]


def framed(chunks: list[bytes]) -> list[tuple[bytes, bytes]]:
    async def source():
        for chunk in chunks:
            yield chunk

    async def collect():
        return [event async for event in events(source())]

    return asyncio.run(collect())


def test_events_end_at_an_empty_line_whichever_line_ends_the_stream_uses():
    assert framed([STREAM]) == EXPECTED


def test_events_are_framed_alike_however_the_stream_is_chunked():
    assert framed([STREAM[i : i + 1] for i in range(len(STREAM))]) == EXPECTED
    assert framed([STREAM[:5], STREAM[5:31], STREAM[31:]]) == EXPECTED


def test_a_cr_at_the_end_of_a_chunk_waits_for_a_possible_lf():
    assert framed([b"data: x\r\n\r", b"\ndata: y\r\n\r\n"]) == [(b"data: x", b"\r\n\r\n"), (b"data: y", b"\r\n\r\n")]


def test_bytes_left_when_the_stream_ends_come_last_without_line_ends():
    assert framed([b"data: a\n\ndata: unfinished"]) == [(b"data: a", b"\n\n"), (b"data: unfinished", b"")]


def test_rewriting_replaces_the_data_lines_with_one_and_keeps_the_other_fields_in_place():
    rewritten = rewrite_data(b"event: message\r\ndata: two\r\ndata: lines\r\nid: 4", lambda data: data.upper())

    assert rewritten == b"event: message\r\ndata: TWO\r\ndata: LINES\r\nid: 4"
    assert rewrite_data(b"data: same", lambda data: None) == b"data: same"
    assert rewrite_data(b": a comment", lambda data: b"never") == b": a comment"


@pytest.mark.django_db(transaction=True)
def test_the_first_progress_notification_reaches_the_client_seconds_before_the_tool_returns(live_asgi):
    grant, key = make_grant(level="read")
    project = make_project(grant.user)
    Terrain.objects.create(
        project=project,
        title="importing",
        source_filename="dem.tif",
        source_key="staging/dem",
        status=TerrainStatus.CREATING,
    )  # no worker: it stays importing
    arrivals: list[float] = []

    async def on_progress(value, total, message):
        arrivals.append(time.monotonic())

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            started = time.monotonic()
            waited = await client.call_tool(
                "get_terrain",
                {"project_id": project.pk, "timeout_seconds": 7, "poll_interval_seconds": 2},
                progress_callback=on_progress,
            )
            return started, time.monotonic(), waited

    started, returned, waited = asyncio.run(session())

    assert waited.structured_content["outcome"] == "timed_out", waited.structured_content
    assert len(arrivals) == 3  # before each of the three sleeps
    assert arrivals[0] - started < 1.5
    assert returned - arrivals[0] > 3, "the first notification was held until the tool returned"
