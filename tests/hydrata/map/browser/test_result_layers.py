"""The Run panel's result layers in a real browser: the map's layer control and the panel's switches agree on
which layers are on however they were switched, and the hazard class raster has one swatch per ARR class, in the
colours its tiles are drawn in."""

import io

import numpy as np
from PIL import Image

from hydrata_contract.hazard import HazardClass
from hydrata_contract.layers import ResultLayer
from tests.browser import wait_for_panel
from tests.hydrata.map.browser.test_map_panels import assert_clean, open_link

HAZARD = "result-max_hazard"


def switches(tab) -> dict[str, dict[str, bool]]:
    """Each result layer's title, and whether the layer control and the panel each say it is on."""
    control = tab.page.eval_on_selector_all(
        ".leaflet-control-layers-overlays label",
        "labels => labels.map(l => [l.textContent.trim(), l.querySelector('input').checked])",
    )
    panel = tab.page.eval_on_selector_all(
        ".result-layers label.switch",
        "labels => labels.map(l => [l.textContent.trim(), l.querySelector('input').checked])",
    )
    in_control = dict(control)
    found = {}
    for text, checked in panel:
        title = text.rsplit(" (", 1)[0]  # the panel adds the units
        if title in in_control:
            found[title] = {"control": in_control[title], "panel": checked}
    return found


def assert_agree(tab, *, on: set[str]) -> None:
    tab.page.wait_for_timeout(200)
    seen = switches(tab)
    assert len(seen) >= 4, seen  # depth, speed, stage, hazard at least
    assert {title: state["control"] for title, state in seen.items()} == {
        title: state["panel"] for title, state in seen.items()
    }, seen
    assert {title for title, state in seen.items() if state["panel"]} == on, seen


def control_box(tab, title: str):
    return tab.page.locator(".leaflet-control-layers-overlays label", has_text=title).locator("input")


def test_the_layer_control_and_the_run_panel_agree_after_every_way_of_switching_a_result_layer(tab, site):
    open_link(tab, site, site.ui_urls["start_simulation"], "run")
    tab.page.wait_for_selector('#map[data-tiles_max_depth="loaded"]')
    depth, hazard = ResultLayer.MAX_DEPTH.label, ResultLayer.MAX_HAZARD.label
    assert_agree(tab, on={depth})

    control_box(tab, hazard).check()  # the map's own layer control
    assert_agree(tab, on={depth, hazard})
    tab.page.uncheck("#toggle-max_depth")  # the panel's switch
    assert_agree(tab, on={hazard})
    control_box(tab, hazard).uncheck()
    assert_agree(tab, on=set())
    tab.page.check("#toggle-max_hazard")
    assert_agree(tab, on={hazard})
    tab.page.click("#panel-tabs a:has-text('Terrain')")  # another panel, then back: the run's first layer again
    wait_for_panel(tab, "terrain")
    tab.page.go_back()
    wait_for_panel(tab, "run")
    tab.page.wait_for_selector("#toggle-max_depth")
    assert_agree(tab, on={depth})
    assert_clean(tab)


def test_the_hazard_legend_is_one_swatch_per_arr_class_in_the_colours_of_the_hazard_tiles(tab, site):
    open_link(tab, site, site.ui_urls["start_simulation"], "run")
    tab.page.uncheck("#toggle-max_depth")
    tab.page.check("#toggle-max_hazard")
    tab.page.wait_for_selector('#map[data-tiles_max_hazard="loaded"]')
    legend = tab.page.locator(f'#map-legend [data-layer="{HAZARD}"]')
    legend.locator("li").nth(5).wait_for()
    tab.screenshot("map-run-hazard-legend")

    labels = legend.locator(".legend-class").all_text_contents()
    colours = legend.locator(".legend-swatch").evaluate_all(
        "swatches => swatches.map(s => getComputedStyle(s).backgroundColor)"
    )
    assert labels == [item.label for item in HazardClass]
    assert colours == [f"rgb({int(c[1:3], 16)}, {int(c[3:5], 16)}, {int(c[5:7], 16)})" for c in _colours()]
    assert legend.locator(".legend-ramp").count() == 0  # no continuous ramp labelled 0 / 1.2 / 2
    tiles = [r for r in tab.responses_to(r"/tiles/max_hazard/\d+/\d+/\d+\.png") if r.status == 200]
    drawn = set()
    for response in tiles:
        image = np.asarray(Image.open(io.BytesIO(response.body())).convert("RGBA"))
        drawn |= {"#" + "".join(f"{int(v):02x}" for v in pixel[:3]) for pixel in image[image[..., 3] == 255]}
    assert drawn and drawn <= set(_colours()), drawn  # every drawn cell is in a class's swatch colour
    assert_clean(tab)


def _colours() -> list[str]:
    return [item.colour for item in HazardClass]
