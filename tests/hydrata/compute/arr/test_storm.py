import pytest

from hydrata.compute.arr.storm import burst_initial_loss, design_storm
from hydrata.compute.scenario.series_units import MM_PER_INTERVAL, applied, rates

# Worked by hand: 40 mm x ARF 0.9 x climate 1.25 = 45 mm over four 15-minute steps of 10, 40, 30 and 20 %:
# rain 4.5, 18, 13.5, 9. The 10 mm initial loss takes the first 4.5 and 5.5 of the second; the continuing loss
# of 4 mm/h is 1 mm a step: excess 0 (the first step had nothing left), 11.5, 12.5, 8.
HAND = {
    "depth_mm": 40.0,
    "areal_reduction_factor": 0.9,
    "climate_factor": 1.25,
    "increments_pct": (10.0, 40.0, 30.0, 20.0),
    "time_step_min": 15,
    "initial_loss_mm": 10.0,
    "continuing_loss_mm_h": 4.0,
}


def test_the_burst_is_the_ifd_depth_times_the_factors_spread_by_the_pattern():
    storm = design_storm(**HAND)
    assert storm.rain_mm == pytest.approx((4.5, 18.0, 13.5, 9.0))
    assert storm.rain_depth_mm == pytest.approx(45.0)


def test_the_initial_loss_is_used_up_first_then_the_continuing_loss_from_each_step():
    storm = design_storm(**HAND)
    assert storm.excess_mm == pytest.approx((0.0, 11.5, 12.5, 8.0))
    assert storm.excess_depth_mm == pytest.approx(45.0 - 10.0 - 3 * 1.0)
    assert storm.peak_excess_mm_per_h == pytest.approx(12.5 * 4)


def test_the_continuing_loss_never_makes_a_step_negative():
    storm = design_storm(**{**HAND, "initial_loss_mm": 0.0, "continuing_loss_mm_h": 40.0})  # 10 mm a step
    assert storm.excess_mm == pytest.approx((0.0, 8.0, 3.5, 0.0))
    assert min(storm.excess_mm) >= 0.0


def test_an_initial_loss_larger_than_the_storm_leaves_no_excess():
    storm = design_storm(**{**HAND, "initial_loss_mm": 100.0})
    assert storm.excess_mm == (0.0, 0.0, 0.0, 0.0)
    assert storm.rain_depth_mm == pytest.approx(45.0)


def test_increments_published_to_two_decimals_still_give_the_whole_burst_depth():
    storm = design_storm(**{**HAND, "increments_pct": (33.33, 33.33, 33.33), "initial_loss_mm": 0.0})
    assert storm.rain_depth_mm == pytest.approx(45.0)


def test_the_burst_initial_loss_is_the_storms_less_its_preburst_and_never_negative():
    assert burst_initial_loss(storm_initial_loss_mm=28.0, preburst_mm=8.0) == 20.0
    assert burst_initial_loss(storm_initial_loss_mm=5.0, preburst_mm=8.0) == 0.0


def test_the_excess_as_a_series_in_mm_per_interval_is_what_the_model_applies():
    storm = design_storm(**HAND)
    times, values = storm.series_mm_per_interval()

    model = applied(rates(times, values, MM_PER_INTERVAL), MM_PER_INTERVAL)

    assert times == [0.0, 900.0, 1800.0, 2700.0, 3600.0] and values == pytest.approx([0.0, 0.0, 11.5, 12.5, 8.0])
    assert model["total_depth_mm"] == pytest.approx(storm.excess_depth_mm)
    assert model["peak_intensity_mm_per_h"] == pytest.approx(storm.peak_excess_mm_per_h)
