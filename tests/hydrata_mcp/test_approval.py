"""The sign-off seen by an agent: start_simulation is refused with APPROVAL_REQUIRED and the link to give the user,
and get_scenario says whether the scenario is approved as it is now."""

import asyncio

import pytest
from django.test import Client

from config.celery import app as celery_app
from hydrata.agents.services import account_set_runs_need_approval
from hydrata.anuga.models import Project
from tests.factories import make_grant
from tests.mcp_client import mcp_client
from tests.model_setup import small_test_model

pytestmark = pytest.mark.django_db(transaction=True)


def test_start_simulation_names_the_link_to_sign_off_at_and_get_scenario_shows_the_approval(live_asgi):
    grant, key = make_grant(level="launch")
    account_set_runs_need_approval(user=grant.user, required=True)
    model = small_test_model(live_asgi.url, key)
    base_map = Project.objects.get(pk=model.project_id).base_map_id

    async def before_approval():
        async with mcp_client(live_asgi.url, key) as client:
            created = await client.call_tool(
                "create_scenario", {"project_id": model.project_id, "name": "s", "resolution": 10, "duration": 60}
            )
            scenario_id = created.structured_content["id"]
            await client.call_tool(
                "build_scenario",
                {"project_id": model.project_id, "scenario_id": scenario_id, "poll_interval_seconds": 2},
            )
            celery_app.conf.task_always_eager = False  # nothing computes: a start leaves the run queued
            refused = await client.call_tool("start_simulation", {"scenario_id": scenario_id})
            read = await client.call_tool("get_scenario", {"project_id": model.project_id, "scenario_id": scenario_id})
            return scenario_id, refused, read

    scenario_id, refused, read = asyncio.run(before_approval())
    person = Client()
    person.force_login(grant.user)
    person.post(f"/api/v2/anuga/projects/{model.project_id}/scenarios/{scenario_id}/approve/")

    async def after_approval():
        async with mcp_client(live_asgi.url, key) as client:
            read = await client.call_tool("get_scenario", {"project_id": model.project_id, "scenario_id": scenario_id})
            return read, await client.call_tool("start_simulation", {"scenario_id": scenario_id})

    approved, started = asyncio.run(after_approval())

    link = f"{live_asgi.url}/catalogue/#/map/{base_map}?panel=scenario&scenario={scenario_id}"
    assert refused.is_error and "APPROVAL_REQUIRED" in refused.content[0].text and link in refused.content[0].text
    assert read.structured_content["approval"]["approved"] is False
    assert read.structured_content["approval"]["required_for_your_agents"] is True
    assert approved.structured_content["approval"]["approved_by_you"] is True
    assert not started.is_error and started.structured_content["status"] == "queued"
