"""The flood map inside the conversation: an MCP App (the `io.modelcontextprotocol/ui` extension).

Four model tools declare the one UI resource, `ui://hydrata/map`; app-only tools feed it its data. This module
holds only the names both the registry and the app's modules need, so importing it pulls in nothing.
"""

from typing import Any

MAP_URI = "ui://hydrata/map"
SHOWN_IN_THE_MAP = frozenset({"get_scenario", "get_run", "get_run_results", "get_comparison"})


def ui_meta(*, name: str, app_only: bool) -> dict[str, Any] | None:
    """The `_meta` that binds a tool to the map: app-only tools are for the view, never the model."""
    if app_only:
        return {"ui": {"resourceUri": MAP_URI, "visibility": ["app"]}}
    if name in SHOWN_IN_THE_MAP:
        # The flat key is what hosts built before the stable spec read; the nested one is the spec's.
        return {"ui": {"resourceUri": MAP_URI, "visibility": ["model", "app"]}, "ui/resourceUri": MAP_URI}
    return None


def is_app_only(meta: dict[str, Any] | None) -> bool:
    visibility = ((meta or {}).get("ui") or {}).get("visibility")
    return isinstance(visibility, list) and "model" not in visibility
