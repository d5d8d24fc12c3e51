"""The units of a time series, in pure maths: the spellings accepted, the three forms of rain turned into one rate,
and what the model applies of a series (depth and peak intensity, volume and peak flow)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hydrata.compute.errors import SeriesUnitsError
from hydrata.compute.scenario import series_units
from hydrata.compute.scenario.package import PackageError
from hydrata.compute.scenario.series_units import (
    MM_CUMULATIVE,
    MM_PER_HOUR,
    MM_PER_INTERVAL,
    applied,
    rates,
    units_canonical,
    units_for_series_type,
    units_for_use,
)
from hydrata.compute.simulation.forcing import series_function

STEP = 300.0  # five-minute rows


def stamp(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"2024-01-01T{hours:02d}:{minutes:02d}:{rest:02d}Z"


def rows(times, values) -> list[dict]:
    return [{"timestamp": stamp(t), "value": float(v)} for t, v in zip(times, values, strict=True)]


# --- spellings -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("mm/hr", MM_PER_HOUR),
        ("mm/h", MM_PER_HOUR),
        (" MM/Hour ", MM_PER_HOUR),
        ("mm  per   hour", MM_PER_HOUR),
        ("mm per interval", MM_PER_INTERVAL),
        ("mm/interval", MM_PER_INTERVAL),
        ("mm/time step", MM_PER_INTERVAL),
        ("cumulative mm", MM_CUMULATIVE),
        ("mm (cumulative)", MM_CUMULATIVE),
        ("m³/s", "m3/s"),
        ("cumecs", "m3/s"),
        ("Metres", "m"),
    ],
)
def test_each_spelling_engineers_write_is_read_as_its_one_canonical_unit(written, canonical):
    assert units_canonical(written) == canonical


@pytest.mark.parametrize("written", ["mm", "in/hr", "mm/d", "l/s", "", "ft", "mm/hr/hr", "mmhr"])
def test_a_rain_unit_that_is_not_known_exactly_is_refused_with_the_three_that_are(written):
    with pytest.raises(SeriesUnitsError) as refused:
        units_for_series_type("hyetograph", written)

    assert refused.value.code == "UNKNOWN_UNITS"
    assert refused.value.extra["accepted"] == ["mm/hr", "mm/interval", "mm cumulative"]
    assert all(name in refused.value.message for name in ("mm/hr", "mm/interval", "mm cumulative"))


def test_each_series_type_takes_only_its_own_units_and_a_generic_series_keeps_any_text():
    assert units_for_series_type("hydrograph", "m^3/s") == "m3/s"
    assert units_for_series_type("stage", "meters") == "m"
    assert units_for_series_type("generic", "  kPa ") == "kPa"
    assert units_for_series_type("generic", "mm/h") == "mm/hr"
    for series_type, wrong in (("hydrograph", "mm/hr"), ("stage", "m3/s"), ("hyetograph", "m")):
        with pytest.raises(SeriesUnitsError) as refused:
            units_for_series_type(series_type, wrong)
        assert refused.value.code == "UNKNOWN_UNITS"


def test_a_forcing_refuses_a_series_in_another_kind_of_unit_and_takes_one_without_units_in_its_own():
    assert units_for_use(None, use="rain", name="old") == "mm/hr"
    assert units_for_use("cumulative mm", use="rain", name="s") == "mm cumulative"
    with pytest.raises(SeriesUnitsError) as refused:
        units_for_use("m3/s", use="rain", name="Creek")
    assert refused.value.extra["accepted"] == ["mm/hr", "mm/interval", "mm cumulative"] and "Creek" in str(
        refused.value
    )


# --- the three forms of rain -----------------------------------------------------------------------------------


def test_a_constant_storm_in_the_three_rain_units_is_the_same_rate_at_every_instant():
    times = np.arange(0, 1800 + STEP, STEP)
    per_hour = series_function(rows([0, 1800], [36, 36]), start=None, units=MM_PER_HOUR)
    per_interval = series_function(rows(times, [0, *[3] * 6]), start=None, units=MM_PER_INTERVAL)
    cumulative = series_function(rows(times, np.arange(0, 21, 3)), start=None, units=MM_CUMULATIVE)

    for t in (-1.0, 0.0, 1.0, 299.9, 300.0, 1000.0, 1799.9, 1800.1, 5000.0):
        expected = 36.0 if 0 <= t < 1800 else 0.0
        assert per_interval(t) == pytest.approx(expected) and cumulative(t) == pytest.approx(expected)
        assert per_hour(t) == pytest.approx(expected if t <= 1800 else 0.0)
    for function in (per_hour, per_interval, cumulative):
        assert function.integral(0, 1800) / 3600 == pytest.approx(18.0)


def test_a_depth_per_interval_falls_evenly_over_the_interval_that_ends_at_its_row():
    # 6 mm in the five minutes to 00:05, then 12 mm to 00:10: 72 then 144 mm/hr
    function = series_function(rows([0, 300, 600], [0, 6, 12]), start=None, units=MM_PER_INTERVAL)

    assert [function(t) for t in (0, 150, 299, 300, 599, 600)] == pytest.approx([72, 72, 72, 144, 144, 0])


def test_a_first_row_with_rain_covers_an_interval_as_long_as_the_second_and_the_series_starts_there():
    function = series_function(rows([300, 600], [6, 12]), start=None, units=MM_PER_INTERVAL)

    assert function(0) == pytest.approx(72) and function(300) == pytest.approx(144) and function(600) == 0
    assert function.integral(0, 600) / 3600 == pytest.approx(18)


def test_cumulative_rain_is_the_same_rain_as_its_differences_in_mm_per_interval():
    times = [0, 300, 900, 1000, 2400]
    totals = [0, 2.5, 2.5, 10, 31]
    cumulative = rates(times, totals, MM_CUMULATIVE)
    per_interval = rates(times, [0, *np.diff(totals)], MM_PER_INTERVAL)

    assert np.array_equal(cumulative.times, per_interval.times)
    assert np.allclose(cumulative.values, per_interval.values)
    assert applied(cumulative, MM_CUMULATIVE) == pytest.approx({"total_depth_mm": 31, "peak_intensity_mm_per_h": 270})


def test_cumulative_rain_counts_from_its_first_row_whatever_that_reads():
    assert applied(rates([0, 600], [120, 130], MM_CUMULATIVE), MM_CUMULATIVE)["total_depth_mm"] == pytest.approx(10)


def test_decreasing_cumulative_rain_is_refused_naming_the_first_row_that_falls():
    with pytest.raises(SeriesUnitsError) as refused:
        rates([0, 300, 600, 900], [0, 5, 4, 3], MM_CUMULATIVE)

    assert refused.value.code == "CUMULATIVE_DECREASES" and refused.value.extra["row"] == 2
    assert "4 mm" in refused.value.message and "5 mm" in refused.value.message


def test_negative_rain_is_refused_in_every_rain_unit_and_a_single_row_in_mm_per_interval_has_no_interval():
    for units in (MM_PER_HOUR, MM_PER_INTERVAL, MM_CUMULATIVE):
        with pytest.raises(SeriesUnitsError) as refused:
            rates([0, 300], [1, -1], units)
        assert refused.value.code == "NEGATIVE_RAIN" and refused.value.extra["row"] == 1
    with pytest.raises(SeriesUnitsError) as refused:
        rates([0], [4], MM_PER_INTERVAL)
    assert refused.value.code == "INTERVAL_UNKNOWN"
    assert applied(rates([0], [0], MM_PER_INTERVAL), MM_PER_INTERVAL)["total_depth_mm"] == 0
    with pytest.raises(SeriesUnitsError) as refused:  # a hand-made package's numeric times may repeat
        rates([0, 300, 300], [0, 1, 2], MM_CUMULATIVE)
    assert refused.value.code == "INTERVAL_UNKNOWN" and refused.value.extra["row"] == 2


def test_a_refusal_inside_the_model_names_the_series():
    with pytest.raises(PackageError, match=r"'storm'.*never decreases"):
        series_function(rows([0, 300], [5, 4]), start=None, units=MM_CUMULATIVE, name="storm")


@settings(max_examples=200, deadline=None)
@given(
    spans=st.lists(st.integers(min_value=1, max_value=7200), min_size=1, max_size=30),
    depths=st.lists(st.floats(min_value=0, max_value=200, allow_nan=False), min_size=31, max_size=31),
    first=st.floats(min_value=0, max_value=50, allow_nan=False),
)
def test_any_storm_gives_the_same_depth_and_peak_in_mm_per_interval_cumulative_and_as_intensities(spans, depths, first):
    times = np.concatenate([[0.0], np.cumsum(spans)]).astype(float)
    depth = np.array([first, *depths[: len(spans)]])
    per_interval = rates(times, depth, MM_PER_INTERVAL)
    # the same storm, cumulative from one interval before the first row
    before = times[0] - (times[1] - times[0]) if depth[0] else None
    stamps = times if before is None else np.concatenate([[before], times])
    totals = np.cumsum(depth) if before is None else np.concatenate([[0.0], np.cumsum(depth)])
    cumulative = rates(stamps, totals - (totals[0] if before is None else 0), MM_CUMULATIVE)

    figures = applied(per_interval, MM_PER_INTERVAL)
    assert figures == pytest.approx(applied(cumulative, MM_CUMULATIVE))
    assert figures["total_depth_mm"] == pytest.approx(depth.sum() if before is not None else depth[1:].sum())
    intensities = depth[1:] / np.diff(times) * 3600
    assert figures["peak_intensity_mm_per_h"] == pytest.approx(
        max(intensities.max(), depth[0] / (times[1] - times[0]) * 3600)
    )
    for t in np.linspace(stamps[0] - 10, stamps[-1] + 10, 57):
        assert value_at(cumulative, t) == pytest.approx(value_at(per_interval, t), abs=1e-9)


def value_at(series: series_units.Rates, t: float) -> float:
    """The rate at t, read directly off the knots."""
    if not series.times[0] <= t <= series.times[-1]:
        return 0.0
    if series.steps:
        return float(series.values[np.searchsorted(series.times, t, side="right") - 1])
    return float(np.interp(t, series.times, series.values))


@settings(max_examples=200, deadline=None)
@given(
    spans=st.lists(st.integers(min_value=1, max_value=7200), min_size=1, max_size=30),
    values=st.lists(st.floats(min_value=0, max_value=500, allow_nan=False), min_size=31, max_size=31),
    window=st.tuples(st.floats(min_value=-1e4, max_value=2e5), st.floats(min_value=0, max_value=2e5)),
)
def test_what_a_window_of_a_series_applies_adds_up_and_peaks_where_its_rate_does(spans, values, window):
    times = np.concatenate([[0.0], np.cumsum(spans)]).astype(float)
    start, end = window[0], window[0] + window[1]
    for units in (MM_PER_HOUR, MM_PER_INTERVAL, MM_CUMULATIVE):
        written = np.array(values[: len(times)])
        series = rates(times, np.cumsum(written) if units == MM_CUMULATIVE else written, units)
        figures = applied(series, units, start=start, end=end)
        whole = applied(series, units)["total_depth_mm"]
        before = applied(series, units, end=start)["total_depth_mm"]
        after = applied(series, units, start=end)["total_depth_mm"]

        assert before + figures["total_depth_mm"] + after == pytest.approx(whole, rel=1e-9, abs=1e-9)
        sampled = max(value_at(series, t) for t in np.linspace(start, end, 501))
        assert sampled - 1e-9 <= figures["peak_intensity_mm_per_h"] <= float(np.max(series.values)) + 1e-9


def test_flow_is_a_volume_and_a_peak_and_a_level_its_range():
    flow = rates([0, 600, 1200], [0, 10, 0], "m3/s")
    assert applied(flow, "m3/s") == pytest.approx({"volume_m3": 6000, "peak_m3_per_s": 10})
    assert applied(flow, "m3/s", start=0, end=600) == pytest.approx({"volume_m3": 3000, "peak_m3_per_s": 10})
    assert applied(rates([0, 60], [1.5, 2.5], "m"), "m") == {"min_m": 1.5, "max_m": 2.5}


def test_an_intensity_series_integrates_to_zero_outside_its_rows_and_from_its_first_value_at_its_first_row():
    series = rates([100, 200], [36, 36], MM_PER_HOUR)
    assert series.integral(-1000, 100) == 0 and series.integral(200, 1000) == 0
    assert series.integral(-1000, 1000) == pytest.approx(3600)
