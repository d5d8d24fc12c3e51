"""The run over time in a real browser, on the folder's real small_test run: the time slider switches the depth
tiles to the saved time it names (by keyboard), and a click on the map charts the depth and stage there with the
numbers of the REST answer."""

import httpx
import numpy as np

from tests.browser import map_pixels, response_is_png, sign_in, wait_for_panel
from tests.hydrata.map.browser.conftest import PASSWORD
from tests.model_setup import SHARED_TLS

FRAME_TILE = r"/runs/\d+/tiles/depth/\d+/\d+/\d+\.png\?frame={}$"


def rest(site) -> httpx.Client:
    bearer = {"Authorization": f"Bearer {site.key}"}
    return httpx.Client(base_url=site.url, headers=bearer, timeout=60, verify=SHARED_TLS)


def open_run(tab, site):
    sign_in(tab, site.ui_urls["start_simulation"], username=site.username, password=PASSWORD)
    wait_for_panel(tab, "run")


def wait_for_frame_tiles(tab, frame: int) -> list:
    tab.page.wait_for_function(
        "frame => document.querySelector('#map').dataset.frame === String(frame)"
        " && document.querySelector('#map').dataset.tiles_depth === 'loaded'",
        arg=frame,
    )
    for _ in range(50):  # Playwright hands the responses to Python a moment after the page has them
        if tab.responses_to(FRAME_TILE.format(frame)):
            break
        tab.page.wait_for_timeout(100)
    return tab.responses_to(FRAME_TILE.format(frame))


def test_moving_the_time_slider_by_keyboard_switches_the_depth_tiles_to_that_saved_time(tab, site):
    with rest(site) as http:
        frames = http.get(f"/api/v2/anuga/runs/{site.run_id}/tiles/").json()["frames"]
    last = len(frames["times"]) - 1
    open_run(tab, site)
    slider = tab.page.locator("#run-frame-slider")
    slider.scroll_into_view_if_needed()

    slider.focus()
    tab.page.keyboard.press("Home")
    first_tiles = wait_for_frame_tiles(tab, 0)
    at_start = map_pixels(tab)
    tab.page.keyboard.press("End")
    last_tiles = wait_for_frame_tiles(tab, last)
    tab.page.wait_for_timeout(300)
    at_end = map_pixels(tab)
    tab.screenshot("map-run-time-slider")

    assert frames["saved"] > last + 1 and "evenly spaced" in frames["note"]  # 900 s run: over the cap of 48
    assert first_tiles and last_tiles and all(response_is_png(r) for r in first_tiles + last_tiles)
    assert tab.page.inner_text("#run-frame-time").startswith("t = 15 min")  # the last saved time, 900 s
    assert slider.get_attribute("aria-valuetext") == tab.page.inner_text("#run-frame-time")
    assert tab.page.is_checked("#toggle-depth-at-time") and not tab.page.is_checked("#toggle-max_depth")
    changed = np.abs(at_end - at_start).sum(axis=2) > 30
    assert changed.mean() > 0.01, changed.mean()  # dry at the start, wet at the end
    assert frames["note"] in tab.page.inner_text("#run-frames-note")
    assert tab.console_errors == [] and tab.foreign_requests() == []


def test_a_click_on_the_map_charts_depth_and_stage_there_with_the_rest_answers_numbers(tab, site):
    open_run(tab, site)
    box = tab.page.locator("#map").bounding_box()

    tab.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # framed on the run: in the mesh
    tab.page.wait_for_selector("#run-hydrograph svg")
    figure = tab.page.locator("#run-hydrograph")
    point = {"x": float(figure.get_attribute("data-x")), "y": float(figure.get_attribute("data-y"))}
    figure.scroll_into_view_if_needed()
    tab.page.click("#run-hydrograph summary")
    tab.screenshot("map-run-hydrograph")
    shown = [
        [float(cell) for cell in row]
        for row in tab.page.eval_on_selector_all(
            "#run-hydrograph-values tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
        )
    ]
    with rest(site) as http:
        answer = http.post(
            f"/api/v2/anuga/runs/{site.run_id}/time-series/", json={"points": [point], "crs": "EPSG:4326"}
        ).json()

    (series,) = answer["series"]
    assert shown == [list(row) for row in zip(series["t"], series["depth"], series["stage"], strict=True)]
    assert max(series["depth"]) > 0  # the middle of the model gets wet
    assert tab.page.locator("#run-hydrograph svg").count() == 2  # depth and stage
    assert tab.console_errors == [] and tab.foreign_requests() == []
