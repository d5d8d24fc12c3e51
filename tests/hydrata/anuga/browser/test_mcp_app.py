"""The MCP App (ui://hydrata/map) in a real browser: a small host page of our own loads the resource in a
sandboxed iframe, speaks the host side of the protocol, hands it a real get_run_results result of the shared
small_test run, and relays the view's tools/call to /mcp/ with the engineer's key.

Also here, because they need a complete run: the app-only tools keep to the caller's scope and stay small."""

import asyncio
import io
import json
from pathlib import Path

import numpy as np
from django.contrib.auth import get_user_model
from PIL import Image

from hydrata_mcp.ui import MAP_URI
from tests.browser import ARTIFACTS, off_the_browser_thread
from tests.factories import make_grant, make_user
from tests.mcp_client import call, mcp_client

HOST_ORIGIN = "https://host.test"
HOST_PAGE = Path(__file__).with_name("mcp_app_host.html")
WET_FRACTION = 0.01  # of the view's map pixels that the depth overlay must change
RESULT_BUDGET = 100_000
SIGNATURES = ("X-Amz-Signature", "X-Amz-Security-Token", "X-Hydrata-Signature")


def map_resource(site) -> tuple[str, str]:
    async def go():
        async with mcp_client(site.url, site.key) as client:
            content = (await client.read_resource(MAP_URI)).contents[0]
            return content.mime_type, content.text

    return off_the_browser_thread(lambda: asyncio.run(go()))


def tool_result(url: str, key: str, tool: str, arguments: dict) -> dict:
    """A tool's CallToolResult as the host hands it on: JSON, camelCase keys."""
    result = off_the_browser_thread(call, url, key, tool, arguments)
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def open_in_host(tab, site, tool_input: dict, result: dict):
    mime_type, html = map_resource(site)
    assert mime_type == "text/html;profile=mcp-app"
    tab.page.route(f"{HOST_ORIGIN}/**", lambda route: route.fulfill(
        status=200, content_type="text/html", body=HOST_PAGE.read_text(encoding="utf-8")))
    tab.page.expose_function("relayToolCall",
                             lambda name, arguments: tool_result(site.url, site.key, name, arguments))
    tab.page.goto(f"{HOST_ORIGIN}/")
    tab.page.evaluate("([html, input, result]) => startApp(html, input, result)", [html, tool_input, result])
    return tab.page.frame_locator("#app")


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def host_state(tab) -> dict:
    return tab.page.evaluate("() => window.host")


def test_the_view_draws_a_runs_depth_overlay_with_a_legend_in_metres_through_the_host(tab, site):
    result = tool_result(site.url, site.key, "get_run_results", {"run_id": site.run_id})
    app = open_in_host(tab, site, {"run_id": site.run_id}, result)

    app.locator('#map[data-overlay="drawn"]').wait_for(timeout=60_000)
    app.locator('#map[data-mesh="outline"]').wait_for(timeout=30_000)
    tab.page.wait_for_timeout(300)  # the last size change reaches the host and the frame grows
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(ARTIFACTS / "mcp-app-run-results.png"))
    with_depth = pixels(app.locator("#map").screenshot())
    app.locator("img.depth-overlay").evaluate("image => { image.style.visibility = 'hidden'; }")
    without_depth = pixels(app.locator("#map").screenshot())
    legend = app.locator("#legend").inner_text()
    app.locator("#open-map").click()
    tab.page.wait_for_function("() => window.host.links.length > 0")
    host = host_state(tab)

    changed = np.abs(with_depth - without_depth).sum(axis=2) > 30
    assert changed.mean() > WET_FRACTION, changed.mean()
    assert "Maximum depth (m)" in legend
    assert {"get_map_depth_overlay", "get_map_scenario_layers"} <= set(host["calls"])
    assert host["received"][0] == "ui/initialize" and "ui/notifications/initialized" in host["received"]
    assert host["sizes"] and host["sizes"][-1]["height"] > 300
    assert host["links"][0].startswith(f"{site.url}/catalogue/#/map/{site.base_map}?panel=run")
    assert "Peak depth" in app.locator("#facts").inner_text()
    assert [url for url in tab.requests if not url.startswith((f"{HOST_ORIGIN}/", "data:", "about:"))] == []
    assert tab.console_errors == []


def _size_and_signatures(result) -> int:
    dumped = json.dumps(result.model_dump(mode="json", by_alias=True))
    assert not any(signature in dumped for signature in SIGNATURES)
    assert '"resource_link"' not in dumped
    return len(dumped)


def test_a_read_key_reads_the_app_only_tools_and_their_results_stay_small(site):
    def read_key():
        return make_grant(get_user_model().objects.get(username=site.username), level="read", name="app view")[1]

    key = off_the_browser_thread(read_key)
    overlay = off_the_browser_thread(call, site.url, key, "get_map_depth_overlay", {"run_id": site.run_id})
    layers = off_the_browser_thread(call, site.url, key, "get_map_scenario_layers",
                                    {"project_id": site.project_id, "scenario_id": site.scenario_id})

    assert not overlay.is_error and not layers.is_error
    west, south, east, north = overlay.structured_content["bounds_wgs84"]
    assert west < east and south < north and overlay.structured_content["units"] == "m"
    assert [block.type for block in overlay.content] == ["text", "image"]
    assert {layer["kind"] for layer in layers.structured_content["layers"]} == {"boundary", "rainfall"}
    assert layers.structured_content["mesh_outline"]
    assert _size_and_signatures(overlay) < RESULT_BUDGET
    assert _size_and_signatures(layers) < RESULT_BUDGET


def test_the_app_only_tools_do_not_find_a_run_or_scenario_the_caller_may_not_see(site):
    key = off_the_browser_thread(lambda: make_grant(make_user("app-stranger"), level="launch")[1])

    overlay = off_the_browser_thread(call, site.url, key, "get_map_depth_overlay", {"run_id": site.run_id})
    layers = off_the_browser_thread(call, site.url, key, "get_map_scenario_layers",
                                    {"project_id": site.project_id, "scenario_id": site.scenario_id})

    for refused in (overlay, layers):
        assert refused.is_error
        assert "HTTP 404" in refused.content[0].text
