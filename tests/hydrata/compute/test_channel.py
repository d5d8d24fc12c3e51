"""A straight uniform channel of our own design (tests/hydrata/compute/channel.py), run by the simulation child from
a dry start: a NormalDepth outlet keeps it at Manning's normal depth to its end, the flow line carries the inflow,
the inflow line makes no false peak, and the time of inundation follows the wave front down the channel."""

from itertools import pairwise

import numpy as np
import pytest

from hydrata.compute.rasters.sampling import sample_rasters
from tests.hydrata.compute.channel import (
    FLOW,
    GAUGE_X,
    INLET_X,
    NORMAL_DEPTH,
    NORMAL_SPEED,
    WIDTH,
    X0,
    Y0,
    make_channel_package,
    run_channel,
)

YIELD_SECONDS = 10.0
MIDDLE_REACH = [x for x in GAUGE_X if 100 <= x <= 300]


@pytest.fixture(scope="module")
def channel(tmp_path_factory):
    base = tmp_path_factory.mktemp("channel")
    return run_channel(make_channel_package(base / "package"), base / "output", yield_seconds=YIELD_SECONDS)


def test_a_normal_depth_outlet_keeps_the_middle_reach_at_mannings_normal_depth_and_speed(channel):
    for x in MIDDLE_REACH:
        gauge = channel.gauge(x)
        assert gauge["depth"][-1] == pytest.approx(NORMAL_DEPTH, rel=0.03), x
        assert gauge["speed"][-1] == pytest.approx(NORMAL_SPEED, rel=0.05), x
    near_outlet = channel.gauge(390)
    assert near_outlet["depth"][-1] == pytest.approx(NORMAL_DEPTH, rel=0.03)  # no backwater at the end either


def test_the_flow_line_across_the_channel_carries_the_inflow_at_steady_state(channel):
    discharge = channel.series["flow_lines"][0]["discharge"]

    assert channel.series["flow_lines"][0]["name"] == "middle"
    assert len(discharge) == len(channel.series["t"])
    assert discharge[0] == 0.0
    assert discharge[-1] == pytest.approx(FLOW, rel=0.005)


def test_an_inflow_line_on_a_dry_bed_makes_no_false_peak(channel):
    statistics = channel.statistics
    steady_at_inlet = channel.gauge(INLET_X)["depth"][-1]

    assert statistics["peak_depth_m"] == pytest.approx(steady_at_inlet, rel=0.10)
    where = statistics["peak_depth_at"]
    assert where["t"] > 10 * YIELD_SECONDS  # set by the steady flow, not by the first seconds
    assert abs(where["x"] - (X0 + INLET_X)) < 10 and Y0 <= where["y"] <= Y0 + WIDTH
    assert set(statistics["peak_speed_at"]) == {"x", "y", "t"} and set(statistics["peak_stage_at"]) == {"x", "y", "t"}


def test_time_of_inundation_rises_down_the_channel_with_the_wave_front_seen_at_the_gauges(channel):
    points = [(X0 + x, Y0 + WIDTH / 2) for x in GAUGE_X]
    rasters = {
        "arrival": channel.output / "time_of_inundation.tif",
        "duration": channel.output / "duration_of_inundation.tif",
    }
    sampled = sample_rasters(rasters=rasters, points=points, decimals=None)
    arrivals = [sample["arrival"] for sample in sampled]

    assert all(later > earlier for earlier, later in pairwise(arrivals))
    times = channel.series["t"]
    threshold = channel.statistics["inundation_threshold_m"]
    for x, arrival in zip(GAUGE_X, arrivals, strict=True):
        depths = channel.gauge(x)["depth"]
        first_wet = next(t for t, depth in zip(times, depths, strict=True) if depth > threshold)
        assert first_wet - YIELD_SECONDS - 1e-6 <= arrival <= first_wet + YIELD_SECONDS, x
    durations = np.array([sample["duration"] for sample in sampled])
    assert durations == pytest.approx(times[-1] - np.array(arrivals), abs=YIELD_SECONDS)  # wet ever after


def test_the_channel_conserves_its_water_and_says_how_much_left_through_the_outlet(channel):
    balance = channel.statistics["volume_balance"]

    assert channel.statistics["mass_balance_error_pct"] < 1.0 and channel.statistics["warnings"] == []
    assert balance["inflow_m3"] == pytest.approx(FLOW * channel.statistics["sim_seconds"], rel=1e-6)
    assert balance["rainfall_m3"] == 0 and balance["boundary_in_m3"] == pytest.approx(0.0, abs=1e-6)
    assert balance["boundary_out_m3"] > 0
    assert balance["final_m3"] == pytest.approx(balance["inflow_m3"] - balance["boundary_out_m3"], rel=1e-6)
