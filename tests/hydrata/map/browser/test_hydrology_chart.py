"""The Hydrology panel's chart in a real browser draws rain as the model applies it (compute/scenario/series_units.py):
a depth in mm per interval over the interval that ENDS at its row, a first row of rain over an interval as long as the
second's ending at it. In a project of its own, so that the shared workflow's model is left as it is."""

import pytest

from hydrata.compute.scenario.series_units import MM_PER_INTERVAL
from tests.hydrata.map.browser.test_map_panels import assert_clean, open_link
from tests.hydrata.map.browser.test_observation_panels import tool

DEPTHS_MM = (4.0, 5.0, 12.0, 8.0, 2.0, 1.0)  # at 0, 10, ... 50 minutes


@pytest.fixture(scope="module")
def per_interval(site) -> dict:
    project = tool(site, "create_project", {"name": "Rain gauge record", "projection": "EPSG:28356"})
    rows = [
        {"timestamp": f"2024-01-01T00:{10 * index:02d}:00Z", "value": depth} for index, depth in enumerate(DEPTHS_MM)
    ]
    return tool(
        site,
        "create_time_series",
        {
            "project_id": project["id"],
            "name": "Gauge depths",
            "series_type": "hyetograph",
            "units": MM_PER_INTERVAL,
            "data": {"rowData": rows},
        },
    )


def test_rain_in_mm_per_interval_is_a_bar_over_the_interval_ending_at_each_row(tab, site, per_interval):
    open_link(tab, site, per_interval["ui_url"], "hydrology")
    chart = tab.page.locator("figure.chart-box svg")
    left = float(chart.locator("line.axis").nth(0).get_attribute("x1"))
    right = float(chart.locator("line.axis").nth(1).get_attribute("x2"))
    bars = chart.locator("rect.bar").evaluate_all(
        "bars => bars.map(b => [+b.dataset.row, +b.getAttribute('x'), +b.getAttribute('width'), "
        "+b.getAttribute('height')])"
    )
    tab.screenshot("map-hydrology-per-interval")

    # The axis runs from 10 minutes before the first row (its interval) to the last row: six intervals of 10 min.
    slot = (right - left) / len(DEPTHS_MM)
    assert [row for row, *_ in bars] == list(range(len(DEPTHS_MM)))
    for row, x, width, _ in bars:
        assert x + width == pytest.approx(left + (row + 1) * slot, abs=0.01)  # ends at its row's time
        assert x == pytest.approx(left + row * slot, abs=0.01)  # from the row before it
    heights = [height for *_, height in bars]
    assert [height / heights[2] for height in heights] == pytest.approx([d / DEPTHS_MM[2] for d in DEPTHS_MM])
    assert_clean(tab)
