"""The level a culvert inlet's water finds: ANUGA's `anuga.structures.inlet.level_stages_to_average`, solved in
closed form instead of by a fixed 100-step bisection.

A Boyd operator writes each step's transfer back into both its inlets by "filling or drawing down to a level"
(ANUGA's words): adding a volume V raises the lowest stages to the level L where sum a_i max(L - s_i, 0) = V;
removing one lowers the highest stages, each clamped at its bed, to the L where
sum a_i min(d_i, max(s_i - L, 0)) = V; an inlet asked for more than it holds is drained dry. ANUGA finds L by
bisection, 100 times a `numpy.dot` for both inlets of every culvert at every step: most of what 20 culverts cost a
100,000-triangle step (docs/scenario-package.md). Both sides are piecewise linear in L, with their corners at the
stages (and, drawing down, the beds), so sorting the corners once gives every corner's volume by a cumulative sum,
and L is the one linear step inside the segment that holds V. Same equation, same clamps, same no-op on a zero
transfer, same answer to round-off (tests/hydrata/compute/simulation/test_inlet_level.py holds it against ANUGA's own
function); linear after one sort of the inlet's cells.

Pure numpy: no ANUGA, no Django."""

import numpy as np


def level_by_volume(stages: np.ndarray, elevations: np.ndarray, areas: np.ndarray, *, volume: float) -> np.ndarray:
    """The inlet's new stages, cell by cell, once `volume` (m3) is added to it, or taken from it when negative.
    ANUGA's function takes the old and the new average depth instead: its volume is their difference times the
    inlet's area (under MPI, one rank's share of the inlet, with the whole inlet's change of average depth)."""
    if volume == 0.0 or stages.size == 0:
        return stages.copy()
    if volume > 0.0:
        return np.maximum(stages, _fill_level(stages, areas, volume))
    depths = np.maximum(stages - elevations, 0.0)
    if -volume >= float(areas.dot(depths)):
        return np.where(depths > 0.0, elevations, stages)
    wet = depths > 0.0
    level = _drawdown_level(stages[wet], elevations[wet], areas[wet], -volume)
    return np.maximum(elevations, np.minimum(stages, level))


def _fill_level(stages: np.ndarray, areas: np.ndarray, volume: float) -> float:
    """The L where sum a_i max(L - s_i, 0) = volume. Between the k-th and the next lowest stage, the volume below
    L is A_k (L - s_k) + F_k, A_k the area of the k lowest cells and F_k the volume that fills them to s_k."""
    order = stages.argsort(kind="stable")  # the array methods: numpy's functions wrap them, at a cost per call
    ordered, cells = stages[order], areas[order]
    lowest = ordered[0]
    raised = ordered - lowest
    below = cells.cumsum()
    filled = below * raised - (cells * raised).cumsum()
    k = int(filled.searchsorted(volume, side="right")) - 1
    return float(lowest + raised[k] + (volume - filled[k]) / below[k])


def _drawdown_level(stages: np.ndarray, beds: np.ndarray, areas: np.ndarray, volume: float) -> float:
    """The L where the wet cells give up sum a_i (s_i - max(L, z_i)) over those with s_i > L: lowering L from the
    highest stage, a cell starts to give at its stage and stops at its bed. So the corners are both, the area
    giving just below each corner is a running sum (+a_i at s_i, -a_i at z_i), and the volume given down to each
    corner its integral. The caller asks for less than all the water, so L lies above the lowest bed."""
    corners = np.concatenate((stages, beds))
    steps = np.concatenate((areas, -areas))
    order = (-corners).argsort(kind="stable")
    corners, giving = corners[order], steps[order].cumsum()
    given = np.empty_like(corners)
    given[0] = 0.0
    (giving[:-1] * (corners[:-1] - corners[1:])).cumsum(out=given[1:])
    k = int(given.searchsorted(volume, side="right")) - 1
    if k + 1 >= corners.size or giving[k] <= 0.0:  # a gap between a bed and the next stage gives nothing
        return float(corners[k])
    return float(min(corners[k], max(corners[k + 1], corners[k] - (volume - given[k]) / giving[k])))
