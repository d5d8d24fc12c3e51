"""The per-triangle record of every internal step: maxima with their times, hazard of each step, inundation."""

import numpy as np
import pytest

from hydrata.compute.hazard import hazard_class
from hydrata.compute.peaks import StepState, TrianglePeaks


def step(
    time: float, depth: list[float], speed: list[float], *, timestep: float = 1.0, bed: float = 100.0
) -> StepState:
    depth_array = np.array(depth)
    return StepState(
        time=time,
        timestep=timestep,
        stage=bed + depth_array,
        elevation=np.full(len(depth), bed),
        xmomentum=depth_array * np.array(speed),
        ymomentum=np.zeros(len(depth)),
    )


def recorded(*steps: StepState, count: int = 3) -> TrianglePeaks:
    peaks = TrianglePeaks(count=count, film_m=0.01, inundation_threshold_m=0.05)
    for state in steps:
        peaks.update(state)
    return peaks


def test_maxima_keep_the_time_they_were_reached_and_never_wet_triangles_keep_none():
    peaks = recorded(step(1.0, [0.5, 0.0, 0.02], [1.0, 0.0, 3.0]), step(2.0, [0.8, 0.0, 0.01], [0.5, 0.0, 4.0]))

    assert peaks.max_depth.tolist() == pytest.approx([0.8, 0.0, 0.02])
    assert peaks.time_of_max_depth[0] == 2.0 and np.isnan(peaks.time_of_max_depth[1])
    assert peaks.max_speed.tolist() == pytest.approx([1.0, 0.0, 4.0])
    assert peaks.time_of_max_speed.tolist()[0] == 1.0 and peaks.time_of_max_speed[2] == 2.0
    assert peaks.max_stage.tolist() == pytest.approx([100.8, 100.0, 100.02]) and peaks.time_of_max_stage[1] == 1.0


def test_hazard_is_the_highest_class_of_any_one_step_not_of_the_maxima_combined():
    deep_and_slow = step(1.0, [1.5, 0.0, 0.0], [0.2, 0.0, 0.0])
    shallow_and_fast = step(2.0, [0.2, 0.0, 0.0], [3.0, 0.0, 0.0])

    peaks = recorded(deep_and_slow, shallow_and_fast)

    assert peaks.max_hazard[0] == 5  # the fast, shallow step: faster than 2 m/s
    combined = hazard_class(depth=peaks.max_depth, speed=peaks.max_speed, film_m=0.01)
    assert combined[0] == 6  # 1.5 m at 3 m/s never happened: D x V 4.5
    assert peaks.max_hazard[1] == 0  # never wet


def test_inundation_starts_when_the_depth_first_passes_the_threshold_and_lasts_while_above_it():
    steps = [
        step(t, [depth, 0.0, 0.06 if t >= 3 else 0.0], [0.0, 0.0, 0.0], timestep=0.5)
        for t, depth in ((0.5, 0.01), (1.0, 0.06), (1.5, 0.07), (2.0, 0.04), (2.5, 0.08), (3.0, 0.03))
    ]

    peaks = recorded(*steps)

    assert peaks.time_of_inundation[0] == 1.0 and np.isnan(peaks.time_of_inundation[1])
    assert peaks.duration_of_inundation[0] == 1.5  # three steps above 0.05 m, one of them after a dip
    assert peaks.time_of_inundation[2] == 3.0 and peaks.duration_of_inundation[2] == 0.5
    assert peaks.steps == 6
