"""compare_runs' link in a real browser: it opens the impact map of the two runs (afflux on a diverging ramp centred on
0, with its legend), not the first run's ordinary Run panel. The other run is the shared small_test scenario run for
half as long, so the shared run (more rain fallen) is wetter wherever the two differ."""

import io
import re
import time

import numpy as np
import pytest
from PIL import Image

from tests.hydrata.map.browser.test_map_panels import assert_clean, open_link
from tests.hydrata.map.browser.test_observation_panels import tool


@pytest.fixture(scope="module")
def impact(site) -> dict:
    shorter = tool(
        site,
        "create_scenario",
        {"project_id": site.project_id, "name": "Small test, half as long", "resolution": 10, "duration": 450},
    )
    tool(
        site,
        "build_scenario",
        {"project_id": site.project_id, "scenario_id": shorter["id"], "poll_interval_seconds": 2},
    )
    run = tool(site, "start_simulation", {"scenario_id": shorter["id"]})
    for _ in range(600):
        status = tool(site, "get_run_status", {"run_id": run["id"]})
        if status["status"] in ("complete", "error", "cancelled"):
            break
        time.sleep(0.5)
    assert status["status"] == "complete", status
    return tool(site, "compare_runs", {"run_id": run["id"], "other_run_id": site.run_id})


def rgb(css: str) -> tuple[int, int, int]:
    red, green, blue = (int(value) for value in re.findall(r"\d+", css)[:3])
    return red, green, blue


def test_the_compare_runs_link_opens_the_afflux_map_with_its_diverging_ramp_and_legend(tab, site, impact):
    assert "See the impact map here: " + impact["ui_url"] in impact["say_to_user"]
    run_id, other_id = impact["run"], impact["other_run"]
    open_link(tab, site, impact["ui_url"], "run")
    tab.page.wait_for_selector('#map[data-tiles_impact_depth="loaded"]')
    tab.screenshot("map-impact")

    assert tab.page.inner_text("#impact-heading") == f"Impact of run #{other_id} against run #{run_id}"
    assert tab.page.locator("#run-log, #run-health, #toggle-max_depth").count() == 0  # not the Run panel
    assert tab.page.is_checked("#toggle-impact_depth") and not tab.page.is_checked("#toggle-impact_stage")
    panel = tab.page.inner_text("#panel")
    assert "Area wetter" in panel and "Largest rise in maximum depth" in panel

    legend = tab.page.locator('#map-legend [data-layer="impact-impact_depth"]')
    assert legend.locator(".legend-title").inner_text() == "Change in maximum depth (afflux) (m)"
    low, middle, high = (float(text) for text in legend.locator(".legend-labels span").all_text_contents())
    assert (low, middle) == (-high, 0.0)
    assert high >= round(impact["statistics"]["max_increase_m"], 2) > 0
    gradient = legend.locator(".legend-ramp").evaluate("bar => getComputedStyle(bar).backgroundImage")
    stops = [rgb(found) for found in re.findall(r"rgb\([^)]*\)", gradient)]
    assert len(stops) == 7
    assert stops[0][2] > stops[0][0] and stops[-1][0] > stops[-1][2]  # blue lower, red higher
    assert min(stops[3]) > 200  # white in the middle: no change

    drawn = []
    for response in tab.responses_to(rf"/runs/{run_id}/impact/{other_id}/tiles/impact_depth/\d+/\d+/\d+\.png"):
        assert response.status == 200
        image = np.asarray(Image.open(io.BytesIO(response.body())).convert("RGBA")).astype(int)
        drawn.append(image[image[..., 3] == 255])
    cells = np.concatenate(drawn)
    assert len(cells) > 0
    assert (cells[:, 0] > cells[:, 2]).mean() > 0.9, cells[:20]  # wetter: red, as its legend says
    assert_clean(tab)
