"""The seed workflow on the production shape: PostgreSQL, Redis, S3, the Procfile's web command and two Celery
workers that share no local folder, through the official MCP client."""

import asyncio

import boto3
import pytest
from django.conf import settings

from hydrata.agents.models import AgentSpend
from tests.factories import make_grant
from tests.hydrata_mcp.test_runs import built_scenario, poll_status, scan_for_signatures
from tests.mcp_client import mcp_client
from tests.model_setup import small_test_model

pytestmark = pytest.mark.django_db(transaction=True)


def bucket_keys() -> list[str]:
    s3 = boto3.session.Session().client(
        "s3", region_name=settings.HYDRATA_S3_REGION, endpoint_url=settings.HYDRATA_S3_ENDPOINT_URL
    )
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=settings.HYDRATA_S3_BUCKET)
    return [item["Key"] for page in pages for item in page.get("Contents", [])]


def test_the_seed_workflow_completes_with_two_workers_that_share_only_the_database_broker_and_bucket(
    production_web, two_workers
):
    grant, key = make_grant(level="launch")
    model = small_test_model(production_web.url, key)

    async def session():
        async with mcp_client(production_web.url, key) as client:
            terrain = await client.call_tool(
                "get_terrain", {"project_id": model.project_id, "terrain_id": model.terrain_id}
            )
            inputs = await client.call_tool("list_inputs", {"project_id": model.project_id})
            scenario = await built_scenario(client, model, duration=900)
            started = await client.call_tool("start_simulation", {"scenario_id": scenario["id"]})
            run_id = started.structured_content["id"]
            seen = await poll_status(client, run_id, {"complete", "error", "cancelled"})
            results = await client.call_tool("get_run_results", {"run_id": run_id})
            sampled = await client.call_tool(
                "sample_run_results", {"run_id": run_id, "points": [{"x": 251100, "y": 6271900}]}
            )
            return terrain, inputs, started, seen, results, sampled

    terrain, inputs, started, seen, results, sampled = asyncio.run(session())

    for output in (terrain, inputs, started, results, sampled):
        assert not output.is_error, output.content[0].text
        scan_for_signatures(output)
    assert terrain.structured_content["status"] == "ready"
    assert seen[-1]["status"] == "complete", seen[-1]
    assert 0 < results.structured_content["statistics"]["peak_depth_m"] < 5
    assert sampled.structured_content["points"][0]["peak_depth"] is not None
    assert AgentSpend.objects.filter(grant=grant).count() == 1

    stored = bucket_keys()
    run_id = started.structured_content["id"]
    assert any(f"/{run_id}/" in name and name.endswith("max_depth.tif") for name in stored), stored
    for worker in two_workers:
        assert worker.process.poll() is None, worker.stop()
        left = [path for path in worker.media_root.rglob("*") if path.is_file()]
        assert left == [], left  # every file went through the bucket
