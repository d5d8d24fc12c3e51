"""A calibration study through the official MCP client on a real Celery worker, against a synthetic truth: the
observations are a run's own peak stages with a known Manning's n (tests/hydrata/calibration/helpers.py)."""

import asyncio

import pytest

from hydrata.calibration.models import CalibrationMember
from hydrata.observations.models import Comparison
from tests.factories import make_grant
from tests.hydrata.calibration.helpers import TRUE_N, Truth, synthetic_truth
from tests.mcp_client import mcp_client
from tests.model_setup import Stall

pytestmark = pytest.mark.django_db(transaction=True)


async def follow(client, project_id: int, study_id: int, *, seconds: float = 600) -> dict:
    stall = Stall(seconds)
    while True:
        got = await client.call_tool("get_calibration_study", {"project_id": project_id, "study_id": study_id})
        assert not got.is_error, got.content[0].text
        reading = {"status": got.structured_content["status"], **got.structured_content["progress"]}
        if reading["status"] in ("complete", "error", "cancelled") or not stall.waiting(reading):
            return got.structured_content
        await asyncio.sleep(1)


BOTH = [  # the friction the water meets, and a polygon beyond the model's edge, where it never reaches
    {"target": "friction", "name": "floodplain", "low": 0.02, "high": 0.10},
    {"target": "friction", "name": "beyond the edge", "low": 0.01, "high": 0.2},
]


def made_and_run(url: str, key: str, truth: Truth, **arguments) -> tuple[dict, dict]:
    """create_calibration_study on the truth's scenario and event, start_calibration_study, then
    get_calibration_study until it ends: what create answered, and the last answer."""

    async def session():
        async with mcp_client(url, key) as client:
            ids = {"project_id": truth.project_id}
            where = {"base_scenario_id": truth.scenario_id, "event_id": truth.event_id}
            made = await client.call_tool("create_calibration_study", {**ids, **where, **arguments})
            assert not made.is_error, made.content[0].text
            study = made.structured_content
            started = await client.call_tool("start_calibration_study", {**ids, "study_id": study["id"]})
            assert not started.is_error, started.content[0].text
            return study, await follow(client, truth.project_id, study["id"])

    return asyncio.run(session())


def test_calibrating_n_recovers_the_truth_and_leaves_a_parameter_that_does_not_matter_anywhere_without_harm(
    live_asgi, celery_worker
):
    _, key = make_grant(level="launch")
    truth = synthetic_truth(live_asgi.url, key)

    _, final = made_and_run(live_asgi.url, key, truth, parameters=BOTH, budget=40, in_flight=2)

    assert final["status"] == "complete", final
    best = final["results"]["best"]
    assert len(final["members"]) == 40 == CalibrationMember.objects.filter(study_id=final["id"]).count()
    assert abs(best["values"]["friction:floodplain"] - TRUE_N) <= 0.003, best
    assert best["objective"] < 0.01
    comparison = Comparison.objects.get(pk=best["comparison"])
    assert comparison.run_id == best["run"] and comparison.metrics["rmse"] < 0.01
    assert f"in run {best['run']}" in final["say_to_user"] and final["summary"]["calibrated_run"] == best["run"]


def test_a_morris_screen_ranks_the_friction_the_water_meets_above_the_friction_it_never_reaches(
    live_asgi, celery_worker
):
    _, key = make_grant(level="launch")
    truth = synthetic_truth(live_asgi.url, key)

    made, final = made_and_run(live_asgi.url, key, truth, parameters=BOTH[::-1], budget=13, method="morris")

    assert made["estimate"]["members"] == 12  # four whole trajectories of three
    assert final["status"] == "complete", final
    screen = final["results"]["morris"]
    assert [row["parameter"] for row in screen["ranking"]] == ["friction:floodplain", "friction:beyond the edge"]
    assert screen["ranking"][1]["influence"] == 0.0
    outputs = {table["output"] for table in screen["outputs"]}
    assert outputs == {"observation", "wet_area"}
    observed = [table for table in screen["outputs"] if table["output"] == "observation"]
    assert len(observed) == 8 and all(table["trajectories"] == 4 for table in observed)
    assert "friction:floodplain 1.00" in final["say_to_user"]
