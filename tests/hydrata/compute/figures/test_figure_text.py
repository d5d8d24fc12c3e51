"""Every string a person or an agent stored is drawn as the text it is, in every figure the platform draws: never
parsed as matplotlib's math (`Storm $x^{$` made a finished run's report answer 500), never hidden (a legend skips a
label that starts with "_"), never grown without bound. One helper opens pyplot for every figure, and a guard holds
that no module draws around it."""

import ast
import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from rasterio.transform import Affine

import hydrata
from hydrata.compute.comparisons.impact import impact_picture
from hydrata.compute.figures import figure_text
from hydrata.compute.figures.charts import series_chart
from hydrata.compute.figures.report_figures import ChartSeries, MapLayer, boundary_map, line_chart, result_map
from tests.hydrata.compute.figures.test_report_figures import raster

# What a stored name can hold: matplotlib math that does not parse, math that does (and would change the text), TeX
# commands, a legend's hidden-label prefix, control characters, markup, and a name far longer than a figure is wide.
HOSTILE = [
    "Storm $x^{$",
    "$\\frac{1}{0}$ and $x_{",
    "\\usepackage{x} $\\def\\a{\\a}\\a$",
    "_hidden",
    "tab\tnew\nline\x00nul\x1b[31m",
    "<b>bold</b> & 'quoted'",
    "W" * 5000,
]


def is_png(data: bytes) -> bool:
    image = Image.open(io.BytesIO(data))
    return image.format == "PNG" and image.size[0] < 4000 and image.size[1] < 4000


def test_a_stored_name_is_drawn_as_it_reads_within_bounds():
    """First: a label left unbounded would make the charts below gigapixels."""
    assert figure_text.plain("Storm $x^{$") == "Storm $x^{$"
    assert not figure_text.plain("_hidden").startswith("_")
    assert figure_text.plain("_hidden").strip() == "_hidden"
    assert figure_text.plain("a\x00b\nc\x1b") == "a b c"
    long = figure_text.plain("W" * 5000)
    assert len(long) == figure_text.LABEL_CHARACTERS and long.endswith("…")


@pytest.mark.parametrize("name", HOSTILE)
def test_every_chart_draws_a_hostile_series_name_and_title_as_text(name):
    series = [
        ChartSeries(name=name, t=[0.0, 60.0, 120.0], values=[0.0, 1.0, 0.5]),
        ChartSeries(name=name, t=[0.0, 60.0, 120.0], values=[0.0, 2.0, 1.0], bars=True),
    ]

    assert is_png(line_chart(series=series, title=name, x_label=name, y_label=name))
    assert is_png(
        series_chart(
            [
                {"name": name, "kind": "gauge", "t": [0, 60], "depth": [0.0, 1.0]},
                {"name": name, "kind": "flow_line", "t": [0, 60], "discharge": [0.0, 2.0]},
            ],
            title=f"Run 1: {name}",
        )
    )


@pytest.mark.parametrize("name", HOSTILE)
def test_every_map_draws_hostile_tags_regions_titles_and_units_as_text(tmp_path, name):
    ground = raster(tmp_path / "dem.tif", np.full((20, 20), 5.0), 10.0)
    depth = raster(tmp_path / "depth.tif", np.full((20, 20), 0.5), 10.0)
    west, north = 251000.0, 6272000.0
    ring = [(west + 20, north - 20), (west + 180, north - 20), (west + 180, north - 180), (west + 20, north - 180)]
    segments = [(name, ring[i], ring[(i + 1) % 4]) for i in range(4)]

    assert is_png(boundary_map(dem=ground, segments=segments, regions=[(name, [*ring, ring[0]])], crs=name))
    assert is_png(result_map(raster=depth, dem=ground, layer=MapLayer(title=name, units=name), crs=name))
    assert is_png(
        result_map(raster=depth, dem=ground, layer=MapLayer(title=name, units=name, classes=[(1, name)]), crs=name)
    )
    profile = {"transform": Affine(10.0, 0, west, 0, -10.0, north), "width": 20, "height": 20}
    assert is_png(impact_picture(np.full((20, 20), 0.1, dtype=np.float32), profile, title=name))


def test_no_module_opens_matplotlib_but_through_the_one_helper():
    """pyplot, and the text parsing setting with it, come from figure_text.pyplot() alone."""
    root = Path(hydrata.__file__).parent
    opened = []
    for path in root.rglob("*.py"):
        if path == root / "compute" / "figures" / "figure_text.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [f"{node.module}.{alias.name}" for alias in node.names]
            if any(name == "matplotlib.pyplot" or name == "matplotlib" for name in names):
                opened.append(str(path.relative_to(root)))
    assert opened == []
