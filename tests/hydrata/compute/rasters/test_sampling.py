"""Values of rasters at points, by the documented method: the cell containing the point, else None."""

import math

import numpy as np
import pytest
import rasterio
from affine import Affine

from hydrata.compute.rasters import sampling
from hydrata.compute.rasters.sampling import sample_rasters

NODATA = -9999.0
# 4 columns by 3 rows of 10 m cells; the grid's north-west corner is (100, 200)
TRANSFORM = Affine(10.0, 0.0, 100.0, 0.0, -10.0, 200.0)
VALUES = np.array([[0.123456, 1.0, 2.0, 3.0], [10.0, 11.0, NODATA, 13.0], [20.0, 21.0, 22.0, np.nan]], dtype="float32")


def write_raster(path, values=VALUES, nodata=NODATA):
    profile = {
        "driver": "GTiff",
        "width": values.shape[1],
        "height": values.shape[0],
        "count": 1,
        "dtype": "float32",
        "crs": "EPSG:28356",
        "transform": TRANSFORM,
        "nodata": nodata,
    }
    with rasterio.open(path, "w", **profile) as raster:
        raster.write(values, 1)
    return path


def cell_centre(row, col):
    return 100.0 + 10 * col + 5, 200.0 - 10 * row - 5


def test_a_point_takes_the_value_of_the_cell_that_contains_it(tmp_path):
    raster = write_raster(tmp_path / "depth.tif")
    points = [cell_centre(2, 1), (110.0, 190.0), (119.99, 180.01)]  # (110, 190) is the corner of row 1, column 1

    samples = sample_rasters(rasters={"depth": raster}, points=points)

    assert [sample["depth"] for sample in samples] == [21.0, 11.0, 11.0]


def test_a_point_off_the_grid_or_not_finite_is_none(tmp_path):
    raster = write_raster(tmp_path / "depth.tif")
    points = [(99.99, 195.0), (140.0, 195.0), (105.0, 200.01), (105.0, 170.0), (math.nan, 195.0), (math.inf, 0.0)]

    samples = sample_rasters(rasters={"depth": raster}, points=points)

    assert [sample["depth"] for sample in samples] == [None] * len(points)


def test_a_cell_holding_nodata_or_a_value_that_is_not_finite_is_none(tmp_path):
    raster = write_raster(tmp_path / "depth.tif")

    samples = sample_rasters(rasters={"depth": raster}, points=[cell_centre(1, 2), cell_centre(2, 3)])

    assert samples == [{"x": 125.0, "y": 185.0, "depth": None}, {"x": 135.0, "y": 175.0, "depth": None}]


def test_values_are_rounded_to_four_places_unless_told_otherwise(tmp_path):
    raster = write_raster(tmp_path / "depth.tif")
    point = [cell_centre(0, 0)]
    exact = float(np.float32(0.123456))

    assert sample_rasters(rasters={"depth": raster}, points=point)[0]["depth"] == 0.1235
    assert sample_rasters(rasters={"depth": raster}, points=point, decimals=1)[0]["depth"] == 0.1
    assert sample_rasters(rasters={"depth": raster}, points=point, decimals=None)[0]["depth"] == exact


def test_each_raster_is_sampled_under_its_name_for_every_point_in_order(tmp_path):
    depth = write_raster(tmp_path / "depth.tif")
    stage = write_raster(tmp_path / "stage.tif", values=VALUES + 100, nodata=None)
    points = [cell_centre(0, 3), (0.0, 0.0), cell_centre(1, 0)]

    samples = sample_rasters(rasters={"depth": depth, "stage": stage}, points=points)

    assert samples == [
        {"x": 135.0, "y": 195.0, "depth": 3.0, "stage": 103.0},
        {"x": 0.0, "y": 0.0, "depth": None, "stage": None},
        {"x": 105.0, "y": 185.0, "depth": 10.0, "stage": 110.0},
    ]
    assert list(samples[0]) == ["x", "y", "depth", "stage"]


@pytest.mark.parametrize("points", [[], [(0.0, 0.0)]])
def test_with_no_point_on_the_grid_every_point_still_gets_its_row(tmp_path, points):
    raster = write_raster(tmp_path / "depth.tif")

    assert sample_rasters(rasters={"depth": raster}, points=points) == [
        {"x": x, "y": y, "depth": None} for x, y in points
    ]


def test_points_spread_too_wide_for_one_window_are_read_block_by_block_with_the_same_values(tmp_path, monkeypatch):
    raster = write_raster(tmp_path / "depth.tif")
    points = [cell_centre(row, col) for row in range(3) for col in range(4)] + [(0.0, 0.0)]
    in_one_window = sample_rasters(rasters={"depth": raster}, points=points)

    monkeypatch.setattr(sampling, "WINDOW_MAX_CELLS", 1)
    by_block = sample_rasters(rasters={"depth": raster}, points=points)

    assert by_block == in_one_window
    assert [sample["depth"] for sample in by_block] == [
        0.1235,
        1.0,
        2.0,
        3.0,
        10.0,
        11.0,
        None,
        13.0,
        20.0,
        21.0,
        22.0,
        None,
        None,
    ]
