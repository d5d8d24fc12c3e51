"""Is this model healthy? Asked of real small_test runs through the official SDK client, on a real worker: the
results tool answers a verdict with its evidence, the REST answer behind it is as the OpenAPI schema says, and the
same scenario at two resolutions gives the change in peak depth at each gauge (mesh convergence)."""

import asyncio

import pytest
from openapi_schema_validator import OAS31Validator
from rest_framework.test import APIClient

from tests.factories import make_grant
from tests.hydrata_mcp.test_results import completed, started, tool, with_gauges
from tests.mcp_client import mcp_client
from tests.model_setup import api

pytestmark = pytest.mark.django_db(transaction=True)
RESULTS_ROUTE = "/api/v2/anuga/runs/{run_id}/results/"
IMPACT_ROUTE = "/api/v2/anuga/runs/{run_id}/impact/{other_run_id}/"
GAUGES = {"middle": {"x": 251100.0, "y": 6271900.0}, "north": {"x": 251100.0, "y": 6271980.0}}  # with_gauges'


def documented(answer: dict, route: str) -> None:
    document = APIClient().get("/api/v2/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    declared = document["paths"][route]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    OAS31Validator({**declared, "components": document["components"]}).validate(answer)


def test_a_real_run_answers_is_it_healthy_with_a_verdict_and_the_evidence_and_a_coarser_mesh_what_it_changes(
    live_asgi, celery_worker
):
    _, key = make_grant(level="launch")
    model = with_gauges(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            fine = await started(client, model.project_id, resolution=10, duration=120, terrain=model.terrain_id)
            coarse = await started(client, model.project_id, resolution=20, duration=120, terrain=model.terrain_id)
            await completed(client, [fine, coarse])
            points = [GAUGES["middle"], GAUGES["north"]]
            return (
                fine,
                coarse,
                (await tool(client, "get_run_results", {"run_id": fine})).structured_content,
                (await tool(client, "compare_runs", {"run_id": fine, "other_run_id": coarse})).structured_content,
                [
                    (await tool(client, "sample_run_results", {"run_id": run, "points": points})).structured_content
                    for run in (fine, coarse)
                ],
            )

    run_id, coarse_id, results, convergence, sampled = asyncio.run(session())
    with api(live_asgi.url, key) as http:
        rest = http.get(f"/api/v2/anuga/runs/{run_id}/results/").json()
        rest_impact = http.get(f"/api/v2/anuga/runs/{run_id}/impact/{coarse_id}/").json()

    health = results["health"]
    assert "health" not in results["statistics"]  # once, typed, at the top of the tool's result
    assert health == rest["statistics"]["health"]
    documented(rest, RESULTS_ROUTE)
    assert health["verdict"] == "healthy" and health["reasons"] == []
    timestep = health["timestep_s"]
    assert 0 < timestep["min"] <= timestep["median"] <= timestep["max"] and timestep["steps"] > 0
    assert sum(health["steps_limited_by"].values()) == timestep["steps"]
    assert health["limiting_triangles"] and 0 < health["limiting_triangles"][0]["share"] <= 1
    assert 0 < health["peak_courant"]["value"] <= health["cfl"] * (1 + 1e-9)
    assert abs(health["mass_error"]["final_pct"]) < 1e-6 and health["mass_error"]["healthy_line_pct"] == 1.0
    assert health["mass_error"]["series"]["t"][-1] == 120.0
    assert health["spikes"]["speed_cells"] == 0 and health["spikes"]["depth_cells"] == 0

    # Mesh convergence: the same scenario at 10 m and 20 m, peak depth at each gauge read off each run's own
    # max-depth raster (sample_run_results reads the same rasters at the gauges' points).
    documented(rest_impact, IMPACT_ROUTE)
    assert (convergence["run_resolution_m"], convergence["other_resolution_m"]) == (10.0, 20.0)
    fine_peaks, coarse_peaks = ([point["peak_depth"] for point in answer["points"]] for answer in sampled)
    by_name = {gauge["name"]: gauge for gauge in convergence["gauges"]}
    assert sorted(by_name) == ["middle", "north"]
    for index, name in enumerate(("middle", "north")):
        gauge = by_name[name]
        assert gauge["run_peak_depth_m"] == pytest.approx(fine_peaks[index])
        assert gauge["other_peak_depth_m"] == pytest.approx(coarse_peaks[index])
        assert gauge["change_m"] == pytest.approx(coarse_peaks[index] - fine_peaks[index], abs=1e-9)
    assert "Mesh convergence, 10 m to 20 m" in convergence["say_to_user"]
