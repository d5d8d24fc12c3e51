"""Polling tools cannot be made to hammer the platform: a poll interval under two seconds is refused."""

import pytest

from hydrata.agents.models import AgentActivity
from tests.factories import make_grant
from tests.mcp_client import mcp_client, run

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
