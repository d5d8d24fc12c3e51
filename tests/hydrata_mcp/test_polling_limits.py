"""The waiting tools: 240 s by default, never past 280 s, and `timed_out` as a normal result when time is up."""

import asyncio
from types import SimpleNamespace

import pytest

from config.celery import app as celery_app
from hydrata_mcp import polling
from tests.data import BOUNDARY, DEM
from tests.factories import make_grant
from tests.mcp_client import mcp_client, run
from tests.model_setup import PROJECTS, api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)
WAITING_TOOLS = {"get_terrain", "attach_input_layer", "build_scenario", "import_observations"}
READ_SECONDS = 3  # no sleep starts past the timeout; the last read may still take this long on a loaded machine


def test_the_waiting_tools_wait_240_seconds_by_default_and_say_280_is_the_most(live_asgi):
    _, key = make_grant(level="read")

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            return (await client.list_tools()).tools

    waiting = {
        tool.name: tool.input_schema["properties"]["timeout_seconds"]
        for tool in run(session)
        if "timeout_seconds" in tool.input_schema.get("properties", {})
    }

    assert set(waiting) == WAITING_TOOLS
    for schema in waiting.values():
        assert schema["default"] == 240 and "280" in schema["description"] and "timed_out" in schema["description"]


def test_work_that_never_finishes_is_timed_out_not_an_error(live_asgi):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)  # imports run in the request; from here on nothing runs
    celery_app.conf.task_always_eager = False
    with api(live_asgi.url, key) as http:
        terrain = http.post(
            f"{PROJECTS}{model.project_id}/terrain/upload/", files={"file": ("dem.tif", DEM.read_bytes(), "image/tiff")}
        ).json()
        upload = http.post(
            "/api/v2/uploads/upload/", files={"base_file": ("b.geojson", BOUNDARY.read_bytes(), "application/geo+json")}
        ).json()
        scenario = http.post(
            f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "s", "resolution": 10, "duration": 60}
        ).json()
    wait = {"timeout_seconds": 5, "poll_interval_seconds": 2}

    async def session():
        # The three waits run side by side: each is its own request, and none of them needs another's answer.
        async with mcp_client(live_asgi.url, key) as client:
            return await asyncio.gather(
                *(
                    client.call_tool(name, arguments)
                    for name, arguments in (
                        ("get_terrain", {"project_id": model.project_id, "terrain_id": terrain["id"], **wait}),
                        (
                            "attach_input_layer",
                            {
                                "project_id": model.project_id,
                                "kind": "boundary",
                                "execution_id": upload["execution_id"],
                                **wait,
                            },
                        ),
                        ("build_scenario", {"project_id": model.project_id, "scenario_id": scenario["id"], **wait}),
                    )
                )
            )

    results = run(session)

    for result in results:
        assert not result.is_error, result.content[0].text
        assert result.structured_content["outcome"] == "timed_out", result.structured_content
        assert result.structured_content["polls"] >= 2
        assert result.structured_content["elapsed_seconds"] <= wait["timeout_seconds"] + READ_SECONDS


class Clock:
    """A clock for wait_for that moves only when it sleeps, so a 280-second wait takes no time."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


class Progress:
    """Where wait_for reports progress: the SDK's Context in a tool, a list here."""

    def __init__(self) -> None:
        self.reports: list[tuple[float, float, str]] = []

    async def report_progress(self, progress: float, total: float, message: str) -> None:
        self.reports.append((progress, total, message))


@pytest.mark.parametrize("asked", [281, 1000, 10**9])
def test_a_wait_asked_for_more_than_280_seconds_ends_within_280(monkeypatch, asked):
    clock, progress = Clock(), Progress()
    monkeypatch.setattr(polling, "time", clock)
    monkeypatch.setattr(polling, "anyio", SimpleNamespace(sleep=clock.sleep))

    async def read() -> str:
        return "creating"

    waited = asyncio.run(
        polling.wait_for(
            progress,
            read=read,
            finished=lambda status: False,
            describe=lambda status: f"terrain {status}",
            timeout_seconds=asked,
            poll_interval_seconds=5,
        )
    )

    assert waited.finished is False and waited.value == "creating"
    assert 275 <= waited.elapsed_seconds <= 280 and clock.now <= 280
    assert {total for _, total, _ in progress.reports} == {280}
    assert [seconds for seconds, _, _ in progress.reports] == sorted(seconds for seconds, _, _ in progress.reports)
