"""Every registered tool, as a client sees it through /mcp/: strict about the names of its arguments."""

import asyncio
import re

import pytest
from mcp.client.extension import advertise

from hydrata.agents.models import AgentActivity
from hydrata_mcp.server import mcp_server
from hydrata_mcp.tools.registry import REGISTRY
from tests.factories import make_grant
from tests.mcp_client import mcp_client, run

pytestmark = pytest.mark.django_db(transaction=True)

# What the server's tools/list handler answers; the first test checks the live endpoint lists the same.
TOOL_NAMES = sorted(listed.name for listed in asyncio.run(mcp_server().list_tools()))
FALLBACK_ARGUMENT = "projct_id"
# A host that negotiated MCP Apps is shown the app-only tools too (hydrata_mcp/ui), so it sees every tool.
APPS_HOST = {
    "mode": "2026-07-28",
    "extensions": [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})],
}


def listed(url: str, key: str) -> dict:
    async def session():
        async with mcp_client(url, key, **APPS_HOST) as client:
            return (await client.list_tools()).tools

    return {tool.name: tool for tool in run(session)}


def listed_tools(url: str, key: str) -> dict[str, dict]:
    return {name: tool.input_schema for name, tool in listed(url, key).items()}


def misspelt(name: str) -> str:
    """A hurried hand's typo: the first vowel after the first letter dropped (project_id -> prject_id)."""
    return re.sub(r"(?<=.)[aeiou]", "", name, count=1)


def test_the_endpoint_lists_exactly_the_registered_tools(live_asgi):
    _, key = make_grant(level="read")

    assert set(listed_tools(live_asgi.url, key)) == set(TOOL_NAMES) == set(REGISTRY)


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_a_tool_schema_forbids_arguments_it_does_not_name(live_asgi, name):
    _, key = make_grant(level="read")

    schema = listed_tools(live_asgi.url, key)[name]

    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False


def hint_problems(tool) -> list[str]:
    hints, spec = tool.annotations, REGISTRY[tool.name]
    problems = []
    if not (hints.title and hints.title == spec.title):
        problems.append("no title annotation")
    if tool.title not in (None, hints.title):
        problems.append("a second title that differs")
    if {type(hints.read_only_hint), type(hints.destructive_hint), type(hints.idempotent_hint)} != {bool}:
        problems.append("a hint is missing")
    if (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint) != (
        spec.read_only,
        spec.destructive,
        spec.idempotent,
    ):
        problems.append("hints differ from the registry")
    if hints.read_only_hint and not (hints.idempotent_hint and not hints.destructive_hint):
        problems.append("read-only but not idempotent, or destructive")  # reading twice is reading once
    if tool.output_schema is None or tool.output_schema.get("type") != "object":
        problems.append("no output schema")
    return problems


def test_every_tool_publishes_a_title_annotation_all_three_hints_and_an_output_schema(live_asgi):
    _, key = make_grant(level="read")

    tools = listed(live_asgi.url, key)

    assert {name: hint_problems(tool) for name, tool in tools.items() if hint_problems(tool)} == {}


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_a_misspelt_argument_is_a_tool_error_naming_it_and_nothing_is_called(live_asgi, name):
    grant, key = make_grant(level="launch")
    properties = list(listed_tools(live_asgi.url, key)[name].get("properties", {}))
    argument = misspelt(properties[0]) if properties else FALLBACK_ARGUMENT
    assert argument not in properties

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            return await client.call_tool(name, {argument: 1})

    result = run(session)

    assert result.is_error
    assert argument in result.content[0].text
    assert "Extra inputs are not permitted" in result.content[0].text
    assert not AgentActivity.objects.filter(grant=grant).exists()
