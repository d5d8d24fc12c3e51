"""The comparison maths on numbers small enough to check by hand."""

import math

import pytest

from hydrata.compute.comparisons.comparison import (
    PEAK_DEPTH,
    PEAK_STAGE,
    Observed,
    Peaks,
    compare,
    differing_settings,
    metrics,
    observations_fingerprint,
    point_row,
    ranking_key,
)


def stage(observation_id: int, value: float, tolerance: float = 0.3) -> Observed:
    return Observed(observation_id=observation_id, quantity=PEAK_STAGE, value=value, tolerance=tolerance)


def test_the_error_is_modelled_minus_observed_and_the_quantity_picks_stage_or_depth():
    peaks = Peaks(stage=12.5, depth=0.8)

    as_stage = point_row(stage(1, 12.0), peaks)
    as_depth = point_row(Observed(observation_id=2, quantity=PEAK_DEPTH, value=1.0, tolerance=0.1), peaks)

    assert as_stage["modelled"] == 12.5 and as_stage["error"] == 0.5 and as_stage["within_tolerance"] is False
    assert as_depth["modelled"] == 0.8 and as_depth["error"] == -0.2 and as_depth["within_tolerance"] is False
    assert as_stage["wet"] is True and as_stage["in_model"] is True


def test_an_error_exactly_at_the_tolerance_is_within_it():
    assert point_row(stage(1, 10.0, tolerance=0.3), Peaks(stage=10.3, depth=0.5))["within_tolerance"] is True


def test_a_point_the_model_never_wetted_keeps_its_error_and_is_flagged_dry():
    # where it stayed dry the maximum stage is the ground itself
    row = point_row(stage(1, 10.4), Peaks(stage=10.0, depth=0.0))

    assert row["wet"] is False and row["error"] == -0.4 and row["modelled"] == 10.0


def test_a_point_off_the_model_has_no_modelled_value_and_stays_out_of_the_metrics():
    rows, result = compare([stage(1, 10.0), stage(2, 5.0)], [Peaks(stage=10.2, depth=0.3), Peaks(None, None)])

    assert rows[1] == {
        "observation_id": 2,
        "quantity": PEAK_STAGE,
        "observed": 5.0,
        "tolerance": 0.3,
        "modelled": None,
        "error": None,
        "within_tolerance": None,
        "wet": None,
        "in_model": False,
    }
    assert result["n"] == 1 and result["outside_model"] == 1 and result["bias"] == 0.2


def test_the_metrics_of_three_errors_match_their_definitions():
    errors = [0.1, -0.2, 0.4]
    rows = [point_row(stage(i, 10.0), Peaks(stage=10.0 + e, depth=1.0)) for i, e in enumerate(errors)]

    result = metrics(rows)

    assert result["n"] == 3
    assert result["bias"] == pytest.approx(sum(errors) / 3, abs=1e-4)
    assert result["mae"] == pytest.approx(0.7 / 3, abs=1e-4)
    assert result["rmse"] == pytest.approx(math.sqrt((0.01 + 0.04 + 0.16) / 3), abs=1e-4)
    assert result["max_abs_error"] == pytest.approx(0.4)
    assert result["within_tolerance"] == 2 and result["within_tolerance_share"] == pytest.approx(2 / 3, abs=1e-4)
    assert result["dry"] == 0 and result["outside_model"] == 0


def test_every_statistic_is_over_the_points_the_model_covers_dry_ones_included_and_never_over_all_points():
    # Five points: two wet (one within tolerance), one dry (within), two off the model. Each near miss of a
    # denominator gives another number: all five points, or the wet ones only.
    observed = [stage(1, 10.0), stage(2, 10.0), stage(3, 10.2), stage(4, 9.0), stage(5, 9.0)]
    peaks = [Peaks(10.1, 0.6), Peaks(9.5, 0.4), Peaks(10.0, 0.0), Peaks(None, None), Peaks(None, None)]

    _, result = compare(observed, peaks)

    assert (result["n"], result["outside_model"], result["dry"], result["within_tolerance"]) == (3, 2, 1, 2)
    assert result["within_tolerance_share"] == pytest.approx(2 / 3, abs=1e-4)  # not 2/5, nor 1/2 of the wet
    assert result["bias"] == pytest.approx((0.1 - 0.5 - 0.2) / 3, abs=1e-4)  # not over 5
    assert result["mae"] == pytest.approx(0.8 / 3, abs=1e-4)
    assert result["rmse"] == pytest.approx(math.sqrt((0.01 + 0.25 + 0.04) / 3), abs=1e-4)
    assert result["max_abs_error"] == pytest.approx(0.5)


def test_a_model_above_the_observations_has_a_positive_bias_and_one_below_a_negative_bias():
    high = metrics([point_row(stage(1, 10.0), Peaks(10.25, 1.0))])
    low = metrics([point_row(stage(1, 10.0), Peaks(9.75, 1.0))])

    assert (high["bias"], low["bias"]) == (0.25, -0.25)
    assert high["mae"] == low["mae"] == high["rmse"] == 0.25


def test_observations_equal_to_the_model_give_zero_errors_all_within_tolerance():
    peaks = [Peaks(stage=3.1234, depth=0.2), Peaks(stage=7.5, depth=0.0)]
    observed = [stage(1, 3.1234), Observed(observation_id=2, quantity=PEAK_DEPTH, value=0.0, tolerance=0.3)]

    _, result = compare(observed, peaks)

    assert (result["n"], result["bias"], result["rmse"], result["mae"], result["max_abs_error"]) == (2, 0, 0, 0, 0)
    assert result["within_tolerance"] == 2 and result["dry"] == 1


def test_no_comparable_point_gives_null_metrics_not_a_division_by_zero():
    result = metrics([])

    assert result == {
        "n": 0,
        "within_tolerance": 0,
        "outside_model": 0,
        "dry": 0,
        "bias": None,
        "mae": None,
        "rmse": None,
        "max_abs_error": None,
        "within_tolerance_share": None,
    }


def test_compare_refuses_peaks_that_do_not_pair_with_the_observations():
    with pytest.raises(ValueError, match="2 observations but 1"):
        compare([stage(1, 1.0), stage(2, 2.0)], [Peaks(1.0, 1.0)])


def test_runs_rank_by_rmse_then_mae_then_id_and_a_run_with_nothing_compared_goes_last():
    runs = {
        7: {"rmse": 0.2, "mae": 0.15},
        3: {"rmse": 0.1, "mae": 0.1},
        5: {"rmse": 0.2, "mae": 0.1},
        9: {"rmse": None, "mae": None},
        4: {"rmse": 0.2, "mae": 0.1},
    }

    order = sorted(runs, key=lambda run_id: ranking_key(run_id, runs[run_id]))

    assert order == [3, 4, 5, 7, 9]


def test_differing_settings_name_only_what_changes_between_runs():
    settings = [
        {"resolution": 5.0, "friction": {"mannings": [0.02]}, "rainfall": {"data": ["50.0"]}},
        {"resolution": 5.0, "friction": {"mannings": [0.04]}, "rainfall": {"data": ["50.0"]}},
        {"resolution": 10.0, "friction": {"mannings": [0.08]}, "rainfall": {"data": ["50.0"]}},
    ]

    assert differing_settings(settings) == ["resolution", "friction"]


def test_the_fingerprint_follows_the_observations_not_their_order():
    a = (1, PEAK_STAGE, 251100.0, 6271900.0, 10.0, 0.3)
    b = (2, PEAK_DEPTH, 251150.0, 6271950.0, 0.4, 0.3)

    assert observations_fingerprint([a, b]) == observations_fingerprint([b, a])
    assert observations_fingerprint([a, b]) != observations_fingerprint([a, (*b[:4], 0.5, 0.3)])
    assert observations_fingerprint([a, b]) != observations_fingerprint([a])
