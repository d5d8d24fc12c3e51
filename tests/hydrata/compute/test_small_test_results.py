"""The results of small_test (meshed at 10 m) at 50 and 100 mm/hr, read as an engineer reads them: hazard against the
maxima, the volume balance, the impact of the heavier storm, and series at points from the stored output."""

import io

import numpy as np
import pytest
import rasterio
from PIL import Image

from hydrata.compute.comparisons.impact import impact, impact_picture
from hydrata.compute.figures.charts import series_chart
from hydrata.compute.outputs.hazard import hazard_class
from hydrata.compute.outputs.results import HAZARD_NODATA, NODATA
from hydrata.compute.outputs.sww_series import point_series
from tests.hydrata.compute.simulation.test_simulate import finish, make_package, start

INSIDE, OUTSIDE = (251100.0, 6271900.0), (260000.0, 6280000.0)


@pytest.fixture(scope="module")
def storms(tmp_path_factory):
    base = tmp_path_factory.mktemp("storms")
    processes = {
        rain: start(make_package(base / f"package-{rain}", rain=str(rain)), base / f"out-{rain}") for rain in (50, 100)
    }
    for process in processes.values():
        assert finish(process) == 0, process.stderr_text
    return {rain: base / f"out-{rain}" for rain in processes}


def read(path):
    with rasterio.open(path) as raster:
        return raster.read(1)


def test_every_cells_hazard_lies_between_what_its_max_depth_alone_and_its_maxima_together_imply(storms):
    depth, speed = read(storms[100] / "max_depth.tif"), read(storms[100] / "max_speed.tif")
    hazard = read(storms[100] / "max_hazard.tif")
    on_mesh = depth != NODATA

    assert ((hazard == HAZARD_NODATA) == ~on_mesh).all()
    # the rasters are float32: a hair of slack on each side keeps a value on a class limit in its class
    from_depth = hazard_class(depth=depth[on_mesh] * (1 - 1e-6), speed=np.zeros(on_mesh.sum()), film_m=0.01)
    from_maxima = hazard_class(depth=depth[on_mesh] * (1 + 1e-6), speed=speed[on_mesh] * (1 + 1e-6), film_m=0.01)
    classified = hazard[on_mesh]
    assert (classified >= from_depth).all() and (classified <= from_maxima).all()
    assert (classified[depth[on_mesh] < 0.01] == 0).all() and classified.max() >= 1


def test_the_volume_balance_of_both_storms_closes_to_well_under_one_percent(storms):
    import json

    for output in storms.values():
        statistics = json.loads((output / "statistics.json").read_text())
        assert statistics["mass_balance_error_pct"] < 1.0 and statistics["warnings"] == []
        assert statistics["volume_balance"]["came_in_m3"] == pytest.approx(statistics["volume_in_m3"])
        assert statistics["volume_balance"]["boundary_out_m3"] == pytest.approx(statistics["volume_out_m3"])
        assert sum(statistics["hazard_area_m2_by_class"].values()) <= statistics["wet_area_m2"] + 1e-6


def rasters(output):
    return {"max_depth": output / "max_depth.tif", "max_stage": output / "max_stage.tif"}


def test_a_run_compared_with_itself_changes_nothing_anywhere(storms):
    same = impact(run=rasters(storms[50]), other=rasters(storms[50]))

    assert set(np.unique(same.depth_difference)) <= {0.0, NODATA}
    assert set(np.unique(same.stage_difference)) <= {0.0, NODATA}
    assert same.statistics["max_increase_m"] == 0 and same.statistics["max_decrease_m"] == 0
    for key in ("area_wetter_m2", "area_drier_m2", "area_newly_wet_m2", "area_no_longer_wet_m2"):
        assert same.statistics[key] == 0


def test_twice_the_rain_is_wetter_almost_everywhere_it_is_wet(storms):
    heavier = impact(run=rasters(storms[50]), other=rasters(storms[100]))
    difference = heavier.depth_difference
    wet = read(storms[100] / "max_depth.tif") >= 0.01

    assert (difference[wet] > 0).mean() > 0.95
    assert heavier.statistics["area_drier_m2"] == 0 and heavier.statistics["area_no_longer_wet_m2"] == 0
    assert heavier.statistics["max_increase_m"] > 0 and heavier.statistics["area_wetter_m2"] > 0
    with Image.open(io.BytesIO(impact_picture(difference, heavier.profile, title="100 - 50 mm/hr"))) as picture:
        assert picture.format == "PNG" and picture.size[0] > 300


def test_series_at_points_come_from_the_stored_output_and_are_empty_off_the_mesh(storms):
    inside, outside = point_series(storms[100] / "run.sww", [INSIDE, OUTSIDE])

    assert inside.t[0] == 0.0 and inside.t[-1] == 300.0
    assert len(inside.stage) == len(inside.depth) == len(inside.speed) == len(inside.t)
    assert min(inside.depth) >= 0 and inside.depth[0] == 0.0 and max(inside.depth) > 0
    assert 970 < inside.stage[-1] < 1000
    assert (outside.stage, outside.depth, outside.speed) == (None, None, None)
    chart = series_chart([{"name": "here", "kind": "point", "t": inside.t, "depth": inside.depth}], title="run 1")
    with Image.open(io.BytesIO(chart)) as picture:
        assert picture.format == "PNG"
