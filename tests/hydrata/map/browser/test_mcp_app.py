"""The MCP App (ui://hydrata/map) in a real browser: a small host page of our own loads the resource in a
sandboxed iframe, speaks the host side of the protocol, hands it a real get_run_results result of the shared
small_test run, and relays the view's tools/call to /mcp/ with the engineer's key.

Also here, because they need a complete run: the app-only tools keep to the caller's scope and stay small."""

import asyncio
import io
import json
from pathlib import Path

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from PIL import Image

from hydrata.observations.models import Observation
from hydrata_mcp.ui import MAP_URI
from tests.browser import ARTIFACTS, off_the_browser_thread
from tests.factories import make_grant, make_user
from tests.mcp_client import call, mcp_client

HOST_ORIGIN = "https://host.test"
HOST_PAGE = Path(__file__).with_name("mcp_app_host.html")
WET_FRACTION = 0.01  # of the view's map pixels that the depth overlay must change
RESULT_BUDGET = 100_000
SIGNATURES = ("X-Amz-Signature", "X-Amz-Security-Token", "X-Hydrata-Signature")


def map_resource(site) -> tuple[str, str, dict]:
    async def go():
        async with mcp_client(site.url, site.key) as client:
            content = (await client.read_resource(MAP_URI)).contents[0]
            return content.mime_type, content.text, content.meta["ui"]["csp"]

    return off_the_browser_thread(lambda: asyncio.run(go()))


def tool_result(url: str, key: str, tool: str, arguments: dict) -> dict:
    """A tool's CallToolResult as the host hands it on: JSON, camelCase keys."""
    result = off_the_browser_thread(call, url, key, tool, arguments)
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def open_in_host(tab, site, tool: str, arguments: dict):
    """The tool called as the model would, its result handed to the view in the host page; the view's frame."""
    result = tool_result(site.url, site.key, tool, arguments)
    assert not result.get("isError"), result
    mime_type, html, csp = map_resource(site)
    assert mime_type == "text/html;profile=mcp-app"
    tab.page.route(
        f"{HOST_ORIGIN}/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body=HOST_PAGE.read_text(encoding="utf-8")),
    )
    tab.page.expose_function("relayToolCall", lambda name, arguments: tool_result(site.url, site.key, name, arguments))
    tab.page.goto(f"{HOST_ORIGIN}/")
    tab.page.evaluate(
        "([html, input, result, csp]) => startApp(html, input, result, csp)", [html, arguments, result, csp]
    )
    return tab.page.frame_locator("#app")


def assert_self_contained(tab):
    assert [url for url in tab.requests if not url.startswith((f"{HOST_ORIGIN}/", "data:", "about:"))] == []
    assert tab.console_errors == []


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def host_state(tab) -> dict:
    return tab.page.evaluate("() => window.host")


def test_the_view_draws_a_runs_depth_overlay_with_a_legend_in_metres_through_the_host(tab, site):
    app = open_in_host(tab, site, "get_run_results", {"run_id": site.run_id})

    app.locator('#map[data-overlay="drawn"]').wait_for(timeout=60_000)
    app.locator('#map[data-mesh="outline"]').wait_for(timeout=30_000)
    tab.page.wait_for_timeout(300)  # the last size change reaches the host and the frame grows
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.page.locator("#app").screenshot(path=str(ARTIFACTS / "mcp-app-run-results.png"))
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
    assert host["sizes"] and 300 < host["sizes"][-1]["height"] < 480  # the content's height, not the frame's
    assert host["links"][0].startswith(f"{site.url}/catalogue/#/map/{site.base_map}?panel=run")
    assert "Peak depth" in app.locator("#facts").inner_text()
    # Drawn under the strictest policy the resource's CSP yields (the tab fails on any violation).
    assert "connect-src 'none'" in host["policy"] and "frame-src 'none'" in host["policy"]
    assert_self_contained(tab)


def test_the_view_of_get_run_shows_the_runs_progress_and_then_its_depths(tab, site):
    app = open_in_host(tab, site, "get_run", {"run_id": site.run_id})

    app.locator('#map[data-overlay="drawn"]').wait_for(timeout=60_000)

    assert app.locator("#progress-box").get_attribute("data-status") == "complete"
    assert app.locator("#progress").evaluate("bar => bar.value") == 100
    assert "complete" in app.locator("#progress-text").inner_text()
    assert "Maximum depth (m)" in app.locator("#legend").inner_text()
    assert_self_contained(tab)


def test_the_view_of_get_scenario_draws_its_layers_and_mesh_outline(tab, site):
    app = open_in_host(tab, site, "get_scenario", {"project_id": site.project_id, "scenario_id": site.scenario_id})

    app.locator('#map[data-mesh="outline"]').wait_for(timeout=30_000)
    tab.page.wait_for_timeout(300)
    tab.page.locator("#app").screenshot(path=str(ARTIFACTS / "mcp-app-scenario.png"))
    app.locator("#open-map").click()
    tab.page.wait_for_function("() => window.host.links.length > 0")

    assert app.locator("path.mesh-outline").count() >= 1
    assert app.locator("path.leaflet-interactive").count() >= 3  # boundary, rainfall, outline
    assert "triangles" in app.locator("#facts").inner_text()
    assert host_state(tab)["links"][0].endswith(f"?panel=scenario&scenario={site.scenario_id}")
    assert_self_contained(tab)


def observed_comparison(site) -> int:
    """A flood event with three depth observations across the model, compared with the run: its id."""
    west, south, east, north = off_the_browser_thread(
        call,
        site.url,
        site.key,
        "get_map_scenario_layers",
        {"project_id": site.project_id, "scenario_id": site.scenario_id},
    ).structured_content["bbox_wgs84"]
    event = off_the_browser_thread(
        call,
        site.url,
        site.key,
        "create_flood_event",
        {"project_id": site.project_id, "name": "App test flood", "started_at": "2024-01-01T00:00:00Z"},
    )
    event_id = event.structured_content["id"]
    for share, depth in ((0.25, 0.05), (0.5, 0.2), (0.75, 0.4)):
        created = off_the_browser_thread(
            call,
            site.url,
            site.key,
            "create_observation",
            {
                "project_id": site.project_id,
                "event_id": event_id,
                "x": west + share * (east - west),
                "y": south + share * (north - south),
                "crs": "EPSG:4326",
                "value_m": depth,
                "quantity": "peak_depth",
            },
        )
        assert not created.is_error, created.content[0].text
    compared = off_the_browser_thread(
        call, site.url, site.key, "compare_run_with_observations", {"run_id": site.run_id, "event_id": event_id}
    )
    assert not compared.is_error, compared.content[0].text
    return compared.structured_content["id"]


def test_the_view_of_get_comparison_marks_each_observation_by_its_error(tab, site):
    comparison_id = observed_comparison(site)
    app = open_in_host(tab, site, "get_comparison", {"comparison_id": comparison_id})

    app.locator('#map[data-points="3"]').wait_for(timeout=30_000)
    app.locator('#map[data-overlay="drawn"]').wait_for(timeout=60_000)
    tab.page.wait_for_timeout(300)
    tab.page.locator("#app").screenshot(path=str(ARTIFACTS / "mcp-app-comparison.png"))

    assert app.locator("path.observation").count() == 3
    facts = app.locator("#facts").inner_text()
    assert "Compared" in facts and "RMSE" in facts
    assert "get_map_comparison_points" in host_state(tab)["calls"]
    assert_self_contained(tab)


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
    layers = off_the_browser_thread(
        call, site.url, key, "get_map_scenario_layers", {"project_id": site.project_id, "scenario_id": site.scenario_id}
    )

    points = off_the_browser_thread(
        call, site.url, key, "get_map_comparison_points", {"comparison_id": observed_comparison(site)}
    )

    assert not overlay.is_error and not layers.is_error and not points.is_error
    west, south, east, north = overlay.structured_content["bounds_wgs84"]
    assert west < east and south < north and overlay.structured_content["units"] == "m"
    assert [block.type for block in overlay.content] == ["text", "image"]
    assert {layer["kind"] for layer in layers.structured_content["layers"]} == {"boundary", "rainfall"}
    assert layers.structured_content["mesh_outline"]
    assert _size_and_signatures(overlay) < RESULT_BUDGET
    assert _size_and_signatures(layers) < RESULT_BUDGET
    mapped = {point["observation_id"]: (point["lon"], point["lat"]) for point in points.structured_content["points"]}
    given = off_the_browser_thread(
        lambda: {
            observation.pk: (observation.given_x, observation.given_y)
            for observation in Observation.objects.filter(pk__in=mapped)
        }
    )
    assert len(mapped) == 3
    for observation_id, (lon, lat) in mapped.items():  # sent in WGS84, stored in the project CRS, mapped back
        assert (lon, lat) == pytest.approx(given[observation_id], abs=1e-6)
    assert _size_and_signatures(points) < RESULT_BUDGET


def test_the_app_only_tools_do_not_find_a_run_scenario_or_comparison_the_caller_may_not_see(site):
    comparison_id = observed_comparison(site)
    key = off_the_browser_thread(lambda: make_grant(make_user("app-stranger"), level="launch")[1])

    overlay = off_the_browser_thread(call, site.url, key, "get_map_depth_overlay", {"run_id": site.run_id})
    layers = off_the_browser_thread(
        call, site.url, key, "get_map_scenario_layers", {"project_id": site.project_id, "scenario_id": site.scenario_id}
    )

    points = off_the_browser_thread(call, site.url, key, "get_map_comparison_points", {"comparison_id": comparison_id})

    for refused in (overlay, layers, points):
        assert refused.is_error
        assert "HTTP 404" in refused.content[0].text
