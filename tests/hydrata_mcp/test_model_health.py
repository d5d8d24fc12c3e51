"""Is this model healthy? Asked of a real small_test run through the official SDK client, on a real worker: the
results tool answers a verdict with its evidence, and the REST answer behind it is as the OpenAPI schema says."""

import asyncio

import pytest
from openapi_schema_validator import OAS30Validator
from rest_framework.test import APIClient

from tests.factories import make_grant
from tests.hydrata_mcp.test_results import completed, started, tool, with_gauges
from tests.mcp_client import mcp_client
from tests.model_setup import api

pytestmark = pytest.mark.django_db(transaction=True)
RESULTS_ROUTE = "/api/v2/anuga/runs/{run_id}/results/"


def documented(answer: dict, route: str) -> None:
    document = APIClient().get("/api/v2/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    declared = document["paths"][route]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    OAS30Validator({**declared, "components": document["components"]}).validate(answer)


def test_a_real_run_answers_is_it_healthy_with_a_verdict_and_the_evidence(live_asgi, celery_worker):
    _, key = make_grant(level="launch")
    model = with_gauges(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            fine = await started(client, model.project_id, resolution=10, duration=120, terrain=model.terrain_id)
            await completed(client, [fine])
            return fine, (await tool(client, "get_run_results", {"run_id": fine})).structured_content

    run_id, results = asyncio.run(session())
    with api(live_asgi.url, key) as http:
        rest = http.get(f"/api/v2/anuga/runs/{run_id}/results/").json()

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
