"""A run over two MPI ranks against the same run on one: small_test (meshed at 10 m, 100 mm/hr for five minutes,
five gauges and three flow lines drawn across the partition), the child started as the platform starts it, alone
and under the mpich wheel's `mpiexec -n 2`, then only the files each wrote."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import rasterio

from hydrata.compute.outputs.results import NODATA
from hydrata.compute.simulation.ranks import Ownership, Ranks, assembled, gather_owned
from hydrata.compute.simulation.simulate import PARALLEL_BALANCE
from tests.hydrata.compute.simulation.test_simulate import ROOT, make_package, write_collection
from tests.run_files import assert_statistics_match_the_files

MPIEXEC = Path(sys.executable).parent / "mpiexec"
WET_M = 0.01
GAUGE_PLACES = [(0.2, 0.2), (0.5, 0.5), (0.8, 0.3), (0.3, 0.8), (0.7, 0.7)]  # shares of the model's width and height
SERIES_KEYS = ("stage", "depth", "speed", "xvel", "yvel")


def add_gauges_and_flow_lines(package: Path) -> None:
    manifest = json.loads((package / "scenario.json").read_text())
    ring = json.loads((package / "inputs" / "boundary.geojson").read_text())
    points = np.array([point for feature in ring["features"] for point in feature["geometry"]["coordinates"]])
    (x0, y0), (x1, y1) = points.min(axis=0), points.max(axis=0)
    middle_x, middle_y = (x0 + x1) / 2, (y0 + y1) / 2
    gauges = [
        point_feature(f"gauge {index}", x0 + fx * (x1 - x0), y0 + fy * (y1 - y0))
        for index, (fx, fy) in enumerate(GAUGE_PLACES)
    ]
    lines = [
        line_feature("across", [(x0 + 1, middle_y), (x1 - 1, middle_y)]),
        line_feature("down", [(middle_x, y0 + 1), (middle_x, y1 - 1)]),
        line_feature("diagonal", [(x0 + 1, y0 + 1), (x1 - 1, y1 - 1)]),
    ]
    write_collection(package / "inputs" / "gauge.geojson", gauges)
    write_collection(package / "inputs" / "flow_line.geojson", lines)
    manifest |= {"gauge": "inputs/gauge.geojson", "flow_line": "inputs/flow_line.geojson"}
    (package / "scenario.json").write_text(json.dumps(manifest, indent=2))


def point_feature(name: str, x: float, y: float) -> dict:
    return {"type": "Feature", "geometry": {"type": "Point", "coordinates": [x, y]}, "properties": {"name": name}}


def line_feature(name: str, points: list[tuple[float, float]]) -> dict:
    geometry = {"type": "LineString", "coordinates": [list(point) for point in points]}
    return {"type": "Feature", "geometry": geometry, "properties": {"name": name}}


def simulate(package: Path, output: Path, *, ranks: int) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "hydrata.compute.simulation.simulate",
        "--package",
        str(package),
        "--output",
        str(output),
    ]
    command += ["--yield-seconds", "10", "--threads", "1"]
    if ranks > 1:
        command = [str(MPIEXEC), "-n", str(ranks), *command]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def one_and_two(tmp_path_factory):
    base = tmp_path_factory.mktemp("ranks")
    package = make_package(base / "package", rain="100")
    add_gauges_and_flow_lines(package)
    outputs = {}
    for ranks in (1, 2):
        outputs[ranks] = base / f"ranks-{ranks}"
        finished = simulate(package, outputs[ranks], ranks=ranks)
        assert finished.returncode == 0, finished.stdout + finished.stderr
    return outputs


def raster(output: Path, name: str) -> np.ndarray:
    with rasterio.open(output / name) as source:
        return source.read(1)


def statistics(output: Path) -> dict:
    return json.loads((output / "statistics.json").read_text())


def series(output: Path) -> dict:
    return json.loads((output / "time_series.json").read_text())


def test_two_ranks_split_the_mesh_and_say_so_in_the_log(one_and_two):
    log = (one_and_two[2] / "run.log").read_text()

    assert "2 rank(s)" in log and "Distributed over 2 ranks" in log
    assert sorted(path.name for path in one_and_two[2].iterdir()) == sorted(
        path.name for path in one_and_two[1].iterdir()
    )  # no rank's own .sww or lock is left beside the results


def test_a_two_rank_run_logs_each_ranks_exchange_and_reduction_wait_and_a_serial_run_logs_none(one_and_two):
    lines = [line for line in (one_and_two[2] / "run.log").read_text().splitlines() if PARALLEL_BALANCE in line]
    balance = json.loads(lines[0].partition(PARALLEL_BALANCE)[2])

    assert len(lines) == 1
    assert sum(balance["n_full"]) == json.loads((one_and_two[1] / "statistics.json").read_text())["triangles"]
    for key in ("comm_time", "reduce_wait_time", "compute_time", "wall_time"):
        assert len(balance[key]) == 2 and all(seconds >= 0 for seconds in balance[key])
    assert PARALLEL_BALANCE not in (one_and_two[1] / "run.log").read_text()


def test_the_max_depth_of_every_wet_cell_is_within_a_millimetre_of_the_serial_runs(one_and_two):
    serial, parallel = raster(one_and_two[1], "max_depth.tif"), raster(one_and_two[2], "max_depth.tif")
    wet = (serial >= WET_M) | (parallel >= WET_M)

    assert wet.sum() > 100
    assert np.abs(serial[wet] - parallel[wet]).max() <= 1e-3
    assert ((serial == NODATA) == (parallel == NODATA)).all()


@pytest.mark.parametrize(
    "name", ["max_hazard.tif", "time_of_inundation.tif", "duration_of_inundation.tif"], ids=lambda n: n[:-4]
)
def test_the_hazard_and_inundation_rasters_equal_the_serial_runs(one_and_two, name):
    assert np.array_equal(raster(one_and_two[1], name), raster(one_and_two[2], name), equal_nan=True)


def test_every_volume_is_within_a_millionth_of_the_serial_runs(one_and_two):
    serial, parallel = statistics(one_and_two[1]), statistics(one_and_two[2])
    volumes = {key: value for key, value in serial["volume_balance"].items() if key.endswith("_m3")}

    assert volumes["rainfall_m3"] > 0 and volumes["boundary_out_m3"] > 0 and volumes["final_m3"] > 0
    for key, value in volumes.items():
        if key != "error_m3":  # the closing error is rounding itself (1e-9 m3), not a volume of water
            assert parallel["volume_balance"][key] == pytest.approx(value, rel=1e-6, abs=1e-9), key
    for key in ("volume_in_m3", "volume_out_m3", "final_volume_m3", "wet_area_m2", "peak_depth_m"):
        assert parallel[key] == pytest.approx(serial[key], rel=1e-6), key


def test_gauge_and_flow_line_series_are_within_a_millimetre_and_a_tenth_of_a_percent(one_and_two):
    serial, parallel = series(one_and_two[1]), series(one_and_two[2])

    assert parallel["t"] == serial["t"] and len(serial["t"]) == 31
    for expected, got in zip(serial["gauges"], parallel["gauges"], strict=True):
        assert got["name"] == expected["name"]
        for key in SERIES_KEYS:
            assert np.allclose(got[key], expected[key], rtol=1e-3, atol=1e-3), (expected["name"], key)
        assert max(expected["depth"]) > 0
    for expected, got in zip(serial["flow_lines"], parallel["flow_lines"], strict=True):
        assert np.allclose(got["discharge"], expected["discharge"], rtol=1e-3, atol=1e-3), expected["name"]
        assert max(np.abs(expected["discharge"])) > 0.05  # each line carries water, so the comparison says something


def test_the_health_report_finds_the_same_steps_and_limiting_triangles_over_the_whole_mesh(one_and_two):
    serial, parallel = statistics(one_and_two[1])["health"], statistics(one_and_two[2])["health"]

    for key in ("verdict", "timestep_s", "steps_limited_by", "limiting_triangles", "peak_courant", "spikes"):
        assert parallel[key] == serial[key], key


def test_a_two_rank_run_balances_its_water_to_a_millionth_and_its_files_agree(one_and_two):
    output = one_and_two[2]
    figures = statistics(output)
    balance = figures["volume_balance"]

    assert abs(figures["mass_balance_error_pct"]) < 1e-6 and figures["warnings"] == []
    assert balance["initial_m3"] + balance["came_in_m3"] - balance["boundary_out_m3"] == pytest.approx(
        balance["final_m3"], rel=1e-9
    )
    mesh = assert_statistics_match_the_files(figures, sww=output / "run.sww", max_depth=output / "max_depth.tif")
    assert mesh.stored_m3 == pytest.approx(balance["final_m3"], rel=1e-4)  # the merged .sww holds the whole mesh


def test_a_failure_on_one_rank_ends_every_rank_and_reports_the_failure(tmp_path):
    package = make_package(tmp_path / "package")
    manifest = json.loads((package / "scenario.json").read_text())
    (package / "scenario.json").write_text(json.dumps(manifest | {"gauge": "inputs/missing.geojson"}))

    finished = simulate(package, tmp_path / "output", ranks=2)

    errors = [json.loads(line) for line in (tmp_path / "output" / "progress.jsonl").read_text().splitlines()]
    assert finished.returncode == 1
    assert "missing" in next(line["error"] for line in errors if "error" in line)


def test_per_triangle_values_are_assembled_in_the_meshs_numbering_from_each_owner():
    pieces = [
        (np.array([2, 0]), {"depth": np.array([0.2, 0.0])}),
        (np.array([1, 3]), {"depth": np.array([0.1, 0.3])}),
    ]

    assert assembled(pieces, "depth", 4).tolist() == [0.0, 0.1, 0.2, 0.3]
    with pytest.raises(ValueError, match="not exactly one owning rank"):
        assembled([*pieces, (np.array([3]), {"depth": np.array([9.0])})], "depth", 4)


def test_a_serial_run_gathers_its_own_owned_values_unchanged():
    values = {"depth": np.array([0.5, 0.25, 0.0])}

    gathered = gather_owned(Ranks(), Ownership.serial(3), values)

    assert gathered["depth"].tolist() == [0.5, 0.25, 0.0]
