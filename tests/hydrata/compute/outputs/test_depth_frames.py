"""Depth at the saved times of a real small_test run (300 s, a frame every 10 s): every frame kept under the cap,
an evenly spaced subset over it, each raster the .sww's own depth on the DEM's grid."""

import json

import netCDF4
import numpy as np
import pytest
import rasterio

from hydrata.compute.outputs.depth_frames import kept_frames, write_depth_frames
from hydrata.compute.outputs.results import NODATA
from hydrata.compute.outputs.sww_series import point_series
from hydrata.compute.scenario.package import dem_grid
from hydrata_contract.layers import DEPTH_FRAMES_INDEX, depth_frame_filename
from tests.hydrata.compute.simulation.test_simulate import finish, make_package, start


@pytest.fixture(scope="module")
def run_output(tmp_path_factory):
    base = tmp_path_factory.mktemp("depth-frames")
    process = start(make_package(base / "package"), base / "out", "--depth-frames", "48")
    assert finish(process) == 0, process.stderr_text
    return base / "out"


def sww_times(output) -> list[float]:
    with netCDF4.Dataset(output / "run.sww") as sww:
        return [round(float(t), 3) for t in sww["time"][:]]


def deepest_cell(path):
    """The centre of the raster's deepest cell and its depth."""
    with rasterio.open(path) as raster:
        values = raster.read(1)
        row, col = np.unravel_index(np.argmax(np.where(values == NODATA, -1, values)), values.shape)
        return raster.xy(row, col), float(values[row, col])


def test_under_the_cap_the_run_keeps_the_depth_at_every_saved_time(run_output):
    index = json.loads((run_output / DEPTH_FRAMES_INDEX).read_text())

    assert index["saved"] == index["kept"] == len(sww_times(run_output)) == 31
    assert index["times"] == sww_times(run_output)
    assert all((run_output / depth_frame_filename(n)).exists() for n in range(index["kept"]))
    assert not (run_output / depth_frame_filename(index["kept"])).exists()


def test_each_frame_holds_the_sww_depth_of_the_triangle_under_the_cell(run_output):
    last = len(sww_times(run_output)) - 1
    centre, value = deepest_cell(run_output / depth_frame_filename(last))

    (series,) = point_series(run_output / "run.sww", [centre])

    assert series.depth is not None and series.depth[-1] > 0.01  # wet at the end
    assert value == pytest.approx(series.depth[-1], abs=1e-3)  # float32 raster, depth rounded to 0.1 mm


def test_no_frame_is_deeper_anywhere_than_the_maximum_depth_raster(run_output):
    with rasterio.open(run_output / "max_depth.tif") as raster:
        peak = raster.read(1)
    on_mesh = peak != NODATA
    deepest = np.zeros_like(peak)
    for number in range(len(sww_times(run_output))):
        with rasterio.open(run_output / depth_frame_filename(number)) as raster:
            deepest = np.maximum(deepest, raster.read(1))

    assert (deepest[on_mesh] <= peak[on_mesh] + 1e-3).all()  # maxima are tracked every step, frames only saved
    assert deepest[on_mesh].max() > 0.01


def test_over_the_cap_an_evenly_spaced_subset_with_the_first_and_last_time_is_kept(run_output, tmp_path):
    grid = dem_grid(run_output.parent / "package" / "inputs" / "dem.tif")

    index = write_depth_frames(sww=run_output / "run.sww", grid=grid, cap=4, path_of=lambda name: tmp_path / name)

    assert index == {"times": [0.0, 100.0, 200.0, 300.0], "saved": 31, "kept": 4}
    assert json.loads((tmp_path / DEPTH_FRAMES_INDEX).read_text()) == index
    assert sorted(path.name for path in tmp_path.glob("depth_frame_*.tif")) == [
        depth_frame_filename(n) for n in range(4)
    ]


@pytest.mark.parametrize(
    ("saved", "cap", "kept"),
    [(5, 48, [0, 1, 2, 3, 4]), (5, 5, [0, 1, 2, 3, 4]), (31, 4, [0, 10, 20, 30]), (31, 1, [30]), (31, 0, [])],
)
def test_the_frames_kept_are_all_of_them_up_to_the_cap_and_evenly_spaced_beyond(saved, cap, kept):
    assert kept_frames(saved, cap) == kept
