"""A design study run end to end through the official MCP client on a real Celery worker: made, started, followed
to its envelopes, which the test recomputes with numpy from the members' own stored rasters and series; and a
study cancelled while a member computes, whose child process ends."""

import asyncio
import json

import numpy as np
import pytest
import rasterio
from asgiref.sync import sync_to_async

from hydrata.anuga.models import Run
from hydrata.storage import get_storage
from hydrata.studies.models import DesignMember, DesignStudy
from hydrata_contract.layers import ResultLayer
from hydrata_contract.states import RunStatus
from hydrata_mcp.tools.time_series import figure
from tests.factories import make_grant
from tests.hydrata.studies.helpers import SHORT_FILES, assert_figures_equal, figures_of_rasters, uploaded_inputs
from tests.hydrata_mcp.test_results import with_gauges
from tests.hydrata_mcp.test_runs import gone, scan_for_signatures
from tests.mcp_client import call, mcp_client
from tests.model_setup import Stall, api, until

pytestmark = pytest.mark.django_db(transaction=True)
ENVELOPED = (ResultLayer.MAX_DEPTH, ResultLayer.MAX_STAGE, ResultLayer.MAX_SPEED, ResultLayer.MAX_HAZARD)
MEMBER_FILES = {layer.filename for layer in ENVELOPED} | {
    "statistics.json",
    "time_series.json",
    "result.json",
    "run.log",
}


async def made_study(client, project_id: int, *, inputs: dict[str, int], duration: int, gauged: bool = True) -> dict:
    """A built base scenario and a study of it: 1% AEP, 5 and 10 minutes, two patterns each (four members); a base
    without gauges or flow lines (`gauged=False`) is warned of."""
    scenario = (
        await client.call_tool(
            "create_scenario", {"project_id": project_id, "name": "base", "resolution": 20, "duration": duration}
        )
    ).structured_content
    built = await client.call_tool(
        "build_scenario", {"project_id": project_id, "scenario_id": scenario["id"], "poll_interval_seconds": 2}
    )
    assert built.structured_content["outcome"] == "built", built.structured_content
    made = await client.call_tool(
        "create_design_study",
        {
            "project_id": project_id,
            "base_scenario_id": scenario["id"],
            **inputs,
            "aeps": ["1%"],
            "durations_min": [5, 10],
            "initial_loss_mm": 5,
            "continuing_loss_mm_h": 1,
        },
    )
    assert not made.is_error, made.content[0].text
    assert ("warnings" in made.structured_content["summary"]) is not gauged, made.structured_content["summary"]
    return made.structured_content


async def follow(client, project_id: int, study_id: int, until_states: set[str], *, seconds: float = 180) -> list:
    """get_design_study's answers until the study reaches one of `until_states` or stops changing for `seconds`."""
    seen, stall = [], Stall(seconds)
    while True:
        got = await client.call_tool("get_design_study", {"project_id": project_id, "study_id": study_id})
        assert not got.is_error, got.content[0].text
        scan_for_signatures(got)
        seen.append(got.structured_content)
        reading = {"status": got.structured_content["status"], **got.structured_content["progress"]}
        if reading["status"] in until_states or not stall.waiting(reading):
            return seen
        await asyncio.sleep(1)


def stored(key: str) -> np.ndarray:
    with get_storage().local_path(key=key) as path, rasterio.open(path) as source:
        return source.read(1, masked=True).astype(np.float64).filled(np.nan)


def test_a_small_study_runs_on_a_real_worker_and_its_envelopes_equal_numpy_over_its_members_own_rasters(
    live_asgi, celery_worker
):
    _, key = make_grant(level="launch")
    model = with_gauges(live_asgi.url, key)
    inputs = uploaded_inputs(live_asgi.url, key, model.project_id, SHORT_FILES)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            study = await made_study(client, model.project_id, inputs=inputs, duration=300)
            started = await client.call_tool(
                "start_design_study", {"project_id": model.project_id, "study_id": study["id"]}
            )
            seen = await follow(client, model.project_id, study["id"], {"complete", "error", "cancelled"})
            return study, started, seen

    study, started, seen = asyncio.run(session())

    assert not started.is_error, started.content[0].text
    assert started.structured_content["status"] == "running"
    final = seen[-1]
    assert final["status"] == "complete", final
    assert final["progress"]["members_done"] == final["progress"]["members_total"] == 4
    assert any(s["progress"]["eta_seconds"] is not None for s in seen if s["status"] == "running") or len(seen) < 3
    assert final["results"]["central_statistic"] == "median" and final["results"]["members_left_out"] == []

    record = DesignStudy.objects.get(pk=study["id"])
    members = list(DesignMember.objects.filter(study=record).select_related("run"))
    assert {m.run.status for m in members} == {RunStatus.COMPLETE}
    # Each member kept exactly what the envelopes and the gauge tables read (no .sww, depth frames or preview).
    for member in members:
        kept = {path.name for path in get_storage().path(key=member.run.results_prefix).iterdir()}
        assert kept == MEMBER_FILES, (member.run.pk, kept ^ MEMBER_FILES)
    with api(live_asgi.url, key) as http:
        results = http.get(f"/api/v2/anuga/runs/{members[0].run.pk}/results/").json()
        preview = http.get(f"/api/v2/anuga/runs/{members[0].run.pk}/preview/")
        at_a_point = http.post(
            f"/api/v2/anuga/runs/{members[0].run.pk}/time-series/",
            json={"points": [{"x": 251100, "y": 6271900}], "crs": "EPSG:28356"},
        )
    assert {name for name in results if name.startswith("gn_layer_")} == {f"gn_layer_{layer}" for layer in ENVELOPED}
    assert results.get("s3_preview_url") is None and results["s3_log_url"]
    assert preview.status_code == 404 and preview.json()["code"] == "LAYER_NOT_FOUND", preview.text
    assert at_a_point.status_code == 404 and at_a_point.json()["code"] == "LAYER_NOT_FOUND", at_a_point.text
    told = call(live_asgi.url, key, "get_run_results", {"run_id": members[0].run.pk})
    assert not told.is_error and [item.type for item in told.content] == ["text"], told.content
    assert set(told.structured_content["result_layers"]) == {f"gn_layer_{layer}" for layer in ENVELOPED}
    (aep,) = record.results["aeps"]
    keys = {layer["name"]: layer["key"] for layer in aep["layers"]}
    # Independently, from each member's own stored rasters: the median of each duration's patterns at every cell,
    # the maximum over durations, and the duration that gave it.
    durations = sorted({m.duration_min for m in members})
    for layer in ENVELOPED:
        centrals = np.stack(
            [
                np.median(
                    np.stack(
                        [stored(f"{m.run.results_prefix}/{layer.filename}") for m in members if m.duration_min == d]
                    ),
                    axis=0,
                )
                for d in durations
            ]
        )
        expected = np.max(centrals, axis=0)
        assert np.allclose(stored(keys[layer.value]), expected.astype(np.float32), equal_nan=True), layer
        if layer == ResultLayer.MAX_DEPTH:
            critical = np.array(durations, dtype=np.float64)[np.argmax(np.nan_to_num(centrals, nan=-1), axis=0)]
            critical[~(expected > 0)] = np.nan
            assert np.array_equal(stored(keys["critical_duration"]), critical, equal_nan=True)
            assert np.nanmax(expected) > 0
    # Each gauge's peaks are the members' own recorded peak depths there.
    for table in aep["gauges"]:
        for row in table["durations"]:
            for pattern, peak in zip(row["patterns"], row["peaks"], strict=True):
                (member,) = [m for m in members if (m.duration_min, m.pattern) == (row["duration_min"], pattern)]
                with get_storage().open(key=f"{member.run.results_prefix}/time_series.json") as stream:
                    (gauge,) = [g for g in json.load(stream)["gauges"] if g["name"] == table["name"]]
                assert peak == max(v for v in gauge["depth"] if v is not None)
    assert {table["name"] for table in aep["gauges"]} == {"middle", "north"}
    assert [table["name"] for table in aep["flow_lines"]] == ["across"]
    middle = next(table for table in final["results"]["aeps"][0]["gauges"] if table["name"] == "middle")
    assert middle["critical_duration_min"] in durations and middle["pattern"] is not None
    assert "complete" in final["say_to_user"] and "median" in final["say_to_user"]
    # get_design_study's figures are the envelope rasters' own, recomputed here from the stored COGs.
    expected = figures_of_rasters(aep, durations)
    told = final["results"]["aeps"][0]["figures"]
    assert_figures_equal(told, expected)
    assert told["flooded_area_m2"] > 0 and sum(s["share_pct"] for s in told["critical_durations"]) == pytest.approx(100)
    assert f"1% AEP: peak depth {figure(told['peak_depth_m'])} m" in final["say_to_user"]


def test_cancelling_a_study_stops_the_member_computing_and_every_member_queued(live_asgi, celery_worker):
    _, key = make_grant(level="launch")
    model = with_gauges(live_asgi.url, key)
    inputs = uploaded_inputs(live_asgi.url, key, model.project_id, SHORT_FILES)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            study = await made_study(client, model.project_id, inputs=inputs, duration=200_000)
            await client.call_tool("start_design_study", {"project_id": model.project_id, "study_id": study["id"]})
            computing = Run.objects.filter(study_member=True).exclude(child_pid=None)
            child = await sync_to_async(until)(
                lambda: {"pid": computing.values_list("child_pid", flat=True).first()}, lambda r: r["pid"], seconds=120
            )
            cancelled = await client.call_tool(
                "cancel_design_study", {"project_id": model.project_id, "study_id": study["id"]}
            )
            return study, child["pid"], cancelled

    study, pid, cancelled = asyncio.run(session())

    assert pid and not cancelled.is_error, cancelled.content[0].text
    assert cancelled.structured_content["status"] == "cancelled"
    assert gone(pid, seconds=60), "the computing member's child process should end"
    runs = Run.objects.filter(design_member__study_id=study["id"])
    final = until(
        lambda: {"statuses": sorted(set(runs.values_list("status", flat=True)))},
        lambda r: r["statuses"] == [RunStatus.CANCELLED],
        seconds=60,
    )
    assert final["statuses"] == [RunStatus.CANCELLED] and runs.count() == 4
