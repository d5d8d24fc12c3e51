"""The report's maps: a fixed size whatever the raster's, over the hillshade of the DEM."""

import io
from pathlib import Path

import numpy as np
import rasterio
from PIL import Image
from rasterio.transform import from_origin

from hydrata.compute.report_figures import MAP_PIXELS, MapLayer, bounded_shape, result_map

CRS = "EPSG:28356"


def raster(path: Path, values: np.ndarray, cell: float) -> Path:
    profile = {
        "driver": "GTiff",
        "width": values.shape[1],
        "height": values.shape[0],
        "count": 1,
        "dtype": "float32",
        "crs": CRS,
        "transform": from_origin(251000.0, 6272000.0, cell, cell),
        "nodata": -9999.0,
    }
    with rasterio.open(path, "w", **profile) as destination:
        destination.write(values.astype("float32"), 1)
    return path


def drawn(folder: Path, *, width: int, height: int) -> tuple[int, int]:
    """A depth map of a raster of this many cells over 200 m x 160 m, and its picture's size."""
    rows, columns = np.mgrid[0:height, 0:width]
    depth = np.where(columns < width // 2, rows / height, 0.0)
    ground = 10.0 + columns / width + rows / height
    png = result_map(
        raster=raster(folder / f"depth-{width}.tif", depth, 200.0 / width),
        dem=raster(folder / f"dem-{width}.tif", ground, 200.0 / width),
        layer=MapLayer(title="Peak depth", units="m"),
        crs=CRS,
    )
    return Image.open(io.BytesIO(png)).size


def test_a_raster_is_read_at_most_the_maps_size_whatever_its_own(tmp_path):
    small = drawn(tmp_path, width=100, height=80)
    large = drawn(tmp_path, width=3000, height=2400)

    assert bounded_shape(3000, 2400) == (MAP_PIXELS * 4 // 5, MAP_PIXELS)
    assert bounded_shape(100, 80) == (80, 100)
    assert small == large  # the picture's size is the figure's, not the raster's


def test_a_hazard_map_has_one_swatch_per_class_and_draws_each_class_in_its_own_colour(tmp_path):
    classes = np.repeat(np.arange(7, dtype=float)[None, :], 6, axis=0).repeat(10, axis=1)
    labels = [(number, f"H{number}") for number in range(1, 7)]

    png = result_map(
        raster=raster(tmp_path / "hazard.tif", classes, 2.0),
        dem=raster(tmp_path / "dem.tif", np.full(classes.shape, 5.0), 2.0),
        layer=MapLayer(title="Peak hazard", units="class", classes=labels),
        crs=CRS,
    )

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).reshape(-1, 3)
    colours = {tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in ("#e0f3f8", "#fee08b", "#f46d43", "#7f0000")}
    assert colours <= {tuple(pixel) for pixel in pixels}
