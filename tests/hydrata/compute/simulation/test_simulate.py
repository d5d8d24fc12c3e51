"""The simulation child process, driven as the platform drives it: a package on disk, `python -m
hydrata.compute.simulation.simulate`, then only the files it wrote and its exit code. The package is small_test meshed
at 10 m."""

import contextlib
import json
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import rasterio
from PIL import Image

from hydrata.compute.outputs.results import NODATA
from hydrata.compute.rasters.sampling import sample_rasters
from hydrata.compute.simulation.forcing import friction_values, series_function
from hydrata.compute.simulation.mesh import mesh_build
from hydrata.compute.simulation.phase_clock import CHILD_PHASES_LINE
from hydrata.compute.simulation.simulate import (
    COLLAPSED_YIELDS,
    InstabilityGuard,
    RunState,
    Terminated,
    _on_signal,
    came_in_volume,
    default_yield_seconds,
)
from hydrata.compute.spatial.geometry import boundary_ring, features_in_crs
from hydrata_contract.layers import DEPTH_FRAME_GLOB, DEPTH_FRAMES_INDEX, ENVELOPE_LAYERS
from tests.data import BOUNDARY, DEM, RAINFALL
from tests.hydrata.compute.helpers import SMALL_TEST_CRS, peak_rasters
from tests.run_files import assert_statistics_match_the_files

ROOT = Path(__file__).resolve().parents[4]
RESOLUTION = 10.0
DURATION = 300
RAIN_MM_HR = 50.0
MODEL_AREA_M2 = 197.0 * 197.0  # the boundary ring; the rain polygon covers all of it
PHASES = ["preparing_inputs", "meshing", "computing", "post_processing"]
STOP_BOUND_SECONDS = 120  # generous: the test proves the child stops, not how fast a loaded machine is


# --- building a package the way docs/scenario-package.md describes it -----------------------------------------


def write_collection(path: Path, features: list[dict]) -> None:
    path.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "crs": {"type": "name", "properties": {"name": SMALL_TEST_CRS}},
                "features": features,
            }
        )
    )


def make_package(
    directory: Path,
    *,
    rain: str = str(RAIN_MM_HR),
    duration: int = DURATION,
    time_series: dict[str, list[dict]] | None = None,
    model_start: str | None = None,
    units: str = "mm/hr",
) -> Path:
    (directory / "inputs").mkdir(parents=True)
    boundary = features_in_crs(json.loads(BOUNDARY.read_text()), target_crs=SMALL_TEST_CRS)
    ring = boundary_ring(boundary)
    mesh = mesh_build(ring=ring, regions=[], resolution=RESOLUTION, breaklines=[], destination=directory / "mesh.msh")
    shutil.copy(DEM, directory / "inputs" / "dem.tif")
    write_collection(directory / "inputs" / "boundary.geojson", boundary)
    rainfall = features_in_crs(json.loads(RAINFALL.read_text()), target_crs=SMALL_TEST_CRS)
    for feature in rainfall:
        feature["properties"]["data"] = rain
    write_collection(directory / "inputs" / "rainfall.geojson", rainfall)
    series_files = {}
    for index, (name, rows) in enumerate((time_series or {}).items()):
        (directory / "time_series").mkdir(exist_ok=True)
        relative = f"time_series/{index:03d}.json"
        (directory / relative).write_text(
            json.dumps({"name": name, "series_type": "hyetograph", "units": units, "rows": rows})
        )
        series_files[name] = relative
    manifest = {
        "format_version": "1.0",
        "run_id": 1,
        "scenario_id": 1,
        "project": 1,
        "epsg": SMALL_TEST_CRS,
        "name": "Small test",
        "description": "",
        "elevation": "inputs/dem.tif",
        "boundary": "inputs/boundary.geojson",
        "friction": None,
        "inflow": None,
        "rainfall": "inputs/rainfall.geojson",
        "structure": None,
        "mesh_region": None,
        "time_series": series_files,
        "mesh": "mesh.msh",
        "mesh_triangle_count": mesh.triangle_count,
        "mesh_triangle_count_estimate": mesh.triangle_count,
        "boundary_tags": ring.boundary_tags(),
        "resolution": RESOLUTION,
        "duration": duration,
        "model_start": model_start,
    }
    (directory / "scenario.json").write_text(json.dumps(manifest, indent=2))
    return directory


def start(package: Path, output: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hydrata.compute.simulation.simulate",
            "--package",
            str(package),
            "--output",
            str(output),
            "--yield-seconds",
            "10",
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen, timeout: float = 120) -> int:
    _, stderr = process.communicate(timeout=timeout)
    process.stderr_text = stderr
    return process.returncode


def progress_lines(output: Path) -> list[dict]:
    return [json.loads(line) for line in (output / "progress.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two complete runs side by side: constant 50 mm/hr, and a time series ramping 0 -> 100 mm/hr over the run,
    the first row at model_start (the same depth of rain in total)."""
    base = tmp_path_factory.mktemp("simulate")
    constant = make_package(base / "constant")
    ramp_rows = [
        {"timestamp": "2024-01-01T00:00:00Z", "value": 0.0},
        {"timestamp": "2024-01-01T00:05:00Z", "value": 2 * RAIN_MM_HR},
    ]
    ramp = make_package(
        base / "ramp", rain="storm", time_series={"storm": ramp_rows}, model_start="2024-01-01T00:00:00Z"
    )
    processes = {
        name: start(package, base / f"{name}-out", *extra)
        for name, package, extra in (
            ("constant", constant, ()),
            ("ramp", ramp, ()),
            ("envelope", constant, ("--outputs", "envelope")),  # what a design study's member keeps
        )
    }
    codes = {name: finish(process) for name, process in processes.items()}
    for name, code in codes.items():
        assert code == 0, processes[name].stderr_text
    return {name: base / f"{name}-out" for name in processes} | {"package": constant}


# --- a complete run --------------------------------------------------------------------------------------------


def test_a_complete_run_reports_progress_in_order_with_a_phase_on_every_line(runs):
    lines = progress_lines(runs["constant"])

    phases = [line["phase"] for line in lines]
    assert all(phase in PHASES for phase in phases)
    assert [phase for index, phase in enumerate(phases) if index == 0 or phases[index - 1] != phase] == PHASES
    percents = [line["progress_pct"] for line in lines]
    assert percents == sorted(percents) and percents[0] == 0 and percents[-1] == 100
    computing = [line for line in lines if line["phase"] == "computing"]
    assert len(computing) == DURATION // 10 + 1  # t = 0 and every 10 s
    assert [line["sim_time"] for line in computing] == [10.0 * step for step in range(len(computing))]
    assert set(computing[-1]) == {
        "phase",
        "sim_time",
        "duration",
        "progress_pct",
        "eta_seconds",
        "wall_seconds",
        "timestep",
        "volume_m3",
        "inflow_volume_m3",
    }
    assert computing[-1]["timestep"] > 0 and computing[-1]["eta_seconds"] == 0
    assert all(line["duration"] == DURATION for line in lines)


def test_the_rasters_sit_on_the_dems_grid_with_plausible_depths(runs):
    with rasterio.open(DEM) as dem:
        grid = (dem.crs, dem.transform, dem.width, dem.height)
    for name in ("max_depth", "max_speed", "max_stage"):
        with rasterio.open(runs["constant"] / f"{name}.tif") as raster:
            assert (raster.crs, raster.transform, raster.width, raster.height) == grid
            assert raster.dtypes == ("float32",) and raster.nodata == NODATA
            assert raster.tags(ns="IMAGE_STRUCTURE").get("LAYOUT") == "COG"
    with rasterio.open(runs["constant"] / "max_depth.tif") as raster:
        depth = raster.read(1, masked=True)
    assert depth.count() > 0.9 * depth.size  # the DEM's margin beyond the mesh is nodata, the rest has values
    assert depth.min() >= 0
    assert (depth >= 0.01).sum() > 0  # 50 mm/hr for five minutes wets some cells


@pytest.mark.parametrize("name", ["constant", "ramp"])
def test_the_statistics_agree_with_the_files_and_balance_the_rain_that_fell(runs, name):
    output = runs[name]
    statistics = json.loads((output / "statistics.json").read_text())

    mesh = assert_statistics_match_the_files(statistics, sww=output / "run.sww", max_depth=output / "max_depth.tif")

    assert mesh.area_m2 == pytest.approx(MODEL_AREA_M2)
    rain = RAIN_MM_HR / 1000 / 3600 * mesh.area_m2 * DURATION
    # A constant rate is added exactly; the ramp is integrated step by step (same depth in total).
    assert statistics["volume_balance"]["rainfall_m3"] == pytest.approx(rain, rel=1e-6 if name == "constant" else 0.03)
    assert mesh.stored_m3 > 0.5 * rain and statistics["boundary_net_inflow_m3"] < 0  # kept most, lost some
    assert statistics["sim_seconds"] == DURATION and statistics["triangles"] > 1000


def test_the_health_figures_of_a_real_run_are_recorded_agree_with_anugas_own_log_and_say_healthy(runs):
    output = runs["constant"]
    statistics = json.loads((output / "statistics.json").read_text())
    health = statistics["health"]
    log = (output / "run.log").read_text()

    assert health["verdict"] == "healthy" and health["reasons"] == []
    timestep = health["timestep_s"]
    assert 0 < timestep["min"] <= timestep["median"] <= timestep["max"] <= 10.0
    # ANUGA's own line per yield counts the steps it took ("steps=N"); the recorder saw each one
    assert timestep["steps"] == sum(int(n) for n in re.findall(r"steps=(\d+)", log)) > 0
    assert sum(health["steps_limited_by"].values()) == timestep["steps"]
    assert health["steps_limited_by"]["courant"] > 0
    # the smallest step ANUGA chose by its CFL condition (progress lines' timestep) is one the recorder counted
    chosen = [line["timestep"] for line in progress_lines(output) if line.get("timestep") is not None]
    assert timestep["min"] <= min(chosen) + 1e-9
    triangles = health["limiting_triangles"]
    assert triangles and sum(t["share"] for t in triangles) <= 1.0 + 1e-9
    assert all(t["share"] == pytest.approx(t["steps"] / timestep["steps"]) and t["radius_m"] > 0 for t in triangles)
    assert all(250990 < t["x"] < 251210 and 6271790 < t["y"] < 6272010 for t in triangles)  # inside the mesh
    assert 0 < health["peak_courant"]["value"] <= health["cfl"] * (1 + 1e-9) and health["cfl"] > 0
    assert 0 < health["peak_courant"]["t"] <= DURATION
    mass = health["mass_error"]
    assert abs(mass["final_pct"]) < 1e-6 and abs(mass["final_pct"]) == pytest.approx(
        statistics["mass_balance_error_pct"]
    )
    assert mass["series"]["t"][0] == 0.0 and mass["series"]["t"][-1] == DURATION
    assert len(mass["series"]["t"]) == len(mass["series"]["error_m3"]) == len(mass["series"]["error_pct"]) <= 50
    spikes = health["spikes"]
    assert spikes["speed_cells"] == spikes["depth_cells"] == 0 and spikes["worst"] == []
    assert 0 < spikes["largest_speed_jump_m_s"] < spikes["speed_jump_threshold_m_s"]


def test_the_output_directory_holds_the_listed_files_and_a_png_preview(runs):
    result = json.loads((runs["constant"] / "result.json").read_text())

    for filename in result["files"].values():
        assert (runs["constant"] / filename).is_file(), filename
    assert not list(runs["constant"].glob(".*"))  # no temporary file left behind
    with Image.open(runs["constant"] / "preview.png") as preview:
        assert preview.format == "PNG" and max(preview.size) <= 1024
    assert "Rainfall feature 0" in (runs["constant"] / "run.log").read_text()


def test_a_run_keeping_the_envelope_outputs_writes_only_what_a_studys_envelopes_read_with_the_same_numbers(runs):
    full, envelope = runs["constant"], runs["envelope"]
    enveloped = {layer.filename for layer in ENVELOPE_LAYERS}

    kept = {path.name for path in envelope.iterdir()}
    assert kept == enveloped | {"statistics.json", "time_series.json", "result.json", "run.log", "progress.jsonl"}
    result = json.loads((envelope / "result.json").read_text())
    assert set(result["files"].values()) == kept - {"result.json"}
    for name in enveloped:
        with rasterio.open(full / name) as whole, rasterio.open(envelope / name) as member:
            assert np.array_equal(whole.read(1), member.read(1)), name
    # the statistics (and so the volumes, peaks and health) and the gauges' series are a full run's, but the clock
    statistics = [json.loads((output / "statistics.json").read_text()) for output in (full, envelope)]
    for figures in statistics:
        figures.pop("wall_seconds")
    assert statistics[0] == statistics[1]
    assert (full / "time_series.json").read_text() == (envelope / "time_series.json").read_text()
    # a full run keeps its .sww, its depth frames and its preview, as before
    assert {"run.sww", "preview.png", DEPTH_FRAMES_INDEX} <= {path.name for path in full.iterdir()}
    assert list(full.glob(DEPTH_FRAME_GLOB))


def test_the_child_logs_the_wall_and_cpu_seconds_of_each_of_its_phases(runs):
    for name in ("constant", "envelope"):
        (line,) = [line for line in (runs[name] / "run.log").read_text().splitlines() if CHILD_PHASES_LINE in line]
        phases = json.loads(line.split(CHILD_PHASES_LINE, 1)[1])

        expected = ["before_main", "start", "imports", "package", "anuga_import", "model", "evolve", "results"]
        expected += ["depth_frames", "commit"] if name == "constant" else ["commit"]
        assert list(phases) == expected
        assert all(wall >= 0 and cpu >= 0 for wall, cpu in phases.values())
        assert phases["evolve"][1] > 0 and phases["before_main"][1] > 0


def test_a_time_series_rain_brings_in_the_same_volume_as_the_equivalent_constant(runs):
    constant = json.loads((runs["constant"] / "statistics.json").read_text())["volume_balance"]["rainfall_m3"]
    ramp = json.loads((runs["ramp"] / "statistics.json").read_text())["volume_balance"]["rainfall_m3"]

    assert ramp == pytest.approx(constant, rel=0.03)


# --- the same storm in each of the three rain units ------------------------------------------------------------


def at(seconds: float) -> str:
    whole, fraction = divmod(round(seconds * 1000), 1000)
    return f"2024-01-01T00:{whole // 60:02d}:{whole % 60:02d}.{fraction:03d}Z"


# Four one-minute blocks of rain, 7.5 mm in all, then four minutes dry (the run lasts 300 s).
STORM_BLOCKS_MM = [2.0, 4.0, 1.0, 0.5]
STORM_UNITS = {
    # the depth of each block at the row that ends it; the first row (0 mm) marks the start
    "mm per interval": [(0, 0.0)] + [(60 * (n + 1), depth) for n, depth in enumerate(STORM_BLOCKS_MM)],
    # the depth fallen since the first row
    "cumulative mm": [(0, 0.0)] + [(60 * (n + 1), sum(STORM_BLOCKS_MM[: n + 1])) for n in range(4)],
    # the intensity of each block (depth x 60 per hour), linear between rows: each block edge a millisecond wide
    "mm/h": [
        row
        for n, depth in enumerate(STORM_BLOCKS_MM)
        for row in ((60 * n, depth * 60), (60 * (n + 1) - 0.001, depth * 60))
    ]
    + [(240, 0.0)],
}


@pytest.fixture(scope="module")
def storm_runs(tmp_path_factory):
    """The same storm written in each of the three rain units, each a complete run."""
    base = tmp_path_factory.mktemp("storm")
    processes = {}
    for number, (units, rows) in enumerate(STORM_UNITS.items()):
        package = make_package(
            base / f"package-{number}",
            rain="storm",
            time_series={"storm": [{"timestamp": at(t), "value": value} for t, value in rows]},
            model_start="2024-01-01T00:00:00Z",
            units=units,
        )
        processes[units] = (start(package, base / f"out-{number}"), base / f"out-{number}")
    for units, (process, _) in processes.items():
        assert finish(process, timeout=300) == 0, (units, process.stderr_text)
    return {units: output for units, (_, output) in processes.items()}


def test_the_same_storm_in_mm_per_hour_per_interval_and_cumulative_gives_the_same_run(storm_runs):
    statistics = {units: json.loads((output / "statistics.json").read_text()) for units, output in storm_runs.items()}
    depths = {}
    for units, output in storm_runs.items():
        with rasterio.open(output / "max_depth.tif") as raster:
            depths[units] = raster.read(1)
        said = re.search(r"peak 240 mm/hr, ([0-9.]+) mm in all", (output / "run.log").read_text())
        assert said and float(said[1]) == pytest.approx(sum(STORM_BLOCKS_MM), rel=1e-4), units

    per_interval, cumulative, per_hour = (statistics[units] for units in STORM_UNITS)
    rain = per_interval["volume_balance"]["rainfall_m3"]
    # the depth fell on the whole model (the rain polygon covers it), up to the solver's steps
    assert rain == pytest.approx(sum(STORM_BLOCKS_MM) / 1000 * MODEL_AREA_M2, rel=0.03)
    # cumulative mm is the same rate at every instant as mm per interval, so the very same run
    assert cumulative["volume_balance"]["rainfall_m3"] == pytest.approx(rain, rel=1e-9)
    assert np.allclose(depths["cumulative mm"], depths["mm per interval"], atol=1e-9)
    assert cumulative["peak_depth_m"] == pytest.approx(per_interval["peak_depth_m"], rel=1e-9)
    # in mm/h the same storm differs only inside its millisecond-wide edges
    assert per_hour["volume_balance"]["rainfall_m3"] == pytest.approx(rain, rel=1e-4)
    assert np.allclose(depths["mm/h"], depths["mm per interval"], atol=1e-4)
    assert per_hour["peak_depth_m"] == pytest.approx(per_interval["peak_depth_m"], rel=1e-4)


def test_sampling_reads_peaks_inside_the_mesh_and_none_outside(runs):
    inside, margin, far = (251100.0, 6271900.0), (251000.0, 6271900.0), (260000.0, 6280000.0)

    samples = sample_rasters(rasters=peak_rasters(runs["constant"]), points=[inside, margin, far], decimals=None)

    assert samples[0]["x"] == inside[0] and samples[0]["y"] == inside[1]
    assert samples[0]["peak_depth"] >= 0 and samples[0]["peak_speed"] >= 0
    assert 970 < samples[0]["peak_stage"] < 1000  # the ground here is about 970-997 m
    for sample in samples[1:]:  # in the DEM's margin outside the mesh, and off the grid
        assert (sample["peak_depth"], sample["peak_stage"], sample["peak_speed"]) == (None, None, None)


# --- runs that do not complete ---------------------------------------------------------------------------------


def test_sigterm_while_computing_stops_the_child_and_keeps_no_results(tmp_path):
    package = make_package(tmp_path / "package", duration=36_000)
    output = tmp_path / "out"
    process = start(package, output)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        progress = output / "progress.jsonl"
        if progress.exists() and any(
            line["phase"] == "computing" and line["sim_time"] > 0 for line in progress_lines(output)
        ):
            break
        time.sleep(0.05)
    else:
        process.kill()
        pytest.fail("the run never reached computing")

    process.send_signal(signal.SIGTERM)
    code = finish(process, timeout=STOP_BOUND_SECONDS)  # a run of ten hours of model time: it did stop early

    assert code == 128 + signal.SIGTERM
    assert not (output / "max_depth.tif").exists() and not (output / "result.json").exists()
    assert not list(output.glob(".*"))  # the partial sww is gone too
    last = progress_lines(output)[-1]
    assert last["phase"] == "computing" and "stopped" in last["error"]


def test_a_stop_whose_exception_a_library_swallowed_is_raised_again_at_the_next_check_but_not_once_committed():
    # The fresh-clone suite once saw a SIGTERMed run finish with exit 0 on a loaded machine: the handler's exception
    # lands wherever the interpreter is, and a bare `except:` or a finaliser there swallows it.
    state = RunState()
    with contextlib.suppress(BaseException):  # what a library's bare except does
        _on_signal(state)(signal.SIGTERM, None)

    with pytest.raises(Terminated) as stopped:
        state.raise_if_stopped()
    assert stopped.value.signum == signal.SIGTERM
    state.committed = True
    state.raise_if_stopped()  # the results are in place: nothing to stop


def test_an_absurd_rainfall_trips_the_instability_guard_with_exit_code_3(tmp_path):
    package = make_package(tmp_path / "package", rain="1e18")
    output = tmp_path / "out"

    code = finish(start(package, output))

    assert code == 3
    last = progress_lines(output)[-1]
    assert last["phase"] == "computing" and "unstable" in last["error"] and "Traceback" not in last["error"]
    assert not (output / "max_depth.tif").exists()


def test_a_broken_package_fails_with_exit_code_1_and_says_what_is_missing(tmp_path):
    package = make_package(tmp_path / "package")
    (package / "mesh.msh").unlink()
    output = tmp_path / "out"

    process = start(package, output)
    code = finish(process)

    assert code == 1
    last = progress_lines(output)[-1]
    assert last["phase"] == "preparing_inputs" and "mesh.msh" in last["error"] and "Traceback" not in last["error"]
    assert "Traceback" in process.stderr_text


# --- the pure parts --------------------------------------------------------------------------------------------


def polygon(x0, y0, x1, y1, mannings) -> dict:
    return {
        "type": "Feature",
        "properties": {"mannings": mannings},
        "geometry": {"type": "Polygon", "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]},
    }


def test_friction_the_first_polygon_containing_a_centroid_wins_and_elsewhere_is_the_default():
    features = [polygon(0, 0, 10, 10, 0.1), polygon(5, 5, 20, 20, 0.05), polygon(0, 0, 30, 30, 0.2)]
    centroids = np.array([[2.0, 2.0], [7.0, 7.0], [15.0, 15.0], [25.0, 25.0], [40.0, 40.0]])

    assert friction_values(centroids, features).tolist() == [0.1, 0.1, 0.05, 0.2, 0.03]
    assert friction_values(centroids, []).tolist() == [0.03] * 5


def test_a_time_series_is_linear_between_rows_and_zero_outside_them():
    rows = [{"timestamp": "2024-01-01T00:10:00Z", "value": 10.0}, {"timestamp": "2024-01-01T00:20:00Z", "value": 30.0}]

    from_model_start = series_function(rows, start=None)  # no model_start: the first row is time 0
    from_earlier = series_function(rows, start=series_start("2024-01-01T00:00:00Z"), scale=2.0)

    assert [from_model_start(t) for t in (-1, 0, 300, 600, 601)] == [0.0, 10.0, 20.0, 30.0, 0.0]
    assert [from_earlier(t) for t in (0, 599, 600, 900, 1200)] == [0.0, 0.0, 20.0, 40.0, 60.0]
    assert from_model_start.integral(0, 600) == pytest.approx(20.0 * 600)


def series_start(text: str):
    from hydrata.compute.scenario.package import parse_timestamp

    return parse_timestamp(text)


def test_the_guard_trips_on_runaway_volume_and_on_a_time_step_collapsed_for_three_yields():
    assert InstabilityGuard().check(volume=100.0, came_in=10.0, timestep=0.5) is None
    message = InstabilityGuard().check(volume=200.0, came_in=10.0, timestep=0.5)
    assert "unstable" in message and "200 m3" in message and "10 m3" in message
    assert "unstable" in InstabilityGuard().check(volume=float("nan"), came_in=10.0, timestep=0.5)

    guard = InstabilityGuard()
    answers = [guard.check(volume=1.0, came_in=1.0, timestep=1e-7) for _ in range(COLLAPSED_YIELDS)]
    assert answers[:-1] == [None] * (COLLAPSED_YIELDS - 1) and "time step collapsed" in answers[-1]
    guard = InstabilityGuard()
    assert [guard.check(volume=1.0, came_in=1.0, timestep=dt) for dt in (1e-7, 1e-7, 0.1, 1e-7)] == [None] * 4


def test_boundary_inflow_counts_as_water_that_came_in_only_with_a_dirichlet_boundary():
    assert came_in_volume(forcing_volume=5.0, boundary_net_inflow=100.0, has_dirichlet=True) == 105.0
    assert came_in_volume(forcing_volume=5.0, boundary_net_inflow=100.0, has_dirichlet=False) == 5.0
    assert came_in_volume(forcing_volume=5.0, boundary_net_inflow=-3.0, has_dirichlet=True) == 5.0


def test_the_default_yield_gives_about_a_hundred_lines_between_one_second_and_a_minute():
    assert default_yield_seconds(300) == 3.0
    assert default_yield_seconds(86_400) == 60.0
    assert default_yield_seconds(30) == 1.0
    assert default_yield_seconds(0.5) == 0.5
