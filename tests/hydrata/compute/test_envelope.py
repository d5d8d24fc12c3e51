import numpy as np
import pytest

from hydrata.compute.envelope import central_value, design_envelope, envelope

NAN = np.nan


def stack(*rasters):
    return np.array(rasters, dtype=np.float64)


def test_the_median_of_ten_patterns_is_taken_cell_by_cell():
    # One row of three cells; cell 0 peaks 1..10 (median 5.5), cell 1 is 2 everywhere, cell 2 is wet in 4 of 10.
    peaks = stack(*[[[k, 2.0, 1.0 if k <= 4 else 0.0]] for k in range(1, 11)])
    assert central_value(peaks).tolist() == [[5.5, 2.0, 0.0]]


def test_the_ensemble_mean_is_the_option():
    peaks = stack(*[[[k, 2.0, 1.0 if k <= 4 else 0.0]] for k in range(1, 11)])
    assert central_value(peaks, statistic="mean") == pytest.approx(np.array([[5.5, 2.0, 0.4]]))


def test_a_cell_without_a_value_in_some_patterns_takes_the_central_value_of_the_rest_and_in_none_stays_nan():
    peaks = stack([[1.0, NAN]], [[3.0, NAN]], [[NAN, NAN]])
    central = central_value(peaks)
    assert central[0, 0] == 2.0
    assert np.isnan(central[0, 1])


def test_the_envelope_is_the_maximum_over_durations_and_the_critical_duration_the_one_that_gave_it():
    centrals = {
        30: np.array([[1.0, 0.5], [0.0, NAN]]),
        60: np.array([[0.8, 0.9], [0.0, NAN]]),
        120: np.array([[0.2, 0.9], [0.0, 4.0]]),
    }
    result = envelope(centrals)
    assert result.peak[0].tolist() == [1.0, 0.9]
    assert result.peak[1, 0] == 0.0 and result.peak[1, 1] == 4.0
    assert result.critical_duration_min[0].tolist() == [30.0, 60.0]  # 60 and 120 tie at 0.9: the shorter
    assert np.isnan(result.critical_duration_min[1, 0])  # dry in every duration: none is critical
    assert result.critical_duration_min[1, 1] == 120.0  # NaN in two durations, a value in the third


def test_a_cell_without_a_value_in_any_duration_has_no_envelope_and_no_critical_duration():
    result = envelope({30: np.array([[NAN]]), 60: np.array([[NAN]])})
    assert np.isnan(result.peak[0, 0]) and np.isnan(result.critical_duration_min[0, 0])


def test_a_study_built_so_that_one_duration_is_critical_finds_it():
    # Ten patterns per duration; the 60-minute storms peak highest everywhere but one cell, where 120 does.
    rng = np.random.default_rng(29)
    base = {30: 0.5, 60: 1.5, 120: 1.0}
    peaks = {}
    for duration, level in base.items():
        patterns = level + rng.uniform(-0.2, 0.2, size=(10, 4, 5))
        peaks[duration] = patterns
    peaks[120][:, 3, 4] += 2.0
    centrals, result = design_envelope(peaks)
    expected_critical = np.full((4, 5), 60.0)
    expected_critical[3, 4] = 120.0
    assert result.critical_duration_min.tolist() == expected_critical.tolist()
    assert result.peak == pytest.approx(np.where(expected_critical == 60.0, centrals[60], centrals[120]))
    assert centrals[60] == pytest.approx(np.median(peaks[60], axis=0))
