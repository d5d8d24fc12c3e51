"""The Morris screen (SALib): whole trajectories of k + 1 members on a grid of levels; a parameter that changes the
output ranks above one that does not (mu* of 0); a trajectory with a failed member is left out whole."""

import pytest

from hydrata.compute.calibration.morris import LEVELS, design, effects, trajectories_in
from hydrata_contract.requests.calibration import CalibrationParameter

N = CalibrationParameter(target="friction", name="floodplain", low=0.02, high=0.10)
IDLE = CalibrationParameter(target="friction", name="beyond", low=0.01, high=0.2)


def test_the_design_is_whole_trajectories_on_the_levels_of_each_range():
    values = design(parameters=[N, IDLE], trajectories=trajectories_in(budget=13, parameters=2), seed=3)

    assert len(values) == 4 * 3
    levels = {round(0.02 + (0.10 - 0.02) * k / (LEVELS - 1), 12) for k in range(LEVELS)}
    assert {round(n, 12) for n, _ in values} <= levels
    for t in range(4):  # each step of a trajectory moves one parameter
        rows = values[3 * t : 3 * t + 3]
        assert all(sum(a != b for a, b in zip(rows[i], rows[i + 1], strict=True)) == 1 for i in range(2))


def test_a_parameter_that_matters_ranks_above_one_that_does_not():
    values = design(parameters=[N, IDLE], trajectories=6, seed=0)
    outputs = [10.0 + 20.0 * n for n, _ in values]

    ranked, used = effects(parameters=[N, IDLE], values=values, outputs=outputs, seed=0)

    assert used == 6 and [e.parameter for e in ranked] == ["friction:floodplain", "friction:beyond"]
    assert ranked[0].mu_star == pytest.approx(20.0 * (0.10 - 0.02)) and ranked[1].mu_star == 0.0


def test_a_trajectory_holding_a_failed_member_is_left_out_whole_and_two_are_needed():
    values = design(parameters=[N, IDLE], trajectories=3, seed=0)
    outputs: list[float | None] = [n for n, _ in values]
    outputs[4] = None

    _, used = effects(parameters=[N, IDLE], values=values, outputs=outputs, seed=0)
    outputs[0] = None

    assert used == 2
    assert effects(parameters=[N, IDLE], values=values, outputs=outputs, seed=0) is None
