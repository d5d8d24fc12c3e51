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
APPS_HOST = {"mode": "2026-07-28",
             "extensions": [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})]}


def listed_tools(url: str, key: str) -> dict[str, dict]:
    async def session():
        async with mcp_client(url, key, **APPS_HOST) as client:
            return (await client.list_tools()).tools

    return {listed.name: listed.input_schema for listed in run(session)}


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
