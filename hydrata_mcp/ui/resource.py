"""The UI resource `ui://hydrata/map` through the SDK's Apps extension, and the catalog rule for app-only tools."""

from pathlib import Path
from typing import Any

from mcp.server.apps import Apps, ResourceCsp, client_supports_apps
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from hydrata_mcp.ui import MAP_URI, is_app_only

BUNDLE = Path(__file__).resolve().parent / "view" / "dist" / "map.html"


def map_app() -> Apps:
    """The extension that serves the built view: one self-contained HTML document (Leaflet inlined) whose data
    comes through tools/call on the host. So its CSP (`_meta.ui.csp`, which the host enforces on the view's frame)
    names every list and leaves each empty: no origin to connect to or load from, no frame, no other base."""
    apps = Apps()
    apps.add_html_resource(
        MAP_URI,
        BUNDLE.read_text(encoding="utf-8"),
        name="hydrata-map",
        title="Hydrata flood map",
        description="The scenario's layers and mesh, a run's progress and flood depths, a comparison's errors.",
        csp=ResourceCsp(connect_domains=[], resource_domains=[], frame_domains=[], base_uri_domains=[]),
        prefers_border=True,
    )
    return apps


async def app_only_tools_hidden(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """tools/list without the app-only tools, unless the client negotiated MCP Apps: such a host keeps them from
    its model itself (by their visibility) and needs to see them to relay the view's calls."""
    result = await call_next(ctx)
    if ctx.method != "tools/list" or not isinstance(result, dict) or client_supports_apps(ctx):
        return result
    # The chain below has already shaped the result for the wire: a dict, the tools' meta under "_meta".
    return {**result, "tools": [tool for tool in result.get("tools", []) if not is_app_only(tool.get("_meta"))]}
