"""What a run keeps of every internal time step, per mesh triangle: the maxima of depth, speed and stage with the
time each was reached, the highest hazard class, the time the water first rose above the inundation threshold and
how long it stayed above it. Plain numpy, fed the centroid values after each step (see compute/recording.py)."""

from dataclasses import dataclass, field

import numpy as np

from hydrata.compute.hazard import hazard_class


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
    max_speed: np.ndarray = field(init=False)
    max_stage: np.ndarray = field(init=False)
    time_of_max_depth: np.ndarray = field(init=False)
    time_of_max_speed: np.ndarray = field(init=False)
    time_of_max_stage: np.ndarray = field(init=False)
    max_hazard: np.ndarray = field(init=False)
    time_of_inundation: np.ndarray = field(init=False)  # NaN while never above the threshold
    duration_of_inundation: np.ndarray = field(init=False)
    steps: int = 0

    def __post_init__(self) -> None:
        self.max_depth = np.zeros(self.count)
        self.max_speed = np.zeros(self.count)
        self.max_stage = np.full(self.count, np.nan)
        self.time_of_max_depth = np.full(self.count, np.nan)
        self.time_of_max_speed = np.full(self.count, np.nan)
        self.time_of_max_stage = np.full(self.count, np.nan)
        self.max_hazard = np.zeros(self.count, dtype=np.uint8)
        self.time_of_inundation = np.full(self.count, np.nan)
        self.duration_of_inundation = np.zeros(self.count)

    def update(self, state: StepState) -> None:
        depth = np.maximum(state.stage - state.elevation, 0.0)
        measured = depth >= self.film_m
        speed = np.where(measured, np.hypot(state.xmomentum, state.ymomentum) / np.maximum(depth, self.film_m), 0.0)
        self._raise(self.max_depth, self.time_of_max_depth, depth, state.time)
        self._raise(self.max_speed, self.time_of_max_speed, speed, state.time)
        higher = ~(state.stage <= self.max_stage)  # NaN (never collected) counts as lower
        self.max_stage[higher] = state.stage[higher]
        self.time_of_max_stage[higher] = state.time
        np.maximum(self.max_hazard, hazard_class(depth=depth, speed=speed, film_m=self.film_m), out=self.max_hazard)
        inundated = depth > self.inundation_threshold_m
        self.time_of_inundation[inundated & np.isnan(self.time_of_inundation)] = state.time
        self.duration_of_inundation[inundated] += state.timestep
        self.steps += 1

    @staticmethod
    def _raise(maxima: np.ndarray, times: np.ndarray, values: np.ndarray, time: float) -> None:
        higher = values > maxima
        maxima[higher] = values[higher]
        times[higher] = time
