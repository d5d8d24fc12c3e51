"""The model's health from constructed steps and recordings: what limited each step, the Courant number, spikes
and the cumulative mass error, each on both sides of its line, and the verdict they give."""

import numpy as np
import pytest

from hydrata.compute.simulation.health import (
    CHECK,
    HEALTHY,
    SERIES_POINTS,
    SPIKE_DEPTH_JUMP_M,
    SPIKE_SPEED_JUMP_M_S,
    UNHEALTHY,
    Recordings,
    TimeSteps,
    health_report,
    mass_error_pct,
    thinned,
)

RADII = np.array([2.0, 1.0, 4.0])
CENTROIDS = np.array([[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]])
CFL = 0.9
MAX_STEP = 100.0
FILM = 0.01


def steps_of(*taken: tuple[float, list[float]]) -> TimeSteps:
    """Each (timestep, max_speed per triangle) in turn, ending one second apart."""
    steps = TimeSteps(radii=RADII, cfl=CFL, max_timestep=MAX_STEP)
    for index, (timestep, speeds) in enumerate(taken):
        steps.update(time=float(index + 1), timestep=timestep, max_speed=np.array(speeds))
    return steps


def cfl_step(speeds: list[float]) -> float:
    """The step ANUGA takes: CFL x the smallest radius / speed."""
    return CFL * min(r / s for r, s in zip(RADII, speeds, strict=True) if s > 0)


def recordings_of(*states: tuple[list[float], list[float]], errors=None, came_in=None) -> Recordings:
    """Each (depth, speed per triangle) as a recording ten seconds apart, on a flat bed."""
    recordings = Recordings(count=len(RADII), film_m=FILM)
    for index, (depth, speed) in enumerate(states):
        depth_array = np.array(depth)
        recordings.record(
            time=10.0 * index,
            stage=depth_array,
            elevation=np.zeros(len(depth)),
            xmomentum=depth_array * np.array(speed),
            ymomentum=np.zeros(len(depth)),
            error_m3=0.0 if errors is None else errors[index],
            came_in_m3=100.0 if came_in is None else came_in[index],
        )
    return recordings


def report(steps: TimeSteps | None = None, recordings: Recordings | None = None, *, error=0.0, came_in=100.0):
    steps = steps or steps_of((cfl_step([1.0, 1.0, 1.0]), [1.0, 1.0, 1.0]))
    recordings = recordings or recordings_of(([0.5, 0.5, 0.5], [1.0, 1.0, 1.0]))
    return health_report(
        steps=steps, recordings=recordings, centroids=CENTROIDS, final_error_m3=error, final_came_in_m3=came_in
    )


def test_a_step_set_by_the_courant_condition_is_laid_on_the_triangle_with_the_smallest_radius_over_speed():
    speeds_a, speeds_b = [1.0, 1.0, 1.0], [1.0, 0.1, 4.0]  # radius / speed: 2, 1, 4 then 2, 10, 1
    steps = steps_of((cfl_step(speeds_a), speeds_a), (cfl_step(speeds_a), speeds_a), (cfl_step(speeds_b), speeds_b))

    health = report(steps)

    assert health["steps_limited_by"] == {"courant": 3, "maximum_step": 0, "recording_time": 0}
    first, second = health["limiting_triangles"]
    assert (first["triangle"], first["steps"], first["share"]) == (1, 2, pytest.approx(2 / 3))
    assert (first["x"], first["y"], first["radius_m"]) == (30.0, 40.0, 1.0)
    assert (second["triangle"], second["steps"], second["share"]) == (2, 1, pytest.approx(1 / 3))
    assert health["peak_courant"]["value"] == pytest.approx(CFL)
    assert health["timestep_s"] == {
        "min": pytest.approx(0.9),
        "median": pytest.approx(0.9),
        "max": pytest.approx(0.9),
        "steps": 3,
    }


def test_a_step_capped_or_cut_short_for_a_recording_is_laid_on_no_triangle_and_left_out_of_min_median_max():
    speeds = [0.01, 0.01, 0.01]  # the CFL step would be 90 s
    dry = [0.0, 0.0, 0.0]
    steps = steps_of((MAX_STEP, dry), (5.0, speeds), (1e-5, speeds), (cfl_step(speeds), speeds))

    health = report(steps)

    assert health["steps_limited_by"] == {"courant": 1, "maximum_step": 1, "recording_time": 2}
    assert [t["triangle"] for t in health["limiting_triangles"]] == [1]
    assert health["limiting_triangles"][0]["share"] == pytest.approx(0.25)
    assert health["timestep_s"]["min"] == pytest.approx(90.0) and health["timestep_s"]["max"] == MAX_STEP
    assert health["timestep_s"]["steps"] == 4
    assert health["verdict"] == HEALTHY  # the 1e-5 s step landed on a recording time: nothing wrong with the model


def test_the_courant_number_is_step_times_speed_over_radius_and_above_one_the_model_is_unhealthy():
    speeds = [1.0, 1.0, 1.0]  # the smallest radius / speed is 1 s (triangle 1)
    within = report(steps_of((1.0, speeds)))
    beyond = report(steps_of((1.01, speeds)))

    assert within["peak_courant"] == {"value": pytest.approx(1.0), "triangle": 1, "x": 30.0, "y": 40.0, "t": 1.0}
    assert within["verdict"] != UNHEALTHY
    assert beyond["peak_courant"]["value"] == pytest.approx(1.01)
    assert beyond["verdict"] == UNHEALTHY and "Courant number reached 1.01" in beyond["reasons"][0]


def test_a_time_step_that_falls_a_hundredfold_under_its_median_asks_for_a_check():
    def health_with_smallest(speed: float):
        taken = [(cfl_step([1.0, 1.0, 1.0]), [1.0, 1.0, 1.0])] * 4 + [(cfl_step([1.0, speed, 1.0]), [1.0, speed, 1.0])]
        return report(steps_of(*taken))

    assert health_with_smallest(99.0)["verdict"] == HEALTHY  # 0.9 / 99: just above 1/100 of the median 0.9
    dropped = health_with_smallest(101.0)
    assert dropped["verdict"] == CHECK and "time step fell to" in dropped["reasons"][0]


@pytest.mark.parametrize(
    ("kind", "jump", "verdict", "cells"),
    [
        ("speed", SPIKE_SPEED_JUMP_M_S - 0.01, HEALTHY, 0),
        ("speed", SPIKE_SPEED_JUMP_M_S + 0.01, CHECK, 1),
        ("depth", SPIKE_DEPTH_JUMP_M - 0.01, HEALTHY, 0),
        ("depth", SPIKE_DEPTH_JUMP_M + 0.01, CHECK, 1),
    ],
)
def test_a_cell_whose_speed_or_depth_jumps_over_its_threshold_and_back_between_recordings_is_a_spike(
    kind, jump, verdict, cells
):
    depth, speed = [0.5, 0.5, 0.5], [1.0, 1.0, 1.0]
    spiked_depth = [0.5, 0.5 + jump, 0.5] if kind == "depth" else depth
    spiked_speed = [1.0, 1.0 + jump, 1.0] if kind == "speed" else speed
    recordings = recordings_of((depth, speed), (spiked_depth, spiked_speed), (depth, speed))

    health = report(recordings=recordings)

    spikes = health["spikes"]
    assert spikes[f"{kind}_cells"] == cells and health["verdict"] == verdict
    assert spikes[f"largest_{kind}_jump_{'m_s' if kind == 'speed' else 'm'}"] == pytest.approx(jump)
    if cells:
        (worst,) = spikes["worst"]
        assert worst == {"kind": kind, "triangle": 1, "x": 30.0, "y": 40.0, "t": 10.0, "jump": pytest.approx(jump)}
        assert f"{kind} spike" in health["reasons"][0] and "at t = 10 s" in health["reasons"][0]


def test_a_dip_and_back_is_a_spike_too_and_its_height_is_the_smaller_of_its_two_jumps():
    recordings = recordings_of(
        ([0.5, 0.5, 0.5], [1.0, 4.0, 1.0]), ([0.5, 0.5, 0.5], [1.0, 1.0, 1.0]), ([0.5, 0.5, 0.5], [1.0, 3.5, 1.0])
    )

    spikes = report(recordings=recordings)["spikes"]

    assert spikes["speed_cells"] == 1 and spikes["largest_speed_jump_m_s"] == pytest.approx(2.5)


def test_a_wave_front_that_arrives_and_stays_or_a_steady_rise_is_no_spike():
    dry, flowing = ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]), ([2.0, 2.0, 2.0], [3.0, 3.0, 3.0])
    rising = [([0.5 + 1.5 * k] * 3, [1.0 + 2.5 * k] * 3) for k in range(4)]  # 1.5 m and 2.5 m/s per recording

    for states in ([dry, flowing, flowing, flowing], rising):
        spikes = report(recordings=recordings_of(*states))["spikes"]
        assert spikes["speed_cells"] == spikes["depth_cells"] == 0


def test_speeds_in_films_thinner_than_a_centimetre_are_not_spikes():
    thin = [0.005, 0.5, 0.5]
    recordings = recordings_of((thin, [0.0, 1.0, 1.0]), (thin, [50.0, 1.0, 1.0]), (thin, [0.0, 1.0, 1.0]))

    assert report(recordings=recordings)["spikes"]["speed_cells"] == 0


@pytest.mark.parametrize(
    ("error", "verdict"), [(0.99, HEALTHY), (-0.99, HEALTHY), (1.01, UNHEALTHY), (-1.01, UNHEALTHY)]
)
def test_a_final_mass_error_beyond_one_percent_either_way_is_unhealthy(error, verdict):
    health = report(error=error, came_in=100.0)

    assert health["mass_error"]["final_pct"] == pytest.approx(error)
    assert health["verdict"] == verdict
    if verdict == UNHEALTHY:
        assert "beyond the ±1% of a healthy model" in health["reasons"][0]


def test_a_mass_error_beyond_the_line_during_the_run_but_back_within_it_at_the_end_asks_for_a_check():
    state = ([0.5, 0.5, 0.5], [1.0, 1.0, 1.0])
    under = recordings_of(state, state, state, errors=[0.0, 0.99, 0.5], came_in=[0.0, 100.0, 100.0])
    over = recordings_of(state, state, state, errors=[0.0, 1.01, 0.5], came_in=[0.0, 100.0, 100.0])

    assert report(recordings=under, error=0.5)["verdict"] == HEALTHY
    checked = report(recordings=over, error=0.5)
    assert checked["verdict"] == CHECK and checked["mass_error"]["largest_abs_pct"] == pytest.approx(1.01)
    assert checked["mass_error"]["largest_at_t"] == 10.0
    assert checked["mass_error"]["series"] == {
        "t": [0.0, 10.0, 20.0],
        "error_m3": [0.0, 1.01, 0.5],
        "error_pct": [None, 1.01, 0.5],
    }


def test_the_mass_error_is_a_percentage_only_once_a_cubic_metre_has_come_in():
    assert mass_error_pct(0.5, 0.99) is None
    assert mass_error_pct(-0.01, 1.0) == pytest.approx(-1.0)


def test_the_series_over_time_keeps_at_most_fifty_recordings_with_the_first_and_the_last():
    kept = thinned(1001)

    assert len(kept) <= SERIES_POINTS and kept[0] == 0 and kept[-1] == 1000
    assert (np.diff(kept) > 0).all()
    assert thinned(7).tolist() == list(range(7))


def test_every_finding_is_a_reason_and_the_worst_decides_the_verdict():
    state = ([0.5, 0.5, 0.5], [1.0, 1.0, 1.0])
    spiked = recordings_of(state, ([0.5, 0.5, 0.5], [1.0, 5.0, 1.0]), state)

    health = report(steps_of((1.5, [1.0, 1.0, 1.0])), spiked, error=2.0)

    assert health["verdict"] == UNHEALTHY
    assert [reason.split(" ")[1] for reason in health["reasons"]] == ["cumulative", "Courant", "triangle"]
