"""Polling tools cannot be made to hammer the platform: a poll interval under two seconds is refused. While they wait,
they say whether the work is queued (behind how much) or running, as the platform counts it."""

import pytest

from config.celery import app as celery_app
from hydrata.agents.models import AgentActivity
from hydrata.anuga.services.build import _build_claim
from tests.data import BOUNDARY, DEM
from tests.factories import make_grant
from tests.mcp_client import mcp_client, run
from tests.model_setup import PROJECTS, api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)

POLLING_CALLS = {
    "get_terrain": {"project_id": 1},
    "attach_input_layer": {"project_id": 1, "kind": "boundary", "execution_id": "00000000-0000-0000-0000-000000000000"},
    "build_scenario": {"project_id": 1, "scenario_id": 1},
    "import_observations": {
        "project_id": 1,
        "event_id": 1,
        "execution_id": "00000000-0000-0000-0000-000000000000",
        "quantity": "peak_stage",
        "value_property": "level",
    },
}


def test_every_tool_that_polls_publishes_a_minimum_interval_of_two_seconds(live_asgi):
    _, key = make_grant(level="read")

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            return (await client.list_tools()).tools

    polling = {
        t.name: t.input_schema["properties"]["poll_interval_seconds"]
        for t in run(session)
        if "poll_interval_seconds" in t.input_schema.get("properties", {})
    }

    assert set(polling) == set(POLLING_CALLS)
    assert {name: schema["minimum"] for name, schema in polling.items()} == dict.fromkeys(POLLING_CALLS, 2)


@pytest.mark.parametrize("name", POLLING_CALLS)
def test_a_poll_interval_under_two_seconds_is_a_tool_error_and_nothing_is_called(live_asgi, name):
    grant, key = make_grant(level="draft")

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            return await client.call_tool(name, {**POLLING_CALLS[name], "poll_interval_seconds": 0.2})

    result = run(session)

    assert result.is_error
    assert "poll_interval_seconds" in result.content[0].text
    assert not AgentActivity.objects.filter(grant=grant).exists()


def test_each_polling_tool_says_whether_its_work_is_queued_behind_other_work_or_running(live_asgi):
    """No worker consumes the queue here: the platform counts, from the database, what waits before each job; a job a
    worker has claimed (the build, through the claim a worker makes) is running."""
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)  # eager: the terrain is imported, the layers attached
    with api(live_asgi.url, key) as http:
        project = f"{PROJECTS}{model.project_id}/"
        scenario = http.post(f"{project}scenarios/", json={"name": "base", "resolution": 10, "duration": 600}).json()
        event = http.post(f"{project}events/", json={"name": "Storm", "started_at": "2024-01-01T00:00:00Z"}).json()
        celery_app.conf.task_always_eager = False  # from here on, work stays on its queue
        files = {"base_file": ("marks.geojson", BOUNDARY.read_bytes(), "application/geo+json")}
        execution_id = http.post("/api/v2/uploads/upload/", files=files).json()["execution_id"]
        assert http.post(f"{project}scenarios/{scenario['id']}/build/").status_code == 202
    waiting = {"timeout_seconds": 0, "poll_interval_seconds": 2}
    build = {"project_id": model.project_id, "scenario_id": scenario["id"], **waiting}
    upload = {"project_id": model.project_id, "execution_id": execution_id, **waiting}
    observations = {"event_id": event["id"], "quantity": "peak_stage", "value_property": "level"}

    async def session(calls):
        async with mcp_client(live_asgi.url, key) as client:
            return [(await client.call_tool(name, arguments)).structured_content for name, arguments in calls]

    queued_build, queued_upload, queued_marks = run(
        lambda: session(
            [
                ("build_scenario", build),
                ("attach_input_layer", {**upload, "kind": "boundary"}),
                ("import_observations", {**upload, **observations}),
            ]
        )
    )
    _build_claim(run_id=queued_build["run_id"], worker="interactive@test")
    with api(live_asgi.url, key) as http:
        files = {"file": ("dem.tif", DEM.read_bytes(), "image/tiff")}
        terrain = http.post(f"{project}terrain/upload/", files=files).json()
    running_build, queued_terrain = run(
        lambda: session(
            [
                ("build_scenario", build),
                ("get_terrain", {"project_id": model.project_id, "terrain_id": terrain["id"], **waiting}),
            ]
        )
    )

    assert queued_build["outcome"] == "timed_out"
    assert queued_build["say_to_user"] == (
        "The build is queued behind 1 other job (0 running); no worker has taken it yet."  # the upload sent first
    )
    for waited in (queued_upload, queued_marks):
        assert waited["outcome"] == "timed_out"
        assert waited["say_to_user"] == (
            "The upload's import is queued behind 0 other jobs (0 running); no worker has taken it yet."
        )
    assert running_build["outcome"] == "timed_out" and running_build["say_to_user"] == "The build is running."
    assert queued_terrain["outcome"] == "timed_out"
    assert queued_terrain["say_to_user"] == (  # the upload still waits; the build is running
        "The terrain's import is queued behind 1 other job (1 running); no worker has taken it yet."
    )
