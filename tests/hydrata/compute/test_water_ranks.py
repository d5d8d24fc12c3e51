"""Where the water starts, the stage edges and the soil losses over two MPI ranks against the same run on one: two
basins filled by initial conditions, raised by two Dirichlet edges of their own stage series, under rain that a soil
partly takes, the child started alone and under `mpiexec -n 2`."""

import json

import numpy as np
import pytest

from tests.hydrata.compute.flume import Flume, FlumeRun, rectangle
from tests.hydrata.compute.simulation.test_ranks import simulate
from tests.hydrata.compute.test_stage_edges import ramp

GAUGES = (2.0, 8.0, 13.0, 17.0, 22.0, 28.0)


def flume() -> Flume:
    return Flume(
        length=30.0,
        width=6.0,
        bed=lambda x: np.where((x > 10) & (x < 20), 3.0, 0.0),
        upstream={"boundary": "Dirichlet", "stage": "lake"},
        downstream={"boundary": "DirichletZeroMomentum", "stage": "sea"},
        mannings=0.03,
        layers={
            "initial_condition": [rectangle(-1, -1, 15, 7, stage=0.8), rectangle(15, -1, 31, 7, depth=1.2)],
            "rainfall": [rectangle(-1, -1, 31, 7, data=200.0)],
            "soil": [rectangle(5, -1, 25, 7, initial_loss_mm=1, continuing_loss_mm_h=60, impervious_fraction=0.3)],
        },
        gauges_x=GAUGES,
        time_series={"lake": ramp(0.8, 1.0), "sea": ramp(1.2, 1.5)},
    )


@pytest.fixture(scope="module")
def one_and_two(tmp_path_factory):
    base = tmp_path_factory.mktemp("water-ranks")
    package = flume().package(base / "package", resolution=1.0, duration=120)
    runs = {}
    for ranks in (1, 2):
        output = base / f"ranks-{ranks}"
        finished = simulate(package, output, ranks=ranks)
        assert finished.returncode == 0, finished.stdout + finished.stderr
        runs[ranks] = run_files(output)
    return runs


def run_files(output) -> FlumeRun:
    return FlumeRun(
        output=output,
        statistics=json.loads((output / "statistics.json").read_text()),
        series=json.loads((output / "time_series.json").read_text()),
    )


def test_two_ranks_start_the_same_water_lose_the_same_rain_and_balance_it_as_one(one_and_two):
    one, two = one_and_two[1].balance, one_and_two[2].balance

    assert "Distributed over 2 ranks" in (one_and_two[2].output / "run.log").read_text()
    assert one["initial_m3"] > 0 and one["losses_m3"] > 0 and one["boundary_in_m3"] > 0
    for key in ("initial_m3", "rainfall_m3", "losses_m3", "boundary_in_m3", "boundary_out_m3", "final_m3"):
        assert two[key] == pytest.approx(one[key], rel=1e-6, abs=1e-9), key
    assert abs(two["error_m3"]) < 1e-6 * (two["initial_m3"] + two["came_in_m3"])


def test_two_ranks_hold_each_edges_stage_at_every_gauge_as_one_does(one_and_two):
    for x in GAUGES:
        one, two = one_and_two[1].gauge(x)["stage"], one_and_two[2].gauge(x)["stage"]
        assert np.max(np.abs(np.asarray(one) - np.asarray(two))) < 1e-3, x
