"""The optimiser, asked and told: proposals stay in range, the same members always propose the same next, a member
still computing is pending (not proposed again), and on an objective with one minimum it closes in on it."""

import math

from hydrata.compute.calibration.search import Told, propose
from hydrata_contract.requests.calibration import CalibrationParameter

N = CalibrationParameter(target="friction", name="floodplain", low=0.02, high=0.10)
IDLE = CalibrationParameter(target="friction", name="beyond", low=0.01, high=0.2)


def rmse(n: float) -> float:
    """Shaped like a peak-stage RMSE against a truth of 0.045: steeper below than above."""
    return abs(3.0 * (n**0.6 - 0.045**0.6))


def search(parameters, *, budget: int, width: int, seed: int = 0) -> list[Told]:
    """Members proposed `width` at a time in flight, each told as it ends, oldest first, as the study does."""
    told: list[Told] = []
    pending: list[tuple[float, ...]] = []
    while len(told) < budget:
        room = min(width - len(pending), budget - len(told) - len(pending))
        if room > 0:
            pending += propose(parameters=parameters, told=told, pending=pending, count=room, seed=seed, budget=budget)
        values = pending.pop(0)
        told.append(Told(values=values, objective=rmse(values[0])))
    return told


def test_proposals_are_within_their_ranges_and_the_same_members_propose_the_same_next():
    first = propose(parameters=[N, IDLE], told=[], pending=[], count=4, seed=7, budget=20)
    again = propose(parameters=[N, IDLE], told=[], pending=[], count=4, seed=7, budget=20)

    assert first == again and len(set(first)) == 4
    assert all(0.02 <= n <= 0.10 and 0.01 <= idle <= 0.2 for n, idle in first)


def test_a_member_that_failed_is_told_and_the_search_goes_on():
    told = [Told(values=(0.05,), objective=None), Told(values=(0.03,), objective=0.2)]

    proposed = propose(parameters=[N], told=told, pending=[(0.07,)], count=2, seed=0, budget=10)

    assert len(proposed) == 2 and all(0.02 <= n <= 0.10 for (n,) in proposed)


def test_forty_members_two_in_flight_find_the_minimum_within_0_003_and_an_idle_parameter_does_not_hold_it_back():
    for seed in range(3):
        for parameters in ([N], [N, IDLE]):
            told = search(parameters, budget=40, width=2, seed=seed)
            best = min(told, key=lambda member: member.objective if member.objective is not None else math.inf)
            assert abs(best.values[0] - 0.045) <= 0.003, (seed, len(parameters), best)
