"""Subcritical flow over a bump, as ANUGA's own validation suite poses it (validation_tests/analytical_exact/
subcritical_over_bump: 4.42 m²/s over a parabolic bump 0.2 m high between x = 8 m and 12 m, a frictionless bed, the
water 2 m deep downstream), run by the simulation child: an inflow line upstream, a Dirichlet edge holding 2 m
downstream, the flume starting at rest at that stage (an initial condition). The free surface matches Bernoulli's,
h + q²/(2 g h²) + z = 2 + q²/(2 g 2²), to within 1 % of the depth (0.08 % seen)."""

import numpy as np
import pytest
from scipy.optimize import brentq

from tests.hydrata.compute.channel import feature
from tests.hydrata.compute.flume import Flume, at, rectangle

Q, G, WIDTH, TAILWATER = 4.42, 9.81, 1.0, 2.0
GAUGES = (4.0, 7.0, 9.0, 10.0, 11.0, 13.0, 18.0, 22.0)
ENERGY = TAILWATER + Q**2 / (2 * G * TAILWATER**2)


def bump(x: np.ndarray) -> np.ndarray:
    return np.where((x >= 8) & (x <= 12), 0.2 - 0.05 * (x - 10) ** 2, 0.0)


def bernoulli_depth(x: float) -> float:
    """The subcritical root of h + q²/(2 g h²) + z(x) = E."""
    z = float(bump(np.array([x]))[0])
    return brentq(lambda h: h + Q**2 / (2 * G * h * h) + z - ENERGY, 1.0, 3.0)


@pytest.fixture(scope="module")
def bump_run(tmp_path_factory):
    flume = Flume(
        length=25.0,
        width=WIDTH,
        bed=bump,
        cell=0.05,
        downstream={"boundary": "Dirichlet", "stage": TAILWATER},
        layers={
            "initial_condition": [rectangle(-1, -1, 26, WIDTH + 1, stage=TAILWATER)],
            "inflow": [feature("LineString", [at(0.5, 0), at(0.5, WIDTH)], type="Surface", data=Q * WIDTH)],
        },
        gauges_x=GAUGES,
    )
    return flume.run(tmp_path_factory.mktemp("bump"), resolution=0.25, duration=150, yield_seconds=10)


def test_subcritical_flow_over_a_bump_follows_bernoullis_free_surface_within_one_percent(bump_run):
    for x in GAUGES:
        expected = bernoulli_depth(x)
        assert bump_run.last(x, "depth") == pytest.approx(expected, rel=0.01), x
    assert bernoulli_depth(10.0) == pytest.approx(1.7073, abs=1e-4)  # the surface dips 9 cm over the crest


def test_the_flow_over_the_bump_carries_the_inflow(bump_run):
    for x in (4.0, 10.0, 18.0):
        assert bump_run.last(x, "depth") * bump_run.last(x, "speed") == pytest.approx(Q, rel=0.01), x
