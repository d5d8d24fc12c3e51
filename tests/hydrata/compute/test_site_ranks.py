"""The site as built over MPI ranks: the two basins with a culvert, a weir and a walled building, run by the
simulation child serially and under `mpiexec -n 2`, must give the same results."""

import json

import numpy as np
import pytest
import rasterio

from tests.hydrata.compute.basins import at, box_culvert, make_basins_package
from tests.hydrata.compute.channel import feature
from tests.hydrata.compute.simulation.test_ranks import simulate

SITE = {
    "culvert": [box_culvert()],
    "weir": [feature("LineString", [at(20, 0), at(20, 20)], height=0.3)],
    "structure": [feature("Polygon", [[at(75, 5), at(85, 5), at(85, 15), at(75, 15), at(75, 5)]], method="Reflective")],
}


@pytest.fixture(scope="module")
def one_and_two(tmp_path_factory):
    base = tmp_path_factory.mktemp("site-ranks")
    package = make_basins_package(base / "package", duration=60, site=SITE)
    outputs = {}
    for ranks in (1, 2):
        outputs[ranks] = base / f"ranks-{ranks}"
        finished = simulate(package, outputs[ranks], ranks=ranks)
        assert finished.returncode == 0, finished.stdout + finished.stderr
    return outputs


def read(output, name: str):
    return json.loads((output / name).read_text())


def test_two_ranks_move_the_same_water_through_the_culvert_as_one(one_and_two):
    serial, parallel = (read(one_and_two[ranks], "time_series.json") for ranks in (1, 2))
    (one,), (two,) = ([line for line in series["flow_lines"] if line.get("culvert")] for series in (serial, parallel))

    assert sum(one["volume"]) > 1.0
    assert sum(two["volume"]) == pytest.approx(sum(one["volume"]), rel=1e-6)
    assert two["discharge"] == pytest.approx(one["discharge"], rel=1e-3, abs=1e-6)


def test_two_ranks_give_the_serial_runs_volumes_and_depths_with_a_weir_and_a_hole(one_and_two):
    serial, parallel = (read(one_and_two[ranks], "statistics.json") for ranks in (1, 2))
    for key in ("final_volume_m3", "volume_in_m3", "peak_depth_m"):
        assert parallel[key] == pytest.approx(serial[key], rel=1e-6), key
    with rasterio.open(one_and_two[1] / "max_depth.tif") as a, rasterio.open(one_and_two[2] / "max_depth.tif") as b:
        assert np.abs(a.read(1) - b.read(1)).max() <= 1e-3
