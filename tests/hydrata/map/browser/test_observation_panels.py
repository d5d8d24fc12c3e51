"""The Observations and Comparison panels in a real browser, opened by the links the tools hand back: a flood event
with three depth observations across the shared small_test run, compared with that run and ranked, all through
the tools (no new simulation). Every link opens exactly the view its tool's say_to_user promises."""

import re
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from hydrata_contract.links import Panel, relink
from tests.browser import map_data, off_the_browser_thread, sign_in
from tests.hydrata.map.browser.conftest import PASSWORD
from tests.hydrata.map.browser.test_map_panels import assert_clean, assert_tables_fit, open_link
from tests.mcp_client import call

DEPTHS = (0.05, 0.2, 0.4)


@dataclass
class Observed:
    event_id: int
    event_link: str
    list_link: str
    comparison: dict[str, Any]
    ranking: dict[str, Any]


def tool(site, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = off_the_browser_thread(call, site.url, site.key, name, arguments)
    assert not result.is_error, (name, result.content[0].text)
    return result.structured_content


@pytest.fixture(scope="module")
def observed(site) -> Observed:
    west, south, east, north = tool(
        site, "get_map_scenario_layers", {"project_id": site.project_id, "scenario_id": site.scenario_id}
    )["bbox_wgs84"]
    event = tool(
        site,
        "create_flood_event",
        {"project_id": site.project_id, "name": "Panel test flood", "started_at": "2024-01-01T00:00:00Z"},
    )
    for share, depth in zip((0.25, 0.5, 0.75), DEPTHS, strict=True):
        tool(
            site,
            "create_observation",
            {
                "project_id": site.project_id,
                "event_id": event["id"],
                "x": west + share * (east - west),
                "y": south + share * (north - south),
                "crs": "EPSG:4326",
                "value_m": depth,
                "quantity": "peak_depth",
            },
        )
    comparison = tool(site, "compare_run_with_observations", {"run_id": site.run_id, "event_id": event["id"]})
    ranking = tool(
        site,
        "rank_runs_against_observations",
        {"project_id": site.project_id, "event_id": event["id"], "run_ids": [site.run_id]},
    )
    return Observed(
        event_id=event["id"],
        event_link=event["ui_url"],
        list_link=off_the_browser_thread(observations_page_link, site),
        comparison=comparison,
        ranking=ranking,
    )


def observations_page_link(site) -> str:
    """The ui_url of the project's observations page (REST): the Observations panel, no event named."""
    headers = {"Authorization": f"Bearer {site.key}"}
    page = httpx.get(f"{site.url}/api/v2/anuga/projects/{site.project_id}/observations/", headers=headers, timeout=60)
    assert page.status_code == 200, page.text
    return page.json()["ui_url"]


def labels(tab) -> list[str]:
    return tab.page.locator(".leaflet-tooltip.observation-label").all_text_contents()


def shown(value: float) -> str:
    """As the panel writes a figure (dom.number: at most three decimals, no trailing zeros)."""
    return f"{value:,.3f}".rstrip("0").rstrip(".")


def metres(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} m"


def test_the_event_link_shows_its_points_on_the_map_labelled_with_what_was_observed(tab, site, observed):
    assert observed.event_link.endswith(f"?panel=observations&event={observed.event_id}")
    open_link(tab, site, observed.event_link, "observations")
    tab.page.wait_for_function("() => document.querySelectorAll('.observation-label').length === 3")
    tab.screenshot("map-observations")

    assert sorted(labels(tab)) == sorted(f"observed {depth:.2f} m" for depth in DEPTHS)
    panel = tab.page.inner_text("#panel")
    assert "Observations: Panel test flood" in panel
    assert tab.page.locator("#observation-points tbody tr").count() == 3
    assert f"Run #{site.run_id}" in panel  # the compared run, offered to label the points with
    assert map_data(tab)["framed"] == f"observations:{observed.event_id}"
    assert map_data(tab)["points"] == "3"
    assert_tables_fit(tab)
    assert_clean(tab)


def test_with_a_compared_run_each_point_is_labelled_observed_against_modelled(tab, site, observed):
    link = relink(observed.event_link, run=site.run_id)
    open_link(tab, site, link, "observations")
    tab.page.wait_for_function("() => document.querySelectorAll('.observation-label').length === 3")
    tab.screenshot("map-observations-run")

    expected = [
        f"observed {metres(point['observed'])} · modelled {metres(point['modelled'])} · error {metres(point['error'])}"
        for point in observed.comparison["points"]
    ]
    assert sorted(labels(tab)) == sorted(expected)
    assert f"Labelled with run #{site.run_id}" in tab.page.inner_text("#observations-run")
    assert_clean(tab)


def test_the_comparison_link_of_compare_run_with_observations_shows_its_figures_and_the_ranking(tab, site, observed):
    comparison = observed.comparison
    assert comparison["ui_url"] in comparison["say_to_user"]
    open_link(tab, site, comparison["ui_url"], "comparison")
    tab.page.wait_for_function("() => document.querySelectorAll('.observation-label').length === 3")
    tab.page.wait_for_selector('#map[data-tiles_max_depth="loaded"]')  # the run's depth under its points
    tab.screenshot("map-comparison")

    statistics = tab.page.inner_text("#comparison-statistics")
    metrics = comparison["metrics"]
    assert f"{shown(metrics['rmse'])} m" in statistics and f"{shown(metrics['bias'])} m" in statistics
    assert f"{metrics['n']} points on the model" in statistics
    assert f"{metrics['within_tolerance']} points" in statistics
    rows = tab.page.locator("#comparison-ranking tbody tr")
    assert rows.count() == 1
    assert rows.nth(0).get_attribute("aria-current") == "true"
    assert rows.nth(0).inner_text().split("\t")[:2] == ["1", f"#{site.run_id}"]
    assert_tables_fit(tab, tables=2)  # the ranking and the points
    assert_clean(tab)


def test_a_point_labelled_at_the_maps_edge_keeps_its_label_inside_the_map(tab, site, observed):
    open_link(tab, site, relink(observed.event_link, run=site.run_id), "observations")
    tab.page.wait_for_function("() => document.querySelectorAll('.observation-label').length === 3")
    edges = tab.page.locator("#map").bounding_box()
    label_boxes = [label.bounding_box() for label in tab.page.locator(".observation-label").all()]
    first = min(label_boxes, key=lambda box: box["x"])
    # Pan (the map's keys: 80 px a press) until the westernmost point is less than 80 px inside the map's west edge,
    # where its label (wider than 160 px, centred on the point) would run out of the map.
    assert first["width"] > 160, first
    presses = int((first["x"] + first["width"] / 2 - edges["x"]) // 80)
    tab.page.focus("#map")
    for _ in range(presses):
        tab.page.keyboard.press("ArrowRight")
        tab.page.wait_for_timeout(400)
    tab.page.wait_for_timeout(300)
    tab.screenshot("map-observations-label-at-the-edge")

    inside = tab.page.evaluate(
        """() => {
          const map = document.getElementById("map").getBoundingClientRect();
          return Array.from(document.querySelectorAll(".observation-label")).map(label => {
            const box = label.getBoundingClientRect();
            return [label.textContent, box.left >= map.left - 0.5 && box.right <= map.right + 0.5 &&
                    box.top >= map.top - 0.5 && box.bottom <= map.bottom + 0.5];
          });
        }"""
    )
    assert inside and all(fits for _, fits in inside), inside
    assert int(map_data(tab)["labelsMoved"]) >= 1
    assert_clean(tab)


def test_the_ranking_link_opens_the_best_runs_comparison_marked_in_the_ranking(tab, site, observed):
    ranking = observed.ranking
    best = ranking["results"][0]
    assert ranking["ui_url"] in ranking["say_to_user"]
    open_link(tab, site, ranking["ui_url"], "comparison")

    current = tab.page.locator('#comparison-ranking tbody tr[aria-current="true"]')
    assert current.inner_text().split("\t")[:2] == ["1", f"#{best['run']}"]
    assert f"Run #{best['run']}" in tab.page.inner_text("#panel h2")
    assert_clean(tab)


def test_the_list_link_offers_the_events_and_opens_the_one_chosen(tab, site, observed):
    open_link(tab, site, observed.list_link, "observations")
    tab.page.click("#panel a:has-text('Panel test flood')")
    tab.page.wait_for_function("() => document.querySelectorAll('.observation-label').length === 3")

    assert re.search(rf"panel=observations&event={observed.event_id}$", tab.page.url)
    assert_clean(tab)


def test_no_panel_says_not_available(tab, site, observed):
    query = f"scenario={site.scenario_id}&run={site.run_id}&event={observed.event_id}"
    opened = False
    for panel in Panel:
        url = f"{site.url}/catalogue/#/map/{site.base_map}?panel={panel.value}&{query}"
        if not opened:
            sign_in(tab, url, username=site.username, password=PASSWORD)
            opened = True
        else:
            tab.page.eval_on_selector("#panel", "panel => { panel.dataset.state = 'left'; }")
            tab.page.goto(url)
        settled = ":not([data-state=loading]):not([data-state=left])"
        tab.page.wait_for_selector(f'#panel[data-panel="{_tab_name(panel)}"]{settled}', timeout=30_000)
        text = tab.page.inner_text("#map-view").lower()
        assert "not available" not in text and "later release" not in text, panel


def _tab_name(panel: Panel) -> str:
    return "hydrology" if panel is Panel.TIME_SERIES else panel.value
