"""The per-triangle record of every internal step: maxima with their times, the highest hazard of any one step,
inundation."""

import numpy as np
import pytest

from hydrata.compute.outputs.hazard import hazard_class
from hydrata.compute.simulation.peaks import StepState, TrianglePeaks


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
    # above from 1.0 to 2.0 and from 2.5 to 3.0: each run counts from where it was seen above to where it was seen
    # below again
    assert peaks.duration_of_inundation[0] == 1.5
    assert peaks.time_of_inundation[2] == 3.0 and peaks.duration_of_inundation[2] == 0.0  # seen above at the end
    assert peaks.steps == 6


def test_a_triangle_wet_from_the_crossing_to_the_end_is_inundated_for_exactly_the_time_since_and_not_a_step_more():
    depths = (0.0, 0.02, 0.049, 0.051, 0.3, 0.3, 0.3)  # crosses 0.05 m in the step ending at 2.0 s
    steps = [step(0.5 * (index + 1), [depth, 0.05, 0.0], [0.0] * 3, timestep=0.5) for index, depth in enumerate(depths)]

    peaks = recorded(*steps)

    assert peaks.time_of_inundation[0] == 2.0
    assert peaks.duration_of_inundation[0] == pytest.approx(3.5 - 2.0)  # the run ends at 3.5 s
    assert np.isnan(peaks.time_of_inundation[1]) and peaks.duration_of_inundation[1] == 0.0  # at, never above


def test_inundation_counts_steps_of_any_length_from_the_end_of_the_crossing_step():
    timesteps = (0.3, 0.7, 0.2, 1.1, 0.4)
    times = np.cumsum(timesteps)
    depths = (0.0, 0.06, 0.08, 0.07, 0.04)  # above after the second step, below after the last
    peaks = recorded(
        *(step(t, [d, 0.0, 0.0], [0.0] * 3, timestep=dt) for t, d, dt in zip(times, depths, timesteps, strict=True))
    )

    assert peaks.time_of_inundation[0] == pytest.approx(times[1])
    assert peaks.duration_of_inundation[0] == pytest.approx(times[4] - times[1])  # the step that falls below counts


def test_the_recorded_hazard_and_peaks_are_those_of_classifying_and_comparing_every_step_one_by_one():
    rng = np.random.default_rng(7)
    count, film = 2000, 0.01
    bed = rng.uniform(0.0, 5.0, count)
    peaks = TrianglePeaks(count=count, film_m=film, inundation_threshold_m=0.05)
    step_classes, depths, speeds = [], [], []
    for index in range(8):
        depth = np.clip(rng.normal(0.2, 0.6, count), 0.0, None) * (rng.random(count) > 0.3)
        xmomentum, ymomentum = rng.normal(0.0, 0.8, count) * depth, rng.normal(0.0, 0.6, count) * depth
        stage = bed + depth
        peaks.update(
            StepState(
                time=0.5 * (index + 1),
                timestep=0.5,
                stage=stage,
                elevation=bed,
                xmomentum=xmomentum,
                ymomentum=ymomentum,
            )
        )
        depth = np.maximum(stage - bed, 0.0)  # as a step's depth is read: stage less the bed
        speed = np.where(depth >= film, np.hypot(xmomentum, ymomentum) / np.maximum(depth, film), 0.0)
        step_classes.append(hazard_class(depth=depth, speed=speed, film_m=film))
        depths.append(depth)
        speeds.append(speed)

    assert np.array_equal(peaks.max_hazard, np.max(step_classes, axis=0))
    assert len(set(peaks.max_hazard.tolist())) >= 4  # the steps spread over several classes
    assert np.array_equal(peaks.max_depth, np.max(depths, axis=0))
    assert peaks.max_speed == pytest.approx(np.max(speeds, axis=0), rel=1e-12)
    assert peaks.max_stage == pytest.approx(bed + np.max(depths, axis=0), abs=1e-12)


def test_the_peak_stage_is_reached_with_the_deepest_water_and_a_never_wet_triangle_stands_at_its_bed():
    peaks = recorded(step(1.0, [0.2, 0.0, 0.0], [0.0] * 3), step(2.0, [0.5, 0.0, 0.0], [0.0] * 3))

    assert peaks.max_stage.tolist() == pytest.approx([100.5, 100.0, 100.0])
    assert peaks.time_of_max_stage.tolist() == [2.0, 1.0, 1.0]
    assert np.isnan(TrianglePeaks(count=2, film_m=0.01, inundation_threshold_m=0.05).max_stage).all()
