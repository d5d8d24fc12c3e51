import numpy as np
import pytest
import rasterio
from rasterio.transform import from_origin

from hydrata.compute.comparisons.envelope import (
    central_value,
    design_envelope,
    ensemble_table,
    envelope,
    envelope_figures,
    envelope_rasters,
)

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


def write_raster(path, values, *, nodata=-9999.0):
    profile = {
        "driver": "GTiff",
        "height": values.shape[0],
        "width": values.shape[1],
        "count": 1,
        "dtype": "float32",
        "crs": "EPSG:28356",
        "transform": from_origin(250000, 6272000, 2.0, 2.0),
        "nodata": nodata,
    }
    with rasterio.open(path, "w", **profile) as sink:
        sink.write(np.where(np.isnan(values), nodata, values).astype(np.float32), 1)
    return path


def read(path):
    with rasterio.open(path) as source:
        return source.read(1, masked=True).astype(np.float64).filled(np.nan)


@pytest.mark.parametrize("statistic", ["median", "mean"])
def test_the_envelope_rasters_streamed_in_windows_equal_numpy_over_the_members_own_rasters(tmp_path, statistic):
    rng = np.random.default_rng(29)
    durations, patterns, shape = (10, 30, 60), 10, (37, 23)
    members = {}
    for duration in durations:
        for pattern in range(patterns):
            values = rng.gamma(2.0, 0.3, size=shape)
            values[rng.random(shape) < 0.2] = 0.0  # dry cells
            values[:3, :3] = np.nan  # outside the model
            members[duration, pattern] = write_raster(tmp_path / f"d{duration}p{pattern}.tif", values)
    rasters = {"max_depth": {d: [members[d, p] for p in range(patterns)] for d in durations}}

    # A budget of a few rows per window: the rasters are read and written in many windows.
    written = envelope_rasters(
        rasters, destination=tmp_path / "out", critical_of="max_depth", statistic=statistic, cell_budget=2000
    )

    # Independently: every member's whole raster, numpy's reductions, the max over durations and its first arg.
    reduce = np.median if statistic == "median" else np.mean
    stacks = {d: np.stack([read(members[d, p]) for p in range(patterns)]) for d in durations}
    centrals = np.stack([reduce(stacks[d], axis=0) for d in durations])
    expected_peak = np.max(centrals, axis=0)
    expected_critical = np.array(durations, dtype=np.float64)[np.argmax(np.nan_to_num(centrals, nan=-1), axis=0)]
    expected_critical[~(expected_peak > 0)] = np.nan
    assert np.allclose(read(written["max_depth"]), expected_peak.astype(np.float32), equal_nan=True)
    assert np.array_equal(read(written["critical_duration"]), expected_critical, equal_nan=True)
    assert np.isnan(read(written["max_depth"])[:3, :3]).all()


def test_a_raster_built_so_that_one_duration_is_critical_finds_it_everywhere_it_is_wet(tmp_path):
    shape = (8, 9)
    # The 30-minute storms' median is 1.5 m everywhere; the 10- and 60-minute storms' at most 1.2 m, though one
    # 60-minute pattern peaks higher than any 30-minute one (an outlier the median leaves out).
    peaks = {10: [0.6, 0.8, 1.0], 30: [1.4, 1.5, 1.6], 60: [1.1, 1.2, 3.0]}
    rasters = {"max_depth": {d: [] for d in peaks}}
    for duration, values in peaks.items():
        for index, value in enumerate(values):
            path = write_raster(tmp_path / f"{duration}-{index}.tif", np.full(shape, value))
            rasters["max_depth"][duration].append(path)

    written = envelope_rasters(rasters, destination=tmp_path / "out", critical_of="max_depth")

    assert (read(written["critical_duration"]) == 30).all()
    assert np.allclose(read(written["max_depth"]), 1.5)


def test_a_gauges_table_gives_each_durations_peaks_the_critical_duration_and_the_pattern_nearest_the_median():
    peaks = {
        10: {1: 0.6, 2: 0.8, 3: 1.0},
        30: {1: 1.4, 2: 1.62, 3: 1.5, 4: 1.3},  # median 1.45: pattern 3 (1.5) and 1 (1.4) are as near; the larger
        60: {1: 1.1, 2: 1.2, 3: 3.0},
    }

    table = ensemble_table(peaks)

    assert [row["central"] for row in table["durations"]] == pytest.approx([0.8, 1.45, 1.2])
    assert table["durations"][1]["peaks"] == [1.4, 1.62, 1.5, 1.3]
    assert (table["critical_duration_min"], table["pattern"]) == (30, 3)
    assert table["design_value"] == pytest.approx(1.45)
    assert ensemble_table(peaks, statistic="mean")["critical_duration_min"] == 60  # the outlier lifts the mean


def written_envelopes(tmp_path, **layers):
    return {
        name: write_raster(tmp_path / f"{name}.tif", np.asarray(values, dtype=np.float64))
        for name, values in layers.items()
    }


def test_an_aeps_figures_are_its_envelopes_peaks_and_flooded_areas_by_depth_band_hazard_class_and_critical_duration(
    tmp_path,
):
    # 2 m cells (4 m²). Off the model, dry, a film under 1 cm, then three flooded cells.
    written = written_envelopes(
        tmp_path,
        max_depth=[[NAN, 0.0, 0.005], [0.2, 0.6, 2.5]],
        max_stage=[[NAN, 99.0, 50.0], [10.2, 10.6, 12.5]],  # a dry cell's level is no flood level
        max_speed=[[NAN, 0.0, 7.0], [0.5, 1.5, 0.9]],
        max_hazard=[[NAN, 0.0, 0.0], [1.0, 2.5, 6.0]],  # 2.5: the median of two classes counts in the upper
        critical_duration=[[NAN, NAN, 30.0], [30.0, 60.0, 60.0]],
    )

    figures = envelope_figures(written, durations=[10, 30, 60])

    assert figures["peak_depth_m"] == pytest.approx(2.5)
    assert figures["peak_depth_at"] == {"x": 250005.0, "y": 6271997.0}  # row 1, column 2's centre
    assert figures["peak_stage_m"] == pytest.approx(12.5) and figures["peak_stage_at"] == figures["peak_depth_at"]
    assert figures["peak_speed_m_s"] == pytest.approx(1.5)
    assert figures["cell_area_m2"] == 4.0 and figures["flooded_area_m2"] == 12.0
    assert figures["flooded_area_m2_by_depth_band"] == {
        "0.01-0.15": 0.0,
        "0.15-0.3": 4.0,
        "0.3-0.5": 0.0,
        "0.5-1.0": 4.0,
        "1.0-2.0": 0.0,
        ">2.0": 4.0,
    }
    assert figures["hazard_area_m2_by_class"] == {"H1": 4.0, "H2": 0.0, "H3": 4.0, "H4": 0.0, "H5": 0.0, "H6": 4.0}
    assert figures["critical_durations"] == [
        {"duration_min": 10, "area_m2": 0.0, "share_pct": 0.0},
        {"duration_min": 30, "area_m2": 4.0, "share_pct": pytest.approx(100 / 3)},
        {"duration_min": 60, "area_m2": 8.0, "share_pct": pytest.approx(200 / 3)},
    ]


def test_a_dry_aep_has_no_peaks_and_no_flooded_area(tmp_path):
    dry = [[0.0, 0.0]]
    written = written_envelopes(
        tmp_path, max_depth=dry, max_stage=[[5.0, 6.0]], max_speed=dry, max_hazard=dry, critical_duration=[[NAN, NAN]]
    )

    figures = envelope_figures(written, durations=[30])

    assert figures["peak_depth_m"] == 0.0 and figures["peak_stage_m"] is None and figures["peak_stage_at"] is None
    assert figures["flooded_area_m2"] == 0.0 and figures["critical_durations"][0]["share_pct"] == 0.0


def test_an_aeps_figures_read_in_windows_equal_numpy_over_the_whole_rasters(tmp_path):
    rng = np.random.default_rng(48)
    shape = (41, 17)
    depth = rng.gamma(1.5, 0.4, size=shape)
    depth[rng.random(shape) < 0.3] = 0.0
    depth[:2, :] = NAN
    layers = {
        "max_depth": depth,
        "max_stage": 10 + depth + rng.random(shape),
        "max_speed": rng.random(shape) * 3,
        "max_hazard": np.where(depth > 0, rng.integers(2, 13, size=shape) / 2, 0.0),  # whole and half classes
        "critical_duration": np.where(depth > 0, rng.choice([10, 30, 60], size=shape), NAN),
    }
    written = written_envelopes(tmp_path, **layers)

    figures = envelope_figures(written, durations=[10, 30, 60], cell_budget=200)  # a few rows a window

    stored = {name: read(path) for name, path in written.items()}
    d = stored["max_depth"]
    flooded = d >= 0.01
    assert figures["peak_depth_m"] == pytest.approx(np.nanmax(d))
    assert figures["peak_stage_m"] == pytest.approx(stored["max_stage"][flooded].max())
    assert figures["peak_speed_m_s"] == pytest.approx(stored["max_speed"][flooded].max())
    row, col = np.unravel_index(np.nanargmax(d), d.shape)
    assert figures["peak_depth_at"] == {"x": 250000 + 2 * col + 1.0, "y": 6272000 - 2 * row - 1.0}
    assert figures["flooded_area_m2"] == 4.0 * np.count_nonzero(flooded)
    assert figures["flooded_area_m2_by_depth_band"][">2.0"] == 4.0 * np.count_nonzero(d >= 2.0)
    classes = np.ceil(stored["max_hazard"][flooded])
    assert figures["hazard_area_m2_by_class"] == {f"H{k}": 4.0 * np.count_nonzero(classes == k) for k in range(1, 7)}
    shares = {item["duration_min"]: item["share_pct"] for item in figures["critical_durations"]}
    for duration in (10, 30, 60):
        expected = 100 * np.count_nonzero(stored["critical_duration"][flooded] == duration) / np.count_nonzero(flooded)
        assert shares[duration] == pytest.approx(expected)
    assert sum(shares.values()) == pytest.approx(100.0)
