"""Runs on a real Slurm cluster (slurmctld, slurmd and munge on loopback, started by `python -m tests.production`):
the job fetches its package and sends its results through signed S3 links, and nothing it reports differs from
the same scenario computed by a worker."""

import asyncio
import os
import subprocess

import numpy as np
import pytest
import rasterio

from hydrata.anuga.models import Run
from hydrata.storage import get_storage
from tests.factories import make_grant
from tests.hydrata_mcp.test_runs import built_scenario, poll_status, scan_for_signatures
from tests.mcp_client import mcp_client
from tests.model_setup import small_test_model, until

pytestmark = pytest.mark.django_db(transaction=True)
ENDED = {"complete", "error", "cancelled"}


def squeue(job_id: str) -> str:
    return subprocess.run(
        ["squeue", "--noheader", "--jobs", job_id, "--format", "%T"], capture_output=True, text=True, check=False
    ).stdout.strip()


def max_depth(run_id: int) -> np.ndarray:
    run = Run.objects.get(pk=run_id)
    with get_storage().local_path(key=f"{run.results_prefix}/max_depth.tif") as path, rasterio.open(path) as raster:
        return raster.read(1, masked=True).filled(np.nan)


def test_a_run_on_slurm_completes_with_the_same_results_as_the_same_scenario_on_a_worker(
    production_web, start_production_worker
):
    start_production_worker()
    _, key = make_grant(level="launch")
    model = small_test_model(production_web.url, key)

    async def session():
        async with mcp_client(production_web.url, key) as client:
            runs = {}
            for backend in ("local", "slurm"):
                scenario = await built_scenario(client, model, duration=300, resolution=10)
                started = await client.call_tool(
                    "start_simulation", {"scenario_id": scenario["id"], "compute_backend": backend}
                )
                assert not started.is_error, started.content[0].text
                runs[backend] = started.structured_content["id"]
                seen = await poll_status(client, runs[backend], ENDED, seconds=300)
                assert seen[-1]["status"] == "complete", seen[-1]
            results = {b: await client.call_tool("get_run_results", {"run_id": r}) for b, r in runs.items()}
            return runs, results

    runs, results = asyncio.run(session())
    for result in results.values():
        assert not result.is_error, result.content[0].text
        scan_for_signatures(result)
    local, slurm = (results[b].structured_content["statistics"] for b in ("local", "slurm"))
    for figure in ("peak_depth_m", "wet_area_m2", "final_volume_m3", "volume_in_m3", "triangles"):
        assert slurm[figure] == pytest.approx(local[figure], rel=1e-9), figure
    assert slurm["mass_balance_error_pct"] == pytest.approx(local["mass_balance_error_pct"], abs=1e-9)
    np.testing.assert_allclose(max_depth(runs["slurm"]), max_depth(runs["local"]), atol=1e-9, equal_nan=True)
    ended = Run.objects.get(pk=runs["slurm"])
    assert ended.compute_backend == "slurm" and ended.external_job_id == ""  # followed to its end, then let go


def test_cancelling_a_run_on_slurm_ends_its_job(production_web, start_production_worker):
    start_production_worker()
    _, key = make_grant(level="launch")
    model = small_test_model(production_web.url, key)

    async def start():
        async with mcp_client(production_web.url, key) as client:
            scenario = await built_scenario(client, model, duration=200_000, resolution=10)
            started = await client.call_tool(
                "start_simulation", {"scenario_id": scenario["id"], "compute_backend": "slurm"}
            )
            assert not started.is_error, started.content[0].text
            return started.structured_content["id"]

    run_id = asyncio.run(start())
    job = until(lambda: {"id": Run.objects.get(pk=run_id).external_job_id}, lambda r: r["id"], seconds=120)
    until(lambda: {"state": squeue(job["id"])}, lambda r: r["state"] == "RUNNING", seconds=120)

    async def cancel():
        async with mcp_client(production_web.url, key) as client:
            await poll_status(client, run_id, {"computing"}, seconds=120)
            cancelled = await client.call_tool("cancel_run", {"run_id": run_id})
            assert not cancelled.is_error, cancelled.content[0].text
            return await poll_status(client, run_id, ENDED, seconds=120)

    seen = asyncio.run(cancel())
    assert seen[-1]["status"] == "cancelled", seen[-1]
    until(lambda: {"state": squeue(job["id"])}, lambda r: r["state"] == "", seconds=60)
    assert os.environ["SLURM_CONF"]  # the cluster the test started, not one the machine happens to have
