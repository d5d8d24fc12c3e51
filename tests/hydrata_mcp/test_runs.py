"""Real ANUGA simulations through the official SDK client, on a real Celery worker; and what start_simulation takes
(ranks, the compute target) as the platform hears it, with runs left queued."""

import asyncio
import json
import os
import signal
import time
from decimal import ROUND_HALF_UP, Decimal

import pytest
import rasterio
from asgiref.sync import sync_to_async

from config.celery import app as celery_app
from hydrata.agents.models import AgentActivity, AgentSpend
from hydrata.anuga.models import Run, Scenario
from hydrata.compute.costs.pricing import SERIAL_SECONDS_PER_TRIANGLE_STEP, parallel_overhead
from hydrata.storage import get_storage
from tests.data import DEM
from tests.factories import make_grant
from tests.mcp_client import mcp_client
from tests.model_setup import Stall, small_test_model, until
from tests.run_files import statistics_match_the_stored_files

pytestmark = pytest.mark.django_db(transaction=True)
SIGNATURES = ("X-Amz-Signature", "X-Amz-Security-Token", "X-Hydrata-Signature")
RAIN_MM_HR = 50.0  # tests/data/small_test/inputs/rainfall.geojson
# Five minutes of rain wets the model and fills every result layer; half an hour more proves nothing further.
SEED_DURATION = 300


def scan_for_signatures(result) -> None:
    """No read tool output, text or structured, carries a presigned signature."""
    dumped = json.dumps(result.model_dump(mode="json"))
    for signature in SIGNATURES:
        assert signature not in dumped, dumped[:2000]


async def built_scenario(client, model, *, duration: int, resolution: float = 5) -> dict:
    created = await client.call_tool(
        "create_scenario",
        {"project_id": model.project_id, "name": "run me", "resolution": resolution, "duration": duration},
    )
    scenario = created.structured_content
    built = await client.call_tool(
        "build_scenario", {"project_id": model.project_id, "scenario_id": scenario["id"], "poll_interval_seconds": 2}
    )
    assert built.structured_content["outcome"] == "built", built.structured_content
    return scenario


async def child_of(run_id: int) -> dict:
    """The simulation's process id once the worker has started it (read off the event loop)."""
    return await sync_to_async(until)(
        lambda: {"pid": Run.objects.get(pk=run_id).child_pid}, lambda r: r["pid"], seconds=60
    )


async def poll_status(client, run_id: int, until_states: set[str], *, seconds: float = 120) -> list[dict]:
    """The run's status answers until it reaches one of `until_states`, or until they stop changing for `seconds`
    (a computing run's answer changes with its heartbeat and progress: see tests/model_setup.py Stall)."""
    seen, stall = [], Stall(seconds)
    while True:
        status = await client.call_tool("get_run_status", {"run_id": run_id})
        scan_for_signatures(status)
        seen.append(status.structured_content)
        if status.structured_content["status"] in until_states or not stall.waiting(status.structured_content):
            return seen
        await asyncio.sleep(0.5)


def gone(pid: int, *, seconds: float = 30) -> bool:
    """Whether the process has ended within `seconds` (polled: how fast the kernel reaps it varies with load)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def rain_that_fell(mesh, *, seconds: float) -> float:
    """small_test's rain: 50 mm/hr over a polygon covering the whole mesh."""
    return RAIN_MM_HR / 1000 / 3600 * mesh.area_m2 * seconds


def test_the_seed_workflow_runs_a_real_simulation_and_reads_its_results(live_asgi, celery_worker):
    grant, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            scenario = await built_scenario(client, model, duration=SEED_DURATION)
            started = await client.call_tool("start_simulation", {"scenario_id": scenario["id"]})
            run_id = started.structured_content["id"]
            seen = await poll_status(client, run_id, {"complete", "error", "cancelled"})
            run = await client.call_tool("get_run", {"run_id": run_id})
            results = await client.call_tool("get_run_results", {"run_id": run_id})
            listed = await client.call_tool("list_runs", {"project_id": model.project_id})
            sampled = await client.call_tool(
                "sample_run_results", {"run_id": run_id, "points": [{"x": 251100, "y": 6271900}, {"x": 100, "y": 100}]}
            )
            return started, seen, run, results, listed, sampled

    started, seen, run, results, listed, sampled = asyncio.run(session())

    for output in (started, run, results, listed, sampled):
        assert not output.is_error, output.content[0].text
        scan_for_signatures(output)
    assert started.structured_content["status"] == "queued" and started.structured_content["ui_url"]
    assert seen[-1]["status"] == "complete", seen[-1]
    assert all(s["phase"] for s in seen)
    assert {"id", "status", "phase", "progress_pct", "eta_seconds", "error_message", "compute_backend"} <= set(seen[-1])
    assert seen[-1]["progress_pct"] == 100
    assert seen[-1]["phase"] == "done", "a complete run is done, not post-processing"

    record = run.structured_content
    assert record["sim_time"] == record["duration"] == SEED_DURATION, "a complete run simulated its whole duration"
    assert record["mesh_triangle_count"] > 0 and record["statistics"]["peak_depth_m"] > 0
    assert set(record["result_layers"]) == {
        "gn_layer_max_depth",
        "gn_layer_max_speed",
        "gn_layer_max_stage",
        "gn_layer_max_hazard",
        "gn_layer_time_of_inundation",
        "gn_layer_duration_of_inundation",
    }
    assert listed.structured_content["results"][0]["id"] == record["id"]

    statistics = results.structured_content["statistics"]
    # the results tool lifts the model's health out of the statistics to the top of its result, typed
    assert {**statistics, "health": results.structured_content["health"]} == record["statistics"]
    assert results.structured_content["health"]["verdict"] in {"healthy", "check", "unhealthy"}
    mesh = statistics_match_the_stored_files(record["id"], statistics)
    assert statistics["volume_balance"]["rainfall_m3"] == pytest.approx(
        rain_that_fell(mesh, seconds=SEED_DURATION), rel=1e-6
    )
    assert any(block.type == "image" and block.mime_type == "image/png" for block in results.content)

    points = sampled.structured_content["points"]
    assert points[0]["peak_depth"] is not None and points[1]["peak_depth"] is None

    db_run = Run.objects.get(pk=record["id"])
    with (
        get_storage().local_path(key=f"{db_run.results_prefix}/max_depth.tif") as path,
        rasterio.open(path) as depth,
        rasterio.open(DEM) as dem,
    ):
        assert depth.crs == dem.crs and depth.transform == dem.transform and depth.shape == dem.shape
    spend = AgentSpend.objects.get(grant=grant)
    assert spend.reference == f"run:{record['id']}" and str(spend.amount) == record["compute_cost"]


def test_cancelling_a_computing_run_stops_its_child_process(live_asgi, celery_worker):
    _, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            scenario = await built_scenario(client, model, duration=200_000)
            started = await client.call_tool("start_simulation", {"scenario_id": scenario["id"]})
            run_id = started.structured_content["id"]
            await poll_status(client, run_id, {"computing"}, seconds=120)
            child = await child_of(run_id)
            cancelled = await client.call_tool("cancel_run", {"run_id": run_id})
            seen = await poll_status(client, run_id, {"cancelled", "complete", "error"}, seconds=60)
            again = await client.call_tool("cancel_run", {"run_id": run_id})
            return run_id, child["pid"], cancelled, seen, again

    run_id, pid, cancelled, seen, again = asyncio.run(session())

    assert pid and seen[-1]["status"] == "cancelled"
    assert cancelled.structured_content["say_to_user"]
    assert gone(pid)
    assert again.is_error and "RUN_FINISHED" in again.content[0].text
    # The agent pays for the share of the simulated time computed; the rest of the price comes back.
    run = Run.objects.get(pk=run_id)
    entries = AgentSpend.objects.filter(reference=f"run:{run_id}")
    charged = entries.get(amount__gt=0).amount
    # (On a busy machine the child may not have reported any simulated time yet: then all of it comes back.)
    computed = Decimal(str((run.sim_time or 0) / run.duration))
    assert 0 <= computed < 1 and run.compute_cost == (charged * computed).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert sum(entries.values_list("amount", flat=True)) == run.compute_cost
    assert "of the simulated time done" in run.user_message


def test_a_killed_worker_ends_its_run_in_error_with_a_reason_and_retry_completes_it(live_asgi, start_worker, settings):
    settings.HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS = 8
    _, key = make_grant(level="launch")
    worker = start_worker()
    model = small_test_model(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            scenario = await built_scenario(client, model, duration=200_000, resolution=10)
            started = await client.call_tool("start_simulation", {"scenario_id": scenario["id"]})
            run_id = started.structured_content["id"]
            await poll_status(client, run_id, {"computing"}, seconds=120)
            child = await child_of(run_id)
            worker.process.send_signal(signal.SIGKILL)
            start_worker(beat=True)  # another machine's worker, and beat, whose sweep ends the silent run
            seen = await poll_status(client, run_id, {"error", "complete", "cancelled"}, seconds=60)
            return run_id, child["pid"], seen

    run_id, pid, seen = asyncio.run(session())

    assert seen[-1]["status"] == "error" and "worker" in seen[-1]["error_message"]
    assert gone(pid), "the child should die with its worker"

    Scenario.objects.filter(runs__pk=run_id).update(duration=300)  # the retry rebuilds from the scenario

    async def retry():
        async with mcp_client(live_asgi.url, key) as client:
            retried = await client.call_tool("retry_run", {"run_id": run_id})
            return retried, await poll_status(
                client, retried.structured_content["id"], {"complete", "error", "cancelled"}, seconds=120
            )

    retried, after = asyncio.run(retry())
    assert not retried.is_error, retried.content[0].text
    assert retried.structured_content["id"] != run_id
    assert after[-1]["status"] == "complete", after[-1]
    completed = Run.objects.get(pk=retried.structured_content["id"])
    assert completed.retry_of_id == run_id
    mesh = statistics_match_the_stored_files(completed.pk, completed.statistics)
    assert completed.statistics["volume_balance"]["rainfall_m3"] == pytest.approx(
        rain_that_fell(mesh, seconds=300), rel=1e-6
    )


def test_a_scenario_that_has_run_runs_again_from_its_build_without_a_rebuild(live_asgi, celery_worker):
    """The loop this breaks: start_simulation said SCENARIO_NOT_BUILT after a complete run, build_scenario reused
    the build (posted: false), and start_simulation refused again."""
    grant, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            scenario = await built_scenario(client, model, duration=60, resolution=10)
            first = await client.call_tool("start_simulation", {"scenario_id": scenario["id"]})
            await poll_status(client, first.structured_content["id"], {"complete", "error", "cancelled"})
            build = await client.call_tool(
                "build_scenario", {"project_id": model.project_id, "scenario_id": scenario["id"]}
            )
            second = await client.call_tool("start_simulation", {"scenario_id": scenario["id"]})
            if second.is_error:
                return first, build, second, []
            seen = await poll_status(client, second.structured_content["id"], {"complete", "error", "cancelled"})
            return first, build, second, seen

    first, build, second, seen = asyncio.run(session())

    assert not second.is_error, second.content[0].text
    assert build.structured_content["outcome"] == "built" and build.structured_content["posted"] is False
    assert second.structured_content["status"] == "queued"
    assert seen[-1]["status"] == "complete", seen[-1]
    runs = Run.objects.order_by("pk")
    assert [run.pk for run in runs] == [first.structured_content["id"], second.structured_content["id"]]
    assert runs[0].status == runs[1].status == "complete"
    assert runs[1].package_prefix == runs[0].package_prefix, "the second run computes the first one's build"
    assert runs[1].mesh_triangle_count == runs[0].mesh_triangle_count
    assert runs[1].results_prefix != runs[0].results_prefix
    assert runs[1].statistics["peak_depth_m"] == pytest.approx(runs[0].statistics["peak_depth_m"])
    references = set(AgentSpend.objects.filter(grant=grant, amount__gt=0).values_list("reference", flat=True))
    assert references == {f"run:{runs[0].pk}", f"run:{runs[1].pk}"}, "each run is charged once"


def test_a_start_while_a_run_of_the_scenario_is_queued_names_that_run(live_asgi):
    _, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            scenario = await built_scenario(client, model, duration=60, resolution=10)
            celery_app.conf.task_always_eager = False  # no worker: the first run stays queued
            first = await client.call_tool("start_simulation", {"scenario_id": scenario["id"]})
            second = await client.call_tool("start_simulation", {"scenario_id": scenario["id"]})
            return first, second

    first, second = asyncio.run(session())

    assert not first.is_error, first.content[0].text
    assert second.is_error and "RUN_IN_PROGRESS" in second.content[0].text
    assert f"Run {first.structured_content['id']}" in second.content[0].text
    assert "get_run_status" in second.content[0].text and "cancel_run" in second.content[0].text


def test_a_time_series_no_input_names_leaves_the_build_current_and_the_run_starts_without_a_rebuild(live_asgi):
    """A new gauge record in the project made every built scenario "not built": start_simulation answered
    SCENARIO_NOT_BUILT while get_scenario said latest_run_is_valid in the same minute."""
    _, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)
    record = [{"timestamp": "2024-01-01T00:00:00Z", "value": 10.0}, {"timestamp": "2024-01-01T00:10:00Z", "value": 0.0}]

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            scenario = await built_scenario(client, model, duration=60, resolution=10)
            pid, sid = model.project_id, scenario["id"]
            added = await client.call_tool(
                "create_time_series",
                {"project_id": pid, "name": "gauge record", "units": "mm/hr", "data": {"rowData": record}},
            )
            read = await client.call_tool("get_scenario", {"project_id": pid, "scenario_id": sid})
            celery_app.conf.task_always_eager = False  # the run stays queued: only the start is in question
            started = await client.call_tool("start_simulation", {"scenario_id": sid})
            return scenario, added, read, started

    scenario, added, read, started = asyncio.run(session())

    assert not added.is_error, added.content[0].text
    assert (
        read.structured_content["latest_run_is_valid"] is True and read.structured_content["changed_since_build"] == []
    )
    assert not started.is_error, started.content[0].text
    assert Run.objects.filter(scenario_id=scenario["id"], study_member=False).exclude(package_prefix="").count() == 1


def test_after_the_scenario_changes_the_refusal_names_what_changed_and_the_rebuild_call_that_lets_it_start(live_asgi):
    _, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            scenario = await built_scenario(client, model, duration=60, resolution=10)
            pid, sid = model.project_id, scenario["id"]
            await client.call_tool("update_scenario", {"project_id": pid, "scenario_id": sid, "duration": 90})
            read = await client.call_tool("get_scenario", {"project_id": pid, "scenario_id": sid})
            refused = await client.call_tool("start_simulation", {"scenario_id": sid})
            rebuilt = await client.call_tool("build_scenario", {"project_id": pid, "scenario_id": sid, "rebuild": True})
            celery_app.conf.task_always_eager = False  # the run stays queued: only the start is in question
            started = await client.call_tool("start_simulation", {"scenario_id": sid})
            return read, refused, rebuilt, started

    read, refused, rebuilt, started = asyncio.run(session())

    assert read.structured_content["latest_run_is_valid"] is False
    assert read.structured_content["changed_since_build"] == ["the scenario's settings"]
    assert refused.is_error and "SCENARIO_NOT_BUILT" in refused.content[0].text
    assert "It changed since its last build (the scenario's settings changed)" in refused.content[0].text
    assert "build_scenario with rebuild: true" in refused.content[0].text
    assert f"project_id {model.project_id}" in refused.content[0].text
    assert rebuilt.structured_content["posted"] is True and rebuilt.structured_content["outcome"] == "built"
    assert not started.is_error, started.content[0].text
    assert started.structured_content["id"] == rebuilt.structured_content["run_id"]


def test_a_scenario_never_built_is_refused_with_the_build_call_to_make(live_asgi):
    _, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            created = await client.call_tool(
                "create_scenario", {"project_id": model.project_id, "name": "s", "resolution": 10, "duration": 60}
            )
            return await client.call_tool("start_simulation", {"scenario_id": created.structured_content["id"]})

    refused = asyncio.run(session())

    assert refused.is_error and "SCENARIO_NOT_BUILT" in refused.content[0].text
    assert "never been built: build it with build_scenario (project_id" in refused.content[0].text
    assert "rebuild" not in refused.content[0].text


async def queued_scenario(client, model) -> dict:
    """A built scenario whose runs stay queued (no worker): long enough that its price shows what ranks add."""
    scenario = await built_scenario(client, model, duration=200_000, resolution=10)
    celery_app.conf.task_always_eager = False
    return scenario


def test_a_start_on_two_ranks_reaches_the_platform_and_every_answer_about_the_run_says_two(live_asgi, settings):
    settings.HYDRATA_MAX_RANKS = 2
    settings.HYDRATA_COMPUTE_USD_PER_VCPU_HOUR = 100  # dollars, not the one-cent floor, so the overhead shows
    grant, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            scenario = await queued_scenario(client, model)
            serial = await client.call_tool("start_simulation", {"scenario_id": scenario["id"]})
            await client.call_tool("cancel_run", {"run_id": serial.structured_content["id"]})
            two = await client.call_tool("start_simulation", {"scenario_id": scenario["id"], "ranks": 2})
            run_id = two.structured_content["id"]
            status = await client.call_tool("get_run_status", {"run_id": run_id})
            record = await client.call_tool("get_run", {"run_id": run_id})
            return serial, two, status, record

    serial, two, status, record = asyncio.run(session())

    for output in (serial, two, status, record):
        assert not output.is_error, output.content[0].text
    assert serial.structured_content["ranks"] == 1
    started = two.structured_content
    assert started["ranks"] == started["summary"]["ranks"] == 2 and "on 2 MPI ranks" in started["say_to_user"]
    assert status.structured_content["ranks"] == record.structured_content["ranks"] == 2
    assert Run.objects.get(pk=started["id"]).ranks == 2
    serial_price, two_price = Decimal(serial.structured_content["compute_cost"]), Decimal(started["compute_cost"])
    # Both prices are rounded up to the cent, so they agree with the overhead to within two cents.
    triangles = (
        record.structured_content["mesh_triangle_count"] or record.structured_content["mesh_triangle_count_estimate"]
    )
    overhead = parallel_overhead(ranks=2, serial_step_seconds=SERIAL_SECONDS_PER_TRIANGLE_STEP * triangles)
    assert float(two_price) == pytest.approx(float(serial_price) * overhead, abs=0.02)
    assert two_price > serial_price
    assert AgentSpend.objects.get(grant=grant, reference=f"run:{started['id']}").amount == two_price


def test_more_ranks_than_the_platform_allows_is_a_tool_error_with_its_code_and_limit_and_nothing_is_queued(
    live_asgi, settings
):
    settings.HYDRATA_MAX_RANKS = 2
    _, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            scenario = await queued_scenario(client, model)
            return await client.call_tool("start_simulation", {"scenario_id": scenario["id"], "ranks": 3})

    refused = asyncio.run(session())

    text = refused.content[0].text
    assert refused.is_error and "(HTTP 400, INVALID_RANKS)" in text
    assert "ranks must be between 1 and 2 on this platform; 3 was asked for." in text
    assert "http://" not in text and "Traceback" not in text
    assert not Run.objects.filter(status="queued").exists()


@pytest.mark.parametrize("ranks", [0, 2.5, "two"])
def test_ranks_below_one_or_not_a_whole_number_are_refused_by_the_tool_schema_before_any_request(live_asgi, ranks):
    grant, key = make_grant(level="launch")

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            called = await client.call_tool("start_simulation", {"scenario_id": 1, "ranks": ranks})
            return listed["start_simulation"].input_schema["properties"]["ranks"], called

    published, refused = asyncio.run(session())

    limits = {field: published[field] for field in ("type", "minimum", "default")}
    assert limits == {"type": "integer", "minimum": 1, "default": 1}
    assert refused.is_error and "ranks" in refused.content[0].text
    assert not AgentActivity.objects.filter(grant=grant).exists(), "nothing reached the platform"


def test_an_agent_may_choose_each_configured_target_and_one_that_cannot_run_is_refused_naming_those_that_can(
    live_asgi, settings
):
    settings.HYDRATA_COMPUTE_BACKENDS = ["local", "slurm", "batch", "ec2"]
    settings.HYDRATA_BATCH_JOB_QUEUE, settings.HYDRATA_BATCH_JOB_DEFINITION = "flood", "hydrata-run"
    _, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)

    async def start_on(client, scenario: dict, target: str):
        started = await client.call_tool("start_simulation", {"scenario_id": scenario["id"], "compute_backend": target})
        if not started.is_error:
            await client.call_tool("cancel_run", {"run_id": started.structured_content["id"]})
        return started

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            scenario = await queued_scenario(client, model)
            chosen = {target: await start_on(client, scenario, target) for target in ("slurm", "batch", "ec2")}
            settings.HYDRATA_BATCH_JOB_QUEUE = ""  # batch listed but with no queue to submit to
            chosen["unconfigured batch"] = await start_on(client, scenario, "batch")
            return chosen

    chosen = asyncio.run(session())

    for target in ("slurm", "batch"):
        assert not chosen[target].is_error, chosen[target].content[0].text
        assert chosen[target].structured_content["compute_backend"] == target
        assert Run.objects.get(pk=chosen[target].structured_content["id"]).compute_backend == target
    for refused, targets in ((chosen["ec2"], "local, slurm, batch"), (chosen["unconfigured batch"], "local, slurm")):
        assert refused.is_error and "(HTTP 409, COMPUTE_TARGET_UNAVAILABLE)" in refused.content[0].text
        assert f"use one of: {targets}." in refused.content[0].text
