"""Stage edges in the simulation child: each Dirichlet feature holds its own stage, and a river running into a
fixed tailwater stands at that tailwater beside the edge (the momentum passes through), where the old zero-momentum
edge, still there by name, stands too high."""

import numpy as np
import pytest

from hydrata.compute.scenario.package import PackageError
from hydrata.compute.simulation.boundary_edges import feature_stage, feature_tag, parsed_tag, tagged_by_feature
from hydrata.compute.spatial.geometry import boundary_ring
from tests.hydrata.compute.channel import feature
from tests.hydrata.compute.flume import Flume, at, rectangle

# A river 10 m wide on a 0.002 slope (n 0.03) carrying 2 m²/s into a tailwater 1.5 m deep (normal depth 1.19 m)
SLOPE, MANNINGS, Q_PER_M, TAILWATER_DEPTH = 0.002, 0.03, 2.0, 1.5
RIVER_LENGTH, RIVER_WIDTH, OUTLET_BED = 200.0, 10.0, 10.0
TAILWATER = OUTLET_BED + TAILWATER_DEPTH
BESIDE_THE_EDGE = RIVER_LENGTH - 1.0


def river(outlet: str) -> Flume:
    return Flume(
        length=RIVER_LENGTH,
        width=RIVER_WIDTH,
        bed=lambda x: OUTLET_BED + SLOPE * (RIVER_LENGTH - x),
        downstream={"boundary": outlet, "stage": TAILWATER},
        mannings=MANNINGS,
        layers={"inflow": [feature("LineString", [at(2, 0), at(2, RIVER_WIDTH)], type="Surface", data=Q_PER_M * 10)]},
        gauges_x=(100.0, BESIDE_THE_EDGE),
    )


@pytest.fixture(scope="module")
def rivers(tmp_path_factory):
    return {
        outlet: river(outlet).run(tmp_path_factory.mktemp(outlet), resolution=2.0, duration=600, yield_seconds=20)
        for outlet in ("Dirichlet", "DirichletZeroMomentum")
    }


def test_steady_flow_into_a_dirichlet_tailwater_stands_within_one_percent_of_the_stage_beside_the_edge(rivers):
    run = rivers["Dirichlet"]

    depth = run.last(BESIDE_THE_EDGE, "stage") - (OUTLET_BED + SLOPE * 1.0)
    assert depth == pytest.approx(TAILWATER_DEPTH, rel=0.01)
    # and it is steady: the river carries its inflow out through the edge
    assert run.last(100.0, "speed") * run.last(100.0, "depth") == pytest.approx(Q_PER_M, rel=0.03)


def test_the_zero_momentum_edge_chosen_by_name_holds_a_still_wall_of_water_that_stands_too_high(rivers):
    run = rivers["DirichletZeroMomentum"]

    depth = run.last(BESIDE_THE_EDGE, "stage") - (OUTLET_BED + SLOPE * 1.0)
    froude = Q_PER_M / TAILWATER_DEPTH / np.sqrt(9.81 * TAILWATER_DEPTH)
    assert depth > TAILWATER_DEPTH * 1.05  # h Fr / (1 + Fr) is 0.39 m here
    assert depth - TAILWATER_DEPTH < TAILWATER_DEPTH * froude / (1 + froude) * 1.5


LAKE, SEA = 1.0, 1.5


def ramp(first: float, last: float) -> dict:
    return {
        "series_type": "stage",
        "units": "m",
        "rows": [{"timestamp": 0, "value": first}, {"timestamp": 100, "value": last}],
    }


@pytest.fixture(scope="module")
def two_lakes(tmp_path_factory):
    """Two basins either side of a ridge higher than both stages, starting at 0.8 m and 1.2 m, each raised by its
    own edge's stage series over 100 s: the upstream edge to 1.0 m, the downstream edge to 1.5 m."""
    flume = Flume(
        length=30.0,
        width=6.0,
        bed=lambda x: np.where((x > 10) & (x < 20), 3.0, 0.0),
        upstream={"boundary": "Dirichlet", "stage": "lake"},
        downstream={"boundary": "Dirichlet", "stage": "sea"},
        mannings=0.03,
        layers={"initial_condition": [rectangle(-1, -1, 15, 7, stage=0.8), rectangle(15, -1, 31, 7, stage=1.2)]},
        gauges_x=(2.0, 8.0, 22.0, 28.0),
        time_series={"lake": ramp(0.8, LAKE), "sea": ramp(1.2, SEA)},
    )
    return flume.run(tmp_path_factory.mktemp("lakes"), resolution=1.0, duration=200, yield_seconds=10)


def test_two_dirichlet_edges_each_hold_their_own_stage(two_lakes):
    assert two_lakes.last(2.0, "stage") == pytest.approx(LAKE, abs=0.005)  # beside each edge
    assert two_lakes.last(28.0, "stage") == pytest.approx(SEA, abs=0.005)
    assert two_lakes.last(8.0, "stage") == pytest.approx(LAKE, abs=0.015)  # and across each lake
    assert two_lakes.last(22.0, "stage") == pytest.approx(SEA, abs=0.015)
    assert two_lakes.at_time(28.0, "stage", 50.0) == pytest.approx((1.2 + SEA) / 2, abs=0.01)  # following its series


def test_a_model_forced_only_through_its_boundary_runs_and_balances(two_lakes):
    balance = two_lakes.balance

    assert balance["rainfall_m3"] == 0 and balance["inflow_m3"] == 0
    assert balance["final_m3"] - balance["initial_m3"] == pytest.approx(10 * 6 * (0.2 + 0.3), rel=0.05)
    assert balance["initial_m3"] + balance["came_in_m3"] - balance["boundary_out_m3"] == pytest.approx(
        balance["final_m3"], rel=1e-9
    )


def test_each_dirichlet_feature_gets_a_tag_of_its_own_and_every_other_edge_its_types():
    features = Flume(
        length=10.0,
        width=5.0,
        upstream={"boundary": "Dirichlet", "stage": 1.0},
        downstream={"boundary": "DirichletZeroMomentum", "stage": 2.0},
    ).boundary()

    ring = tagged_by_feature(boundary_ring(features))

    assert sorted(ring.boundary_tags()) == ["DirichletZeroMomentum_1", "Dirichlet_3", "Reflective"]
    assert parsed_tag("Dirichlet_3") == ("Dirichlet", 3) and parsed_tag("dirichletzeromomentum_1")[1] == 1
    assert parsed_tag("Reflective") is None and parsed_tag("Reflective_2") is None and parsed_tag("Dirichlet") is None
    assert feature_tag("Dirichlet", 0) == "Dirichlet_0"
    assert feature_stage(features, 3) == 1.0 and feature_stage(features, 1) == 2.0


def test_a_dirichlet_feature_without_a_stage_or_an_edge_of_a_missing_feature_is_refused_by_name():
    features = [rectangle(0, 0, 1, 1, boundary="Dirichlet", location="External")]

    with pytest.raises(PackageError, match=r"Dirichlet boundary feature 0 has no 'stage'"):
        feature_stage(features, 0)
    with pytest.raises(PackageError, match="boundary feature 4, which the boundary layer lacks"):
        feature_stage(features, 4)
