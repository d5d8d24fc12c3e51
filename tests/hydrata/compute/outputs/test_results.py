"""The result rasters, statistics, preview and values at points, on a mesh and grid small enough to check by hand."""

import json

import numpy as np
import pytest
import rasterio
from affine import Affine
from PIL import Image

from hydrata.compute.outputs.results import (
    HAZARD_NODATA,
    NODATA,
    MeshMaxima,
    Staging,
    grid_values,
    triangle_index_grid,
    write_preview,
    write_results,
)
from hydrata.compute.outputs.run_statistics import VolumeAccount, depth_band_areas, hazard_class_areas
from hydrata.compute.rasters.sampling import sample_rasters
from hydrata.compute.scenario.package import Grid
from tests.hydrata.compute.helpers import peak_rasters

# a 10 m square split along its diagonal into two triangles: 0 is the lower-right half, 1 the upper-left
NODES = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]])
TRIANGLES = np.array([[0, 1, 2], [0, 2, 3]])
# a 1 m grid from -5 to 15 in both directions, so a 5 m ring of cells lies outside the mesh
GRID = Grid(
    crs=rasterio.crs.CRS.from_epsg(28356), transform=Affine(1.0, 0.0, -5.0, 0.0, -1.0, 15.0), width=20, height=20
)


def test_each_cell_takes_the_triangle_under_its_centre_and_cells_off_the_mesh_are_minus_one():
    index = triangle_index_grid(nodes=NODES, triangles=TRIANGLES, grid=GRID)

    assert index.shape == (20, 20)
    assert (index[5:15, 5:15] >= 0).all()  # the 10 x 10 cells whose centres are inside the square
    assert (index[:5] == -1).all() and (index[15:] == -1).all()
    assert (index[:, :5] == -1).all() and (index[:, 15:] == -1).all()
    # cell (row 14, col 14) has its centre at (9.5, 0.5): below the diagonal, triangle 0; (row 5, col 5) at (0.5, 9.5)
    assert index[14, 14] == 0 and index[5, 5] == 1


def test_grid_values_spread_the_triangle_values_and_mark_the_rest_nodata():
    index = triangle_index_grid(nodes=NODES, triangles=TRIANGLES, grid=GRID)

    values = grid_values(index, np.array([0.25, np.nan]))

    assert values.dtype == np.float32
    assert values[14, 14] == pytest.approx(0.25)
    assert values[5, 5] == NODATA  # not finite becomes nodata
    assert values[0, 0] == NODATA


def test_the_depth_bands_count_cells_from_one_centimetre_up_and_skip_nodata():
    depths = np.array([NODATA, 0.0, 0.005, 0.01, 0.149, 0.15, 0.4, 0.7, 1.5, 2.0, 9.0], dtype=np.float32)

    bands = depth_band_areas(depths, cell_area=4.0)

    assert bands == {"0.01-0.15": 8.0, "0.15-0.3": 4.0, "0.3-0.5": 4.0, "0.5-1.0": 4.0, "1.0-2.0": 4.0, ">2.0": 8.0}


def test_the_preview_is_a_png_at_most_1024_pixels_long_and_transparent_where_dry(tmp_path):
    depths = np.full((300, 2500), NODATA, dtype=np.float32)
    depths[100:200, 1000:2000] = 0.5
    depths[100:200, :500] = 0.001  # a film: dry

    write_preview(tmp_path / "preview.png", depths)

    with Image.open(tmp_path / "preview.png") as image:
        assert image.format == "PNG" and image.mode == "RGBA"
        assert max(image.size) == 1024
        alpha = np.asarray(image)[..., 3]
    assert alpha[:, :200].max() == 0 and alpha[60, 600] == 255


def write_fixture_results(output_dir, account=None):
    maxima = MeshMaxima(
        nodes=NODES,
        triangles=TRIANGLES,
        max_depth=np.array([0.2, 1.2]),
        max_speed=np.array([0.5, 0.0]),
        max_stage=np.array([10.2, 11.2]),
        time_of_max_depth=np.array([30.0, 45.0]),
        time_of_max_speed=np.array([20.0, np.nan]),
        time_of_max_stage=np.array([30.0, 45.0]),
        max_hazard=np.array([1, 3], dtype=np.uint8),
        time_of_inundation=np.array([12.0, np.nan]),
        duration_of_inundation=np.array([40.0, 0.0]),
    )
    staging = Staging(output_dir)
    account = account or VolumeAccount(
        initial=0.0, final=20.0, rainfall=40.0, inflow=10.0, boundary_in=0.0, boundary_out=30.0
    )
    statistics = write_results(
        staging=staging,
        maxima=maxima,
        grid=GRID,
        account=account,
        timing={"sim_seconds": 60.0, "wall_seconds": 1.0},
        series={"t": [0.0, 60.0], "gauges": [], "flow_lines": []},
        extra_files={"sww": "run.sww"},
        inundation_threshold_m=0.05,
    )
    return staging, statistics


def test_results_stay_under_hidden_names_until_committed_and_then_line_up_with_the_grid(tmp_path):
    staging, statistics = write_fixture_results(tmp_path)

    assert not (tmp_path / "max_depth.tif").exists() and not (tmp_path / "result.json").exists()
    staging.commit()

    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "duration_of_inundation.tif",
        "max_depth.tif",
        "max_hazard.tif",
        "max_speed.tif",
        "max_stage.tif",
        "preview.png",
        "result.json",
        "statistics.json",
        "time_of_inundation.tif",
        "time_series.json",
    ]
    with rasterio.open(tmp_path / "max_depth.tif") as raster:
        assert raster.driver == "GTiff" and raster.tags(ns="IMAGE_STRUCTURE").get("LAYOUT") == "COG"
        assert (raster.crs, raster.transform, raster.width, raster.height) == (GRID.crs, GRID.transform, 20, 20)
        assert raster.dtypes == ("float32",) and raster.nodata == NODATA
    assert statistics["peak_depth_m"] == 1.2 and statistics["peak_stage_m"] == 11.2
    assert statistics["flooded_area_m2_by_depth_band"]["0.15-0.3"] == pytest.approx(45.0)  # 45 cells below the diagonal
    assert statistics["flooded_area_m2_by_depth_band"]["1.0-2.0"] == pytest.approx(55.0)
    assert statistics["wet_area_m2"] == pytest.approx(100.0)
    assert statistics["volume_out_m3"] == 30.0 and statistics["triangles"] == 2
    assert json.loads((tmp_path / "result.json").read_text())["files"]["sww"] == "run.sww"


def test_the_statistics_say_where_and_when_each_peak_happened():
    _, statistics = write_fixture_results_in_memory()

    assert statistics["peak_depth_at"] == {"x": pytest.approx(10 / 3), "y": pytest.approx(20 / 3), "t": 45.0}
    assert statistics["peak_speed_at"] == {"x": pytest.approx(20 / 3), "y": pytest.approx(10 / 3), "t": 20.0}
    assert statistics["peak_stage_m"] == 11.2 and statistics["peak_stage_at"]["t"] == 45.0


def write_fixture_results_in_memory(account=None):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as directory:
        return write_fixture_results(Path(directory), account)


def test_hazard_and_inundation_rasters_hold_classes_and_seconds_with_their_own_nodata(tmp_path):
    staging, statistics = write_fixture_results(tmp_path)
    staging.commit()

    with rasterio.open(tmp_path / "max_hazard.tif") as raster:
        assert raster.dtypes == ("uint8",) and raster.nodata == HAZARD_NODATA
        assert raster.tags(ns="IMAGE_STRUCTURE").get("LAYOUT") == "COG"
        hazard = raster.read(1)
    assert hazard[14, 14] == 1 and hazard[5, 5] == 3 and hazard[0, 0] == HAZARD_NODATA
    with (
        rasterio.open(tmp_path / "time_of_inundation.tif") as arrival,
        rasterio.open(tmp_path / "duration_of_inundation.tif") as duration,
    ):
        assert arrival.read(1)[14, 14] == 12.0 and duration.read(1)[14, 14] == 40.0
        assert arrival.read(1)[5, 5] == NODATA and duration.read(1)[5, 5] == NODATA  # never inundated
    assert statistics["hazard_area_m2_by_class"] == {"H1": 45.0, "H2": 0.0, "H3": 55.0, "H4": 0.0, "H5": 0.0, "H6": 0.0}
    assert statistics["inundated_area_m2"] == 45.0


def test_the_hazard_areas_count_each_class_and_leave_out_dry_cells_and_cells_off_the_mesh():
    classes = np.array([HAZARD_NODATA, 0, 1, 1, 2, 6, 6, 6], dtype=np.uint8)

    assert hazard_class_areas(classes, cell_area=2.0) == {
        "H1": 4.0,
        "H2": 2.0,
        "H3": 0.0,
        "H4": 0.0,
        "H5": 0.0,
        "H6": 6.0,
    }


def test_the_volume_balance_reports_the_mass_error_and_warns_above_one_percent():
    healthy = VolumeAccount(initial=5.0, final=25.0, rainfall=40.0, inflow=10.0, boundary_in=2.0, boundary_out=32.0)
    leaky = VolumeAccount(initial=0.0, final=18.0, rainfall=40.0, inflow=10.0, boundary_in=0.0, boundary_out=30.0)

    assert healthy.came_in == 52.0 and healthy.error == 0.0 and healthy.error_pct == 0.0
    _, statistics = write_fixture_results_in_memory(healthy)
    assert statistics["mass_balance_error_pct"] == 0.0 and statistics["warnings"] == []
    assert statistics["volume_balance"]["boundary_in_m3"] == 2.0 and statistics["boundary_net_inflow_m3"] == -30.0
    assert leaky.error == -2.0 and leaky.error_pct == pytest.approx(4.0)
    _, statistics = write_fixture_results_in_memory(leaky)
    assert statistics["mass_balance_error_pct"] == pytest.approx(4.0)
    assert "4.00%" in statistics["warnings"][0]


def test_volume_in_and_out_are_what_came_in_and_what_left_so_they_agree_with_the_boundary_when_it_brings_water_in():
    # A boundary brings 2 m³ in and takes 32 m³ out; 5 m³ was there at the start, 25 m³ at the end.
    account = VolumeAccount(initial=5.0, final=25.0, rainfall=40.0, inflow=10.0, boundary_in=2.0, boundary_out=32.0)

    _, statistics = write_fixture_results_in_memory(account)

    assert statistics["volume_out_m3"] == statistics["volume_balance"]["boundary_out_m3"] == 32.0
    assert statistics["volume_in_m3"] == statistics["volume_balance"]["came_in_m3"] == 52.0
    assert statistics["volume_in_m3"] - statistics["volume_out_m3"] == account.final - account.initial


def test_discarding_removes_every_staged_file(tmp_path):
    staging, _ = write_fixture_results(tmp_path)

    staging.discard()

    assert list(tmp_path.iterdir()) == []


def test_sampling_reads_the_three_rasters_and_gives_none_off_the_mesh(tmp_path):
    staging, _ = write_fixture_results(tmp_path)
    staging.commit()

    points = [(9.5, 0.5), (0.5, 9.5), (-3.0, 5.0), (100.0, 100.0)]
    samples = sample_rasters(rasters=peak_rasters(tmp_path), points=points, decimals=None)

    assert samples[0] == {
        "x": 9.5,
        "y": 0.5,
        "peak_depth": pytest.approx(0.2),
        "peak_stage": pytest.approx(10.2),
        "peak_speed": pytest.approx(0.5),
    }
    assert samples[1]["peak_depth"] == pytest.approx(1.2) and samples[1]["peak_speed"] == 0.0
    for outside in samples[2:]:  # on the grid but outside the mesh; off the grid altogether
        assert (outside["peak_depth"], outside["peak_stage"], outside["peak_speed"]) == (None, None, None)
