"""Redaction through the real middleware: real platform answers, the official client, a real socket."""

import asyncio
import base64
import json
import time

import httpx
import pytest

from hydrata.anuga.models import Scenario
from hydrata_mcp.redaction import MARKER
from tests.factories import make_grant, make_project
from tests.hydrata_mcp.arranged import assert_no_signature, complete_run, noise_png, signed_link
from tests.mcp_client import mcp_client
from tests.model_setup import SHARED_TLS

pytestmark = pytest.mark.django_db(transaction=True)
MEGABYTE = 1_000_000
# Generous: the linear redaction takes milliseconds here, the quadratic one took hours.
SECONDS_FOR_A_MEGABYTE = 5


async def no_progress(value, total, message):
    pass


def call(url: str, key: str, tool: str, arguments: dict, *, sse: bool = False):
    """One tool call; with `sse`, a progress token makes the server answer as an SSE stream."""

    async def go():
        async with mcp_client(url, key) as client:
            return await client.call_tool(tool, arguments, progress_callback=no_progress if sse else None)

    return asyncio.run(go())


def text_blocks_parse(result) -> list:
    return [json.loads(block.text) for block in result.content if block.type == "text"]


@pytest.mark.parametrize("sse", [False, True], ids=["json", "sse"])
def test_get_run_loses_signed_links_in_its_log_and_s3_url_keys_in_its_statistics(live_asgi, sse):
    grant, key = make_grant(level="read")
    link = signed_link()
    run = complete_run(
        grant.user,
        log=f"12:00 wrote the log to {link}.\n12:01 done",
        statistics={"peak_depth_m": 1.25, "s3_debug_url": link},
    )

    result = call(live_asgi.url, key, "get_run", {"run_id": run.pk}, sse=sse)

    assert not result.is_error, result.content[0].text
    assert_no_signature(result)
    record = result.structured_content
    assert record["log_tail"] == [f"12:00 wrote the log to {MARKER}.", "12:01 done"]
    assert record["statistics"] == {"peak_depth_m": 1.25}
    assert text_blocks_parse(result) == [record]


def test_get_run_results_loses_signed_links_and_keeps_its_image_intact(live_asgi):
    grant, key = make_grant(level="read")
    image = noise_png()
    run = complete_run(
        grant.user,
        statistics={"peak_depth_m": 2.0, "note": f"mirror: {signed_link()}", "s3_mirror_url": signed_link()},
        preview=image,
    )

    result = call(live_asgi.url, key, "get_run_results", {"run_id": run.pk})

    assert not result.is_error, result.content[0].text
    assert_no_signature(result)
    assert result.structured_content["statistics"] == {"peak_depth_m": 2.0, "note": f"mirror: {MARKER}"}
    images = [block for block in result.content if block.type == "image"]
    assert [block.data for block in images] == [base64.b64encode(image).decode()]
    assert text_blocks_parse(result) == [result.structured_content]


def test_a_quoted_signed_link_in_a_scenario_description_is_replaced_and_every_text_block_still_parses(live_asgi):
    grant, key = make_grant(level="read")
    project = make_project(grant.user)
    description = f"Terrain from \"{signed_link()}\" and '{signed_link('b')}', see <{signed_link('c')}>."
    scenario = Scenario.objects.create(
        project=project, name="quoted", description=description, resolution=5, duration=600
    )

    result = call(live_asgi.url, key, "get_scenario", {"project_id": project.pk, "scenario_id": scenario.pk})

    assert not result.is_error, result.content[0].text
    assert_no_signature(result)
    expected = f"Terrain from \"{MARKER}\" and '{MARKER}', see <{MARKER}>."
    assert result.structured_content["description"] == expected
    assert [block["description"] for block in text_blocks_parse(result)] == [expected]


@pytest.mark.parametrize("sse", [False, True], ids=["json", "sse"])
def test_presign_terrain_upload_keeps_the_signed_upload_url_it_was_asked_for(live_asgi, sse):
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)

    result = call(
        live_asgi.url, key, "presign_terrain_upload", {"project_id": project.pk, "filename": "dem.tif"}, sse=sse
    )

    assert not result.is_error, result.content[0].text
    assert "X-Hydrata-Signature=" in result.structured_content["upload_url"]
    assert text_blocks_parse(result)[0]["upload_url"] == result.structured_content["upload_url"]


def test_a_megabyte_log_line_without_whitespace_is_redacted_within_seconds(live_asgi):
    grant, key = make_grant(level="read")
    run = complete_run(grant.user, log="A" * MEGABYTE + f" {signed_link()}")

    started = time.monotonic()
    result = call(live_asgi.url, key, "get_run", {"run_id": run.pk})
    elapsed = time.monotonic() - started

    assert not result.is_error, result.content[0].text
    assert result.structured_content["log_tail"] == ["A" * MEGABYTE + f" {MARKER}"]
    assert elapsed < SECONDS_FOR_A_MEGABYTE


def test_a_megabyte_preview_image_reaches_the_client_within_seconds_and_unchanged(live_asgi):
    grant, key = make_grant(level="read")
    image = noise_png(side=600)
    run = complete_run(grant.user, preview=image)
    assert len(image) > MEGABYTE

    started = time.monotonic()
    result = call(live_asgi.url, key, "get_run_results", {"run_id": run.pk})
    elapsed = time.monotonic() - started

    assert not result.is_error, result.content[0].text
    assert [block.data for block in result.content if block.type == "image"] == [base64.b64encode(image).decode()]
    assert elapsed < SECONDS_FOR_A_MEGABYTE


def test_a_rest_request_is_not_held_behind_a_large_result_on_its_way_out(live_asgi):
    grant, key = make_grant(level="read")
    _, other_key = make_grant(level="read")
    run = complete_run(grant.user, log="B" * MEGABYTE)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            large = asyncio.create_task(client.call_tool("get_run", {"run_id": run.pk}))
            latencies = []
            bearer = {"Authorization": f"Bearer {other_key}"}
            async with httpx.AsyncClient(headers=bearer, timeout=30, verify=SHARED_TLS) as http:
                while not large.done() or not latencies:
                    started = time.monotonic()
                    response = await http.get(f"{live_asgi.url}/api/v2/agents/me/")
                    latencies.append(time.monotonic() - started)
                    assert response.status_code == 200
                    await asyncio.sleep(0.05)
            return await large, latencies

    result, latencies = asyncio.run(session())

    assert not result.is_error, result.content[0].text
    assert max(latencies) < 2, latencies


@pytest.mark.parametrize("sse", [False, True], ids=["json", "sse"])
def test_under_a_url_prefix_get_run_is_still_redacted(live_asgi, settings, sse):
    settings.FORCE_SCRIPT_NAME = "/x"
    settings.HYDRATA_API_ORIGIN = f"{live_asgi.url}/x"
    grant, key = make_grant(level="read")
    run = complete_run(grant.user, log=f"wrote {signed_link()}")

    result = call(f"{live_asgi.url}/x", key, "get_run", {"run_id": run.pk}, sse=sse)

    assert not result.is_error, result.content[0].text
    assert_no_signature(result)
    assert result.structured_content["log_tail"] == [f"wrote {MARKER}"]
