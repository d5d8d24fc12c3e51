"""The impact map of one run against another, and the change in peak depth at each gauge (the numbers of a
mesh-convergence check), on data where each near miss of a formula gives another number: a cell on one mesh
only, cells newly wet and no longer wet, a change under the 1 cm line, non-square cells."""

import numpy as np
import pytest
from affine import Affine
from rasterio.crs import CRS

from hydrata.compute.comparisons.impact import gauge_changes, impact, write_impact_cog
from hydrata.compute.rasters.grid_codes import NODATA

OFF = NODATA  # a cell off that run's mesh
GROUND = 10.0
CELL_M2 = 6.0  # cells 2 m wide and 3 m high
# One row of cells:  wetter  drier  newly wet  no longer wet  only on the other's mesh  under 1 cm  dry  off both
RUN = [0.5, 0.6, 0.0, 0.2, OFF, 0.5, 0.0, OFF]
OTHER = [0.8, 0.2, 0.3, 0.0, 0.7, 0.505, 0.0, OFF]


def rasters(folder, name: str, depths: list[float]) -> dict[str, object]:
    depth = np.array([depths], dtype=np.float32)
    stage = np.where(depth == OFF, OFF, GROUND + depth).astype(np.float32)
    profile = {
        "crs": CRS.from_epsg(28356),
        "transform": Affine(2.0, 0.0, 251000.0, 0.0, -3.0, 6272000.0),
        "width": depth.shape[1],
        "height": 1,
    }
    paths = {"max_depth": folder / f"{name}_depth.tif", "max_stage": folder / f"{name}_stage.tif"}
    write_impact_cog(paths["max_depth"], depth, profile)
    write_impact_cog(paths["max_stage"], stage, profile)
    return paths


def test_the_impact_is_other_minus_run_over_either_mesh_and_each_area_counts_its_own_cells(tmp_path):
    result = impact(run=rasters(tmp_path, "run", RUN), other=rasters(tmp_path, "other", OTHER))

    statistics = result.statistics
    assert statistics["max_increase_m"] == pytest.approx(0.7, abs=1e-6)  # the cell only the other run covers
    assert statistics["max_decrease_m"] == pytest.approx(0.4, abs=1e-6)
    assert statistics["max_stage_increase_m"] == pytest.approx(0.3, abs=1e-6)  # only where both runs are wet
    assert statistics["max_stage_decrease_m"] == pytest.approx(0.4, abs=1e-6)
    assert statistics["area_wetter_m2"] == 3 * CELL_M2
    assert statistics["area_drier_m2"] == 2 * CELL_M2
    assert statistics["area_newly_wet_m2"] == 2 * CELL_M2
    assert statistics["area_no_longer_wet_m2"] == 1 * CELL_M2
    assert statistics["area_wet_in_either_m2"] == 6 * CELL_M2
    assert result.depth_difference[0, 0] == pytest.approx(0.3, abs=1e-6)  # positive where the other is deeper
    assert result.depth_difference[0, 7] == NODATA and result.depth_difference[0, 6] == 0.0
    assert list(result.stage_difference[0] != NODATA) == [True, True, False, False, False, True, False, False]


def test_the_impact_of_the_other_run_against_this_one_is_the_mirror_image(tmp_path):
    forward = impact(run=rasters(tmp_path, "run", RUN), other=rasters(tmp_path, "other", OTHER)).statistics
    backward = impact(run=rasters(tmp_path, "other", OTHER), other=rasters(tmp_path, "run", RUN)).statistics

    assert backward["max_increase_m"] == forward["max_decrease_m"]
    assert backward["max_decrease_m"] == forward["max_increase_m"]
    assert backward["area_wetter_m2"] == forward["area_drier_m2"]
    assert backward["area_newly_wet_m2"] == forward["area_no_longer_wet_m2"]
    assert backward["area_no_longer_wet_m2"] == forward["area_newly_wet_m2"]
    assert backward["area_wet_in_either_m2"] == forward["area_wet_in_either_m2"]


def test_each_gauge_both_runs_recorded_changes_by_other_minus_run_in_metres_and_percent_of_the_run():
    fine = {"bridge": 0.80, "weir": 0.20, "only here": 0.5}
    coarse = {"weir": 0.25, "bridge": 0.72, "only there": 1.0}

    changes = gauge_changes(fine, coarse)

    assert [change["name"] for change in changes] == ["bridge", "weir"]  # the run's order, shared names only
    bridge, weir = changes
    assert bridge["run_peak_depth_m"] == 0.80 and bridge["other_peak_depth_m"] == 0.72
    assert bridge["change_m"] == pytest.approx(-0.08) and bridge["change_pct"] == pytest.approx(-10.0)
    assert weir["change_m"] == pytest.approx(0.05) and weir["change_pct"] == pytest.approx(25.0)


def test_a_gauge_dry_or_off_the_mesh_in_the_run_has_no_percentage_and_off_the_mesh_no_change():
    changes = gauge_changes({"dry": 0.009, "wet": 0.01, "off": None}, {"dry": 0.3, "wet": 0.3, "off": 0.3})

    by_name = {change["name"]: change for change in changes}
    assert by_name["dry"]["change_m"] == pytest.approx(0.291) and by_name["dry"]["change_pct"] is None
    assert by_name["wet"]["change_pct"] == pytest.approx(2900.0)
    assert by_name["off"]["change_m"] is None and by_name["off"]["change_pct"] is None


def test_runs_without_gauges_have_no_changes():
    assert gauge_changes({}, {"a": 1.0}) == [] and gauge_changes({"a": 1.0}, {}) == []
