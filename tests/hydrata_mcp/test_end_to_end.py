"""The official MCP SDK client over a real socket, through /mcp/ and the REST API behind it."""

import uuid

import pytest

from hydrata.agents.models import AgentActivity
from hydrata_mcp import __version__
from tests.factories import make_grant
from tests.mcp_client import mcp_client, run

pytestmark = pytest.mark.django_db(transaction=True)

READ_ONLY = {
    "list_projects",
    "get_project",
    "get_agent_grant",
    "get_terrain",
    "list_inputs",
    "list_time_series",
    "get_scenario",
    "list_scenarios",
    "get_run_status",
    "get_run",
    "list_runs",
    "get_run_results",
    "sample_run_results",
    "list_observations",
    "get_comparison",
    "get_run_time_series",
    "compare_runs",
    "get_design_study",
    "list_design_studies",
    "get_calibration_study",
    "get_run_report",
}
FIRST_TOOLS = {"list_projects", "get_project", "create_project", "get_agent_grant", "suggest_capability"}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_an_agent_lists_tools_creates_a_project_and_reads_it_back(live_asgi, mode):
    grant, key = make_grant(level="draft")

    async def session():
        async with mcp_client(live_asgi.url, key, mode=mode) as client:
            tools = (await client.list_tools()).tools
            created = await client.call_tool("create_project", {"name": "Merewether", "projection": "EPSG:32756"})
            fetched = await client.call_tool("get_project", {"project_id": created.structured_content["id"]})
            return tools, created, fetched

    tools, created, fetched = run(session)

    by_name = {t.name: t for t in tools}
    assert set(by_name) >= FIRST_TOOLS
    for name, listed in by_name.items():
        assert listed.title and listed.annotations.title == listed.title
        assert bool(listed.annotations.read_only_hint) is (name in READ_ONLY)  # absent: the spec's false
        assert listed.annotations.destructive_hint is (
            name in {"cancel_run", "delete_observation", "cancel_design_study", "cancel_calibration_study"}
        )
        assert listed.output_schema["type"] == "object"
        assert listed.description
    assert not created.is_error
    project = created.structured_content
    assert project["ui_url"] == f"{live_asgi.url}/catalogue/#/map/{project['base_map']}"
    assert project["summary"]["projection"] == "EPSG:32756"
    assert project["say_to_user"] and project["ui_url"] in project["say_to_user"]
    assert created.content[0].type == "text" and '"ui_url"' in created.content[0].text
    assert fetched.structured_content["name"] == "Merewether"
    assert fetched.structured_content["role"] == "owner"

    # The REST API saw the caller's own key (its grant), and the informational headers.
    activity = list(AgentActivity.objects.filter(grant=grant).order_by("created_at"))
    assert [(a.method, a.path, a.status_code) for a in activity] == [
        ("POST", "/api/v2/anuga/projects/", 201),
        ("GET", f"/api/v2/anuga/projects/{project['id']}/", 200),
    ]
    assert {a.client for a in activity} == {f"mcp/{__version__}"}
    assert all(uuid.UUID(a.session) for a in activity)


def test_the_agent_reads_its_own_grant(live_asgi):
    grant, key = make_grant(level="launch", name="CI agent")

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            return await client.call_tool("get_agent_grant", {})

    result = run(session)

    assert result.structured_content["name"] == "CI agent"
    assert result.structured_content["level"] == "launch"
    assert result.structured_content["paused"] is False
    assert result.structured_content["key_prefix"] == grant.key_prefix
    assert key not in result.content[0].text


def test_a_capability_suggestion_is_recorded_with_its_id(live_asgi):
    grant, key = make_grant(level="read")

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            return await client.call_tool(
                "suggest_capability",
                {"summary": "Export results as a PDF report", "details": "The engineer asked for one."},
            )

    result = run(session)

    suggestion = grant.user.capability_suggestions.get()
    assert result.structured_content == {"id": suggestion.pk, "summary": "Export results as a PDF report"}
    assert suggestion.grant == grant


def test_an_unknown_argument_is_a_tool_error_not_silently_ignored(live_asgi):
    _, key = make_grant(level="read")

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            return await client.call_tool("list_projects", {"pagesize": 5})

    result = run(session)

    assert result.is_error and "pagesize" in result.content[0].text


def test_server_instructions_ask_for_the_link_and_for_the_user_before_a_run(live_asgi):
    _, key = make_grant(level="read")

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            return client.instructions

    instructions = run(session)
    assert "ui_url" in instructions
    assert "start_simulation" in instructions


def test_no_log_line_carries_the_key(live_asgi, caplog):
    caplog.set_level("DEBUG")
    _grant, key = make_grant(level="read")
    _revoked_grant, revoked_key = make_grant(level="read", revoked=True)

    async def session(with_key):
        async with mcp_client(live_asgi.url, with_key) as client:
            await client.call_tool("list_projects", {})
            await client.call_tool("get_project", {"project_id": 999})

    run(lambda: session(key))
    run(lambda: session(revoked_key))

    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert logged  # the stack did log (requests, refusals) ...
    assert key not in logged and revoked_key not in logged  # ... but never a key
    assert key[3:] not in logged
