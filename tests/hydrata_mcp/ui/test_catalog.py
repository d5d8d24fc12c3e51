"""What a client sees of the MCP App: the UI binding on four tools, the resource, and app-only tools kept out of
the model's catalog."""

import asyncio

import pytest
from mcp.client.extension import advertise

from hydrata_mcp.ui import MAP_URI
from hydrata_mcp.ui.view.build import OUTPUT, built
from tests.factories import make_grant, make_user
from tests.mcp_client import mcp_client

pytestmark = pytest.mark.django_db(transaction=True)
BOUND = {"get_scenario", "get_run", "get_run_results", "get_comparison"}
APP_ONLY = {"get_map_depth_overlay", "get_map_scenario_layers", "get_map_comparison_points"}
MODERN = "2026-07-28"
# The view fetches nothing (Leaflet and its code are inlined; data comes through tools/call on the host).
STRICTEST_CSP = {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []}
APPS = advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})


def listed(url: str, key: str, **client_kwargs) -> dict:
    async def go():
        async with mcp_client(url, key, **client_kwargs) as client:
            return {tool.name: tool for tool in (await client.list_tools()).tools}

    return asyncio.run(go())


@pytest.fixture
def key():
    return make_grant(make_user("viewer"), level="read")[1]


def test_the_four_tools_declare_the_map_for_the_model_and_the_app(live_asgi, key):
    tools = listed(live_asgi.url, key)

    for name in BOUND:
        assert tools[name].meta["ui"] == {"resourceUri": MAP_URI, "visibility": ["model", "app"]}, name
    assert [name for name, tool in tools.items() if (tool.meta or {}).get("ui")] == sorted(BOUND, key=list(tools).index)


def test_a_client_without_the_apps_extension_lists_no_app_only_tool(live_asgi, key):
    assert APP_ONLY.isdisjoint(listed(live_asgi.url, key))
    assert APP_ONLY.isdisjoint(listed(live_asgi.url, key, mode=MODERN))


def test_a_host_that_negotiated_apps_sees_the_app_only_tools_marked_for_the_app_alone(live_asgi, key):
    tools = listed(live_asgi.url, key, mode=MODERN, extensions=[APPS])

    for name in APP_ONLY:
        assert tools[name].meta["ui"] == {"resourceUri": MAP_URI, "visibility": ["app"]}, name


def test_the_map_resource_is_the_built_html_with_the_apps_mime_type(live_asgi, key):
    async def go():
        async with mcp_client(live_asgi.url, key) as client:
            return await client.read_resource(MAP_URI)

    content = asyncio.run(go()).contents[0]

    assert content.mime_type == "text/html;profile=mcp-app"
    assert content.text == OUTPUT.read_text(encoding="utf-8")
    assert content.meta["ui"]["csp"] == STRICTEST_CSP


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_the_map_resource_declares_the_strictest_csp_where_a_host_lists_and_reads_it(live_asgi, key, mode):
    """Every domain list present and empty: a host that fills in defaults for what is missing has none to fill
    in, so the view may fetch, load, frame and base nothing beyond its own document."""

    async def go():
        async with mcp_client(live_asgi.url, key, mode=mode) as client:
            listed = {resource.uri: resource for resource in (await client.list_resources()).resources}
            return listed[MAP_URI], (await client.read_resource(MAP_URI)).contents[0]

    listed, read = asyncio.run(go())

    assert listed.meta["ui"]["csp"] == STRICTEST_CSP
    assert read.meta["ui"]["csp"] == STRICTEST_CSP


def test_the_committed_bundle_is_what_the_build_makes_from_the_sources():
    assert OUTPUT.read_text(encoding="utf-8") == built(), "run `make view` and commit hydrata_mcp/ui/view/dist"


def test_the_bundle_loads_nothing_from_elsewhere():
    page = OUTPUT.read_text(encoding="utf-8")

    for fetch in ("<script src", "<link ", "@import", "url(http", "url(//", "url(images/", "sourceMappingURL"):
        assert fetch not in page, fetch
