"""Where the water starts: initial-condition polygons in the simulation child, against Ritter's dam break on a dry
bed and a lake at rest over bumpy ground, and the volume balance that reads initial + in - out = final."""

import math

import numpy as np
import pytest

from hydrata.compute.scenario.package import PackageError
from hydrata.compute.simulation.water_state import initial_level, initial_stage
from tests.hydrata.compute.flume import Flume, rectangle
from tests.run_files import assert_statistics_match_the_files

G = 9.81
H0, X_DAM, T_RITTER = 1.0, 50.0, 5.0
RITTER_GAUGES = tuple(float(x) for x in range(33, 80, 3))
RITTER_TOLERANCE_M = 0.01  # the largest depth error at any gauge, 1 % of the depth behind the dam (0.0093 m seen)


def ritter_depth(x: float, t: float) -> float:
    """Ritter's depth on a dry, flat, frictionless bed, a dam of H0 at X_DAM removed at t = 0."""
    c0 = math.sqrt(G * H0)
    xi = (x - X_DAM) / t
    if xi <= -c0:
        return H0
    if xi >= 2 * c0:
        return 0.0
    return (2 * c0 - xi) ** 2 / (9 * G)


@pytest.fixture(scope="module")
def dam_break(tmp_path_factory):
    flume = Flume(
        length=100.0,
        width=1.0,
        layers={"initial_condition": [rectangle(-1, -1, X_DAM, 2, depth=H0)]},
        gauges_x=RITTER_GAUGES,
    )
    return flume.run(tmp_path_factory.mktemp("dam"), resolution=0.4, duration=T_RITTER, yield_seconds=0.5)


def test_a_dam_break_on_a_dry_bed_follows_ritters_depths(dam_break):
    errors = [abs(dam_break.at_time(x, "depth", T_RITTER) - ritter_depth(x, T_RITTER)) for x in RITTER_GAUGES]

    assert max(errors) < RITTER_TOLERANCE_M, errors
    assert dam_break.at_time(33.0, "depth", T_RITTER) == pytest.approx(H0, abs=0.005)  # the wave is not there yet
    assert dam_break.at_time(72.0, "depth", T_RITTER) > 0.02  # and the front has (Ritter: 0.039 m)


def test_the_volume_balance_reads_initial_plus_in_minus_out_equals_final(dam_break):
    balance = dam_break.balance

    assert balance["initial_m3"] == pytest.approx(H0 * X_DAM * 1.0, rel=0.01)
    assert balance["came_in_m3"] == 0 and balance["boundary_out_m3"] == 0
    assert balance["initial_m3"] + balance["came_in_m3"] - balance["boundary_out_m3"] == pytest.approx(
        balance["final_m3"], rel=1e-9
    )
    assert dam_break.statistics["mass_balance_error_pct"] < 1e-6
    assert abs(dam_break.statistics["health"]["mass_error"]["final_pct"]) < 1e-6  # of the water it started with


BUMPS = lambda x: 0.4 + 0.3 * np.sin(x / 2.0) + 0.2 * np.cos(x / 0.7)  # noqa: E731


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    """A lake at 0.75 m over ground from 0 to 0.9 m: a tenth of it stands above the water, as islands."""
    flume = Flume(
        length=40.0,
        width=4.0,
        bed=BUMPS,
        mannings=0.03,
        layers={"initial_condition": [rectangle(-1, -1, 41, 5, stage=0.75)]},
        gauges_x=(5.0, 13.0, 21.0, 33.0),
    )
    return flume.run(tmp_path_factory.mktemp("lake"), resolution=0.5, duration=100, yield_seconds=10)


def test_a_lake_at_rest_over_bumpy_ground_with_islands_stays_at_rest(lake):
    assert lake.statistics["peak_speed_m_s"] < 1e-6  # 8e-14 m/s seen
    for x in (13.0, 21.0, 33.0):
        assert lake.last(x, "stage") == pytest.approx(0.75, abs=1e-9)
    assert lake.last(5.0, "depth") == 0.0  # an island (0.78 m) stays dry


def test_the_first_polygon_sets_a_stage_or_a_depth_and_elsewhere_the_ground_is_dry():
    xy = np.array([[1.0, 1.0], [5.0, 1.0], [9.0, 1.0], [1.5, 1.5]])
    ground = np.array([0.0, 0.5, 3.0, 2.0])
    first = rectangle(0, 0, 2, 2, stage=1.0)  # flume coordinates are offset; use plain ones here
    features = [
        {**first, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]]]}},
        {**first, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [6, 0], [6, 2], [0, 2], [0, 0]]]}}
        | {"properties": {"depth": 0.25}},
    ]

    stage = initial_stage(xy, ground, features)

    assert stage.tolist() == [1.0, 0.75, 3.0, 2.0]  # the stage below the ground at [1.5, 1.5] leaves it dry


@pytest.mark.parametrize(
    "properties, problem",
    [
        ({}, "neither a stage nor a depth"),
        ({"stage": 1, "depth": 1}, "both a stage and a depth"),
        ({"depth": -0.1}, "depth=-0.1"),
        ({"stage": "high"}, "stage='high'"),
    ],
)
def test_an_initial_condition_without_one_good_level_is_refused_by_name(properties, problem):
    with pytest.raises(PackageError, match=rf"Initial condition feature 3.*{problem}"):
        initial_level(3, {"properties": properties})
    assert initial_level(0, {"properties": {"depth": 0}}) == ("depth", 0.0)


def test_the_dam_break_agrees_with_the_files_it_wrote(dam_break):
    assert_statistics_match_the_files(
        dam_break.statistics, sww=dam_break.output / "run.sww", max_depth=dam_break.output / "max_depth.tif"
    )
