"""What a run keeps of every internal time step, per mesh triangle: the maxima of depth, speed and stage with the
time each was reached, the highest hazard class, the time the water first rose above the inundation threshold and
how long it stayed above it. Plain numpy, fed the centroid values after each step (see compute/simulation/recording.py).

ANUGA calls the update after every internal step, so it is built to cost little next to the step itself:
- it works in place, on buffers allocated once, with no square root per step (np.hypot alone cost more than all
  the rest): speeds and depth x speed are kept squared, and rooted once at the end;
- stage is elevation plus depth, and elevation does not change during a run, so the maxima of stage (and their
  times) are those of depth, read off at the end rather than tracked;
- no step is classified: a hazard class is the highest class that any one of its three limits (depth x speed,
  depth, speed) puts a step in, each such class only grows with its quantity, so the highest class over the
  steps is the class of the three running maxima (of the product itself, never the product of the maxima).
"""

from dataclasses import dataclass, field

import numpy as np

from hydrata.compute.outputs.hazard import hazard_class


@dataclass(frozen=True)
class StepState:
    """The centroid values at the end of one internal step, `time` seconds after the model start."""

    time: float
    timestep: float
    stage: np.ndarray
    elevation: np.ndarray
    xmomentum: np.ndarray
    ymomentum: np.ndarray


@dataclass
class TrianglePeaks:
    """Running per-triangle results. Speeds are measured only where the water is at least `film_m` deep (the same
    film below which hazard is not classified); the initial state is not sampled, as in ANUGA's own collector."""

    count: int
    film_m: float
    inundation_threshold_m: float
    max_depth: np.ndarray = field(init=False)
    max_speed_squared: np.ndarray = field(init=False)
    max_depth_speed_squared: np.ndarray = field(init=False)  # (depth x speed)², for the hazard class
    time_of_max_depth: np.ndarray = field(init=False)
    time_of_max_speed: np.ndarray = field(init=False)
    time_of_inundation: np.ndarray = field(init=False)  # NaN while never above the threshold
    duration_of_inundation: np.ndarray = field(init=False)
    steps: int = 0
    first_time: float = np.nan
    elevation: np.ndarray | None = None  # the bed, as at the first step
    _depth: np.ndarray = field(init=False, repr=False)
    _speed: np.ndarray = field(init=False, repr=False)
    _scratch: np.ndarray = field(init=False, repr=False)
    _mask: np.ndarray = field(init=False, repr=False)
    _above: np.ndarray = field(init=False, repr=False)  # above the threshold at the end of the last step

    def __post_init__(self) -> None:
        n = self.count
        self.max_depth, self.max_speed_squared, self.max_depth_speed_squared = np.zeros(n), np.zeros(n), np.zeros(n)
        self.time_of_max_depth = np.full(n, np.nan)
        self.time_of_max_speed = np.full(n, np.nan)
        self.time_of_inundation = np.full(n, np.nan)
        self.duration_of_inundation = np.zeros(n)
        self._depth, self._speed, self._scratch = np.empty(n), np.empty(n), np.empty(n)
        self._mask = np.empty(n, dtype=bool)
        self._above = np.zeros(n, dtype=bool)

    def update(self, state: StepState) -> None:
        if self.steps == 0:
            self.first_time, self.elevation = state.time, np.array(state.elevation, dtype=float)
        depth, speed, scratch, mask = self._depth, self._speed, self._scratch, self._mask
        time, film = state.time, self.film_m
        # Unclipped: a negative depth raises no maximum, classifies nothing and inundates nothing.
        np.subtract(state.stage, state.elevation, out=depth)
        self._raise(self.max_depth, self.time_of_max_depth, depth, time, mask)
        # |momentum|² where at least film_m deep (speeds are not measured in thinner films), else 0: it is also
        # (depth x speed)² there
        np.square(state.xmomentum, out=speed)
        np.square(state.ymomentum, out=scratch)
        np.add(speed, scratch, out=speed)
        np.greater_equal(depth, film, out=mask)
        np.multiply(speed, mask, out=speed)
        np.maximum(self.max_depth_speed_squared, speed, out=self.max_depth_speed_squared)
        np.maximum(depth, film, out=scratch)
        np.square(scratch, out=scratch)
        np.divide(speed, scratch, out=speed)  # speed²
        self._raise(self.max_speed_squared, self.time_of_max_speed, speed, time, mask)
        # A step counts towards the duration when the water was above the threshold as it began: inundation is
        # first seen at the end of the step that crossed, so a triangle wet from then on is inundated for exactly
        # the time since (the crossing step is not counted; the step that falls below is, its mirror).
        np.add(self.duration_of_inundation, state.timestep, out=self.duration_of_inundation, where=self._above)
        np.greater(depth, self.inundation_threshold_m, out=self._above)
        # NaN (never above the threshold yet) gives way to now; an earlier time stays
        np.fmin(self.time_of_inundation, time, out=self.time_of_inundation, where=self._above)
        self.steps += 1

    @staticmethod
    def _raise(maxima: np.ndarray, times: np.ndarray, values: np.ndarray, time: float, higher: np.ndarray) -> None:
        np.greater(values, maxima, out=higher)
        np.copyto(maxima, values, where=higher)
        np.copyto(times, time, where=higher)

    @property
    def max_speed(self) -> np.ndarray:
        return np.sqrt(self.max_speed_squared)

    @property
    def max_depth_speed(self) -> np.ndarray:
        return np.sqrt(self.max_depth_speed_squared)

    @property
    def max_hazard(self) -> np.ndarray:
        """The highest hazard class (uint8, 0 never wet) of any one step, from the three running maxima."""
        return hazard_class(
            depth=self.max_depth, speed=self.max_speed, depth_speed=self.max_depth_speed, film_m=self.film_m
        )

    @property
    def max_stage(self) -> np.ndarray:
        """The bed plus the deepest water (the bed alone where it never got wet); NaN before the first step."""
        if self.elevation is None:
            return np.full(self.count, np.nan)
        return self.elevation + self.max_depth

    @property
    def time_of_max_stage(self) -> np.ndarray:
        """When the deepest water was; where it never got wet, the stage stood at the bed from the first step."""
        return np.where(np.isnan(self.time_of_max_depth), self.first_time, self.time_of_max_depth)
