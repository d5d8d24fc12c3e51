"""The map behind every ui_url, in a real browser: each panel a tool's link names opens framed on its object,
draws from this site only, and logs no error."""

import json

import numpy as np

from hydrata.anuga.models import InputLayer, Terrain
from tests.browser import map_data, map_pixels, off_the_browser_thread, response_is_png, sign_in, wait_for_panel
from tests.factories import make_project, make_user
from tests.hydrata.map.browser.conftest import PASSWORD

WET_FRACTION = 0.01  # of the map's pixels that the depth overlay must change


def open_link(tab, site, url, panel, *, state="ready"):
    sign_in(tab, url, username=site.username, password=PASSWORD)
    wait_for_panel(tab, panel, state=state)


def assert_clean(tab):
    assert tab.foreign_requests() == []
    assert tab.console_errors == []
    body = tab.page.content()
    assert "X-Hydrata-Signature" not in body and "X-Amz-Signature" not in body


def assert_tables_fit(tab, *, tables: int = 1) -> None:
    """No table of the panel is wider than its panel: neither the table nor anything around it up to the panel
    itself is wider than it shows (nothing cut at the right edge, nothing scrolled sideways)."""
    found = tab.page.evaluate(
        """() => {
          const panel = document.getElementById("panel");
          return Array.from(panel.querySelectorAll("table")).map(table => {
            const wider = [];
            for (let node = table; node !== panel.parentElement; node = node.parentElement) {
              if (node.scrollWidth > node.clientWidth) {
                wider.push((node.id || node.className || node.tagName) + ": " + node.scrollWidth + " > " +
                           node.clientWidth);
              }
            }
            return { table: table.id || table.className, wider: wider };
          });
        }"""
    )
    assert len(found) >= tables, found
    assert [table for table in found if table["wider"]] == [], found


def assert_framed_on(tab, label, bbox):
    """The map is fitted to the object: it shows all of it, and not much more."""
    data = map_data(tab)
    assert data["framed"] == label
    west, south, east, north = json.loads(data["bounds"])
    assert west <= bbox[0] and south <= bbox[1] and east >= bbox[2] and north >= bbox[3]
    assert (east - west) < 4 * (bbox[2] - bbox[0]) or (north - south) < 4 * (bbox[3] - bbox[1])


def bbox_of_row(row_id):
    return off_the_browser_thread(lambda: InputLayer.objects.get(pk=row_id).bbox_wgs84)


def test_the_run_link_draws_the_max_depth_overlay_over_wet_cells_with_a_legend_in_metres(tab, site):
    open_link(tab, site, site.ui_urls["start_simulation"], "run")
    tab.page.wait_for_selector('#map[data-tiles_max_depth="loaded"]')
    legend = tab.page.inner_text("#map-legend")
    with_depth = map_pixels(tab)
    tab.screenshot("map-run")

    tab.page.uncheck("#toggle-max_depth")
    tab.page.wait_for_timeout(300)
    without_depth = map_pixels(tab)

    tiles = tab.responses_to(r"/runs/\d+/tiles/max_depth/\d+/\d+/\d+\.png")
    assert tiles and all(response_is_png(response) for response in tiles)
    changed = np.abs(with_depth - without_depth).sum(axis=2) > 30
    assert changed.mean() > WET_FRACTION, changed.mean()  # wet cells are drawn, and go with the overlay
    assert "Maximum depth (m)" in legend
    assert_framed_on(tab, f"run:{site.run_id}", bbox_of_row(site.rows["boundary"]))
    panel = tab.page.inner_text("#panel")
    assert "complete" in panel and "Peak depth" in panel and "Run log" in panel
    assert_tables_fit(tab)  # the model-health tables
    assert tab.page.locator("#depth-bands svg rect.bar").count() == 6  # one bar per depth band
    assert_clean(tab)


def test_the_run_panel_answers_is_the_model_healthy_with_the_evidence(tab, site):
    open_link(tab, site, site.ui_urls["start_simulation"], "run")
    tab.page.wait_for_selector("#run-health")
    tab.page.locator("#run-health-mass-error").scroll_into_view_if_needed()
    tab.screenshot("map-run-health")

    assert tab.page.get_attribute("#run-health", "data-verdict") == "healthy"
    health = tab.page.inner_text("#run-health")
    assert tab.page.inner_text("#run-health-verdict").startswith("Healthy")
    for fact in ("Time step (min / median / max)", "Peak Courant number", "Mass error at the end", "Speed spikes"):
        assert fact in health
    assert tab.page.locator("#run-health-limiting tbody tr").count() >= 1
    assert tab.page.locator("#run-health-spikes").count() == 0  # no spike, no table of them
    chart = tab.page.locator("#run-health-mass-error svg")
    assert chart.locator("line.guide").count() == 2 and chart.locator("path.line").count() == 1  # ±1 %, the error
    assert_clean(tab)


def test_the_terrain_link_shows_the_hillshade_and_the_elevation_ramp_with_its_legend(tab, site):
    open_link(tab, site, site.ui_urls["get_terrain"], "terrain")
    tab.page.wait_for_selector('#map[data-tiles_elevation="loaded"]')
    tab.page.wait_for_selector('#map[data-tiles_hillshade="loaded"]')
    tab.screenshot("map-terrain")

    terrain = off_the_browser_thread(lambda: Terrain.objects.get(pk=site.terrain_id))
    assert_framed_on(tab, f"terrain:{site.terrain_id}", terrain.bbox_wgs84)
    assert "Elevation (m)" in tab.page.inner_text("#map-legend")
    assert "EPSG:28356" in tab.page.inner_text("#panel")
    tiles = tab.responses_to(r"/terrain/\d+/tiles/(hillshade|elevation)/")
    assert tiles and all(response_is_png(response) for response in tiles)
    assert map_pixels(tab).std() > 10  # relief and colour, not a blank map
    assert_clean(tab)


def test_the_inputs_link_frames_the_attached_boundary_with_its_features_and_tags(tab, site):
    open_link(tab, site, site.ui_urls["attach_boundary"], "inputs")
    tab.screenshot("map-inputs")

    assert_framed_on(tab, f"inputs:{site.rows['boundary']}", bbox_of_row(site.rows["boundary"]))
    panel = tab.page.inner_text("#panel")
    assert "Boundary: Boundary 01" in panel and "Features\n4" in panel.replace("\t", "\n")
    assert "Reflective" in panel and "Transmissive" in panel and "External" in panel
    labels = tab.page.locator(".leaflet-tooltip.feature-label").all_inner_texts()
    assert "Transmissive · External" in labels and "Reflective · External" in labels
    assert_clean(tab)


def test_the_time_series_link_plots_the_hyetograph_with_its_units(tab, site):
    open_link(tab, site, site.ui_urls["create_time_series"], "hydrology")
    tab.screenshot("map-hydrology")

    chart = tab.page.locator("figure.chart-box svg")
    # An intensity in mm/hr is linear between rows, as the model applies it: a filled line through the six rows.
    assert chart.locator("rect.bar").count() == 0 and chart.locator("path.area").count() == 1
    assert chart.locator("path.line").get_attribute("d").count("L") == 5
    assert "mm/hr" in chart.text_content() and "hours from 2024-01-01" in chart.text_content()
    assert "Design storm" in tab.page.inner_text("#panel")
    assert map_data(tab)["framed"].startswith("hydrology:")
    assert_clean(tab)


def test_the_built_scenario_link_shows_its_numbers_layers_mesh_and_the_sign_off(tab, site):
    open_link(tab, site, site.ui_urls["build_scenario"], "scenario")
    tab.page.wait_for_selector('#map[data-mesh-view="triangles"]')
    tab.screenshot("map-scenario")

    panel = tab.page.inner_text("#panel")
    for expected in (
        "Scenario: Small test 10 m",
        "10 m",
        "15 min",
        "triangles",
        "USD",
        "Boundary: Boundary 01",
        "Rainfall: Rainfall 01",
        "Sign-off",
        "Not approved for a run yet.",
    ):
        assert expected in panel, expected
    assert tab.page.locator("#approve").is_visible()
    assert_framed_on(tab, f"scenario:{site.scenario_id}", bbox_of_row(site.rows["boundary"]))
    assert_clean(tab)


def test_a_map_or_object_that_does_not_exist_is_worded_not_a_blank_page(tab, site):
    sign_in(tab, f"{site.url}/catalogue/#/map/999999", username=site.username, password=PASSWORD)
    tab.page.wait_for_selector('#map-view[data-state="not-found"]')
    missing_map = tab.page.inner_text("#map-status")

    tab.page.goto(f"{site.url}/catalogue/#/map/{site.base_map}?panel=scenario&scenario=999999")
    wait_for_panel(tab, "scenario", state="not-found")
    missing_scenario = tab.page.inner_text("#panel")
    tab.screenshot("map-not-found")

    assert "This map does not exist, or you cannot see it." in missing_map
    assert "This scenario does not exist, or you cannot see it." in missing_scenario


def test_another_accounts_map_is_not_found_for_this_engineer(tab, site):
    stranger = off_the_browser_thread(lambda: make_project(make_user("stranger"), name="Not yours"))

    sign_in(tab, f"{site.url}/catalogue/#/map/{stranger.base_map_id}", username=site.username, password=PASSWORD)
    tab.page.wait_for_selector('#map-view[data-state="not-found"]')

    assert "does not exist, or you cannot see it" in tab.page.inner_text("#map-status")
    assert "Not yours" not in tab.page.content()


def test_a_signed_out_browser_is_told_to_sign_in_again(tab, site):
    open_link(tab, site, site.ui_urls["get_terrain"], "terrain")
    tab.context.clear_cookies()

    tab.page.click("#panel-tabs a:has-text('Run')")
    wait_for_panel(tab, "run", state="forbidden")

    assert "You are signed out. Sign in again" in tab.page.inner_text("#panel")


def test_a_project_without_terrain_says_so_in_every_panel_it_opens(tab, site):
    from django.contrib.auth import get_user_model

    def empty_project():
        return make_project(get_user_model().objects.get(username=site.username), name="Empty creek")

    project = off_the_browser_thread(empty_project)
    sign_in(
        tab,
        f"{site.url}/catalogue/#/map/{project.base_map_id}?panel=terrain",
        username=site.username,
        password=PASSWORD,
    )
    wait_for_panel(tab, "terrain", state="empty")
    terrain = tab.page.inner_text("#panel")
    tab.page.click("#panel-tabs a:has-text('Scenario')")
    wait_for_panel(tab, "scenario", state="empty")

    assert "no terrain yet" in terrain
    assert "no scenarios yet" in tab.page.inner_text("#panel")
