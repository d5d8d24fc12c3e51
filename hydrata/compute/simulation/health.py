"""Is this model healthy? The figures TUFLOW and HEC-RAS users read after a run, from what ANUGA did, and a plain
verdict with the reasons for it. Plain numpy: no ANUGA, no Django.

Two recorders feed it while the model runs (see compute/simulation/recording.py):
- `TimeSteps`, after every internal step: the step taken, and ANUGA's per-triangle maximum wave speed from the
  flux computation that set it (`domain.max_speed`). ANUGA's step is CFL x min(inscribed radius / max speed) over
  the triangles (`domain.flux_timestep` is that minimum), capped by the largest step allowed and cut short to land
  on a recording time. So the triangle with the largest speed / radius is the one that limited a step, when the
  step is the CFL one, and the Courant number of a triangle is step x max speed / radius.
- `Recordings`, at every recording (yield): cells whose speed or depth spiked, jumping by more than a threshold
  away from the previous recording and back at the next, and the cumulative mass error of the volume account.

`health_report` puts them together into statistics.json's `health`.
"""

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hydrata.compute.outputs.run_statistics import HEALTHY_MASS_ERROR_PCT

SPIKE_SPEED_JUMP_M_S = 2.0  # a cell whose speed jumps by more than this away from a recording and back is a spike
SPIKE_DEPTH_JUMP_M = 1.0  # likewise its depth
MASS_ERROR_MIN_VOLUME_M3 = 1.0  # the cumulative error is a percentage only once this much water has come in
COURANT_LIMIT = 1.0  # an explicit scheme is stable at a Courant number of at most 1
TIMESTEP_DROP_RATIO = 100.0  # a smallest step this many times under the median is worth a look
LIMITED_STEP_TOLERANCE = 1e-6  # relative: a step within this of the CFL step was the CFL step
LIMITING_TRIANGLES_SHOWN = 5
WORST_SPIKES_SHOWN = 5
SERIES_POINTS = 50  # the cumulative mass error over time, thinned to at most this many recordings
INITIAL_CAPACITY = 1024
MAXIMUM_STEP, RECORDING_TIME = -1, -2  # what set a step, when no triangle's Courant condition did

HEALTHY, CHECK, UNHEALTHY = "healthy", "check", "unhealthy"


@dataclass
class TimeSteps:
    """Every internal step: its length, what limited it (the Courant condition of one triangle, the largest step
    allowed, or a recording time it was cut short to land on), and the peak Courant number with where and when."""

    radii: np.ndarray  # each triangle's inscribed radius (m), ANUGA's `domain.radii`
    cfl: float  # ANUGA's `domain.CFL`
    max_timestep: float  # ANUGA's `domain.evolve_max_timestep`
    steps: int = 0
    courant_limited: int = 0
    maximum_step_limited: int = 0
    recording_time_limited: int = 0
    peak_courant: float = 0.0
    peak_courant_triangle: int = -1
    peak_courant_time: float = float("nan")
    _inverse_radii: np.ndarray = field(init=False, repr=False)
    _rate: np.ndarray = field(init=False, repr=False)
    _timesteps: np.ndarray = field(init=False, repr=False)
    _limiting: np.ndarray = field(init=False, repr=False)
    _times: np.ndarray = field(init=False, repr=False)
    _courants: np.ndarray = field(init=False, repr=False)
    _highest: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        radii = np.asarray(self.radii, dtype=float)
        with np.errstate(divide="ignore"):
            self._inverse_radii = np.where(radii > 0, 1.0 / radii, 0.0)
        self._rate = np.empty(len(radii))
        self._timesteps = np.empty(INITIAL_CAPACITY)
        self._limiting = np.empty(INITIAL_CAPACITY, dtype=np.int64)
        self._times, self._courants = np.empty(INITIAL_CAPACITY), np.empty(INITIAL_CAPACITY)
        self._highest = np.empty(INITIAL_CAPACITY, dtype=np.int64)

    def update(self, *, time: float, timestep: float, max_speed: np.ndarray) -> None:
        """One internal step of `timestep` seconds ending at `time`; `max_speed` per triangle (m/s)."""
        rate = self._rate
        np.multiply(max_speed, self._inverse_radii, out=rate)  # 1 / the triangle's own CFL step
        triangle = int(np.argmax(rate))
        self.record(time=time, timestep=timestep, courant=timestep * float(rate[triangle]), triangle=triangle)

    def record(self, *, time: float, timestep: float, courant: float, triangle: int) -> None:
        """One step whose highest Courant number, `courant`, is that of `triangle`."""
        if courant > self.peak_courant:
            self.peak_courant, self.peak_courant_triangle, self.peak_courant_time = courant, triangle, time
        if courant > 0 and courant >= self.cfl * (1 - LIMITED_STEP_TOLERANCE):
            self.courant_limited += 1
            limiting = triangle
        elif timestep >= self.max_timestep * (1 - LIMITED_STEP_TOLERANCE):
            self.maximum_step_limited += 1
            limiting = MAXIMUM_STEP
        else:
            self.recording_time_limited += 1
            limiting = RECORDING_TIME
        if self.steps == len(self._timesteps):
            for name in ("_timesteps", "_limiting", "_times", "_courants", "_highest"):
                setattr(self, name, np.resize(getattr(self, name), 2 * self.steps))
        self._timesteps[self.steps], self._limiting[self.steps] = timestep, limiting
        self._times[self.steps], self._courants[self.steps], self._highest[self.steps] = time, courant, triangle
        self.steps += 1

    @property
    def steps_seen(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per step: its end time, its length, its highest Courant number and the triangle that had it."""
        n = self.steps
        return self._times[:n], self._timesteps[:n], self._courants[:n], self._highest[:n]

    @property
    def timesteps(self) -> np.ndarray:
        return self._timesteps[: self.steps]

    @property
    def limiting(self) -> np.ndarray:
        """Per step, the triangle whose Courant condition set it, else MAXIMUM_STEP or RECORDING_TIME."""
        return self._limiting[: self.steps]


@dataclass
class Recordings:
    """At every recording: each cell's largest spike of speed and of depth, and the cumulative mass error.

    A spike is a value that jumps away from the previous recording and comes back at the next one: up by more
    than the threshold and down again by more than it (or down and back up). Its height is the smaller of the two
    jumps, and its time that of the recording in the middle. A wave front that arrives and stays (a dry cell that
    starts to flow) jumps once and is no spike."""

    count: int
    film_m: float  # speeds are measured only where the water is at least this deep, as the peaks are
    speed_jump_m_s: float = SPIKE_SPEED_JUMP_M_S
    depth_jump_m: float = SPIKE_DEPTH_JUMP_M
    times: list[float] = field(default_factory=list)
    error_m3: list[float] = field(default_factory=list)
    came_in_m3: list[float] = field(default_factory=list)
    largest_speed_jump: np.ndarray = field(init=False)
    largest_depth_jump: np.ndarray = field(init=False)
    time_of_speed_jump: np.ndarray = field(init=False)
    time_of_depth_jump: np.ndarray = field(init=False)
    _before: tuple[np.ndarray, np.ndarray] | None = field(default=None, init=False, repr=False)
    _middle: tuple[np.ndarray, np.ndarray] | None = field(default=None, init=False, repr=False)
    _middle_time: float = field(default=float("nan"), init=False, repr=False)

    def __post_init__(self) -> None:
        n = self.count
        self.largest_speed_jump, self.largest_depth_jump = np.zeros(n), np.zeros(n)
        self.time_of_speed_jump, self.time_of_depth_jump = np.full(n, np.nan), np.full(n, np.nan)

    def record(
        self,
        *,
        time: float,
        stage: np.ndarray,
        elevation: np.ndarray,
        xmomentum: np.ndarray,
        ymomentum: np.ndarray,
        error_m3: float,
        came_in_m3: float,
    ) -> None:
        depth = np.maximum(np.asarray(stage, dtype=float) - elevation, 0.0)
        wet = depth >= self.film_m
        speed = np.where(wet, np.hypot(xmomentum, ymomentum) / np.maximum(depth, self.film_m), 0.0)
        if self._before is not None and self._middle is not None:
            self._spikes(self._before, self._middle, (speed, depth))
        self._before, self._middle, self._middle_time = self._middle, (speed, depth), float(time)
        self.times.append(float(time))
        self.error_m3.append(float(error_m3))
        self.came_in_m3.append(float(came_in_m3))

    def _spikes(self, *states: tuple[np.ndarray, np.ndarray]) -> None:
        """The spikes of the middle of three recordings in a row (speeds and depths of each)."""
        (speed_before, depth_before), (speed_middle, depth_middle), (speed_after, depth_after) = states
        for largest, times, before, middle, after in (
            (self.largest_speed_jump, self.time_of_speed_jump, speed_before, speed_middle, speed_after),
            (self.largest_depth_jump, self.time_of_depth_jump, depth_before, depth_middle, depth_after),
        ):
            rise, fall = middle - before, middle - after  # both positive for a peak, both negative for a dip
            height = np.where(np.sign(rise) == np.sign(fall), np.minimum(np.abs(rise), np.abs(fall)), 0.0)
            self._raise(largest, times, height, self._middle_time)

    @staticmethod
    def _raise(largest: np.ndarray, times: np.ndarray, jump: np.ndarray, time: float) -> None:
        higher = jump > largest
        largest[higher] = jump[higher]
        times[higher] = time


def mass_error_pct(error_m3: float, came_in_m3: float) -> float | None:
    """The cumulative mass error as a signed percentage of the water that came in; None while too little has."""
    return 100.0 * error_m3 / came_in_m3 if came_in_m3 >= MASS_ERROR_MIN_VOLUME_M3 else None


def thinned(count: int, points: int = SERIES_POINTS) -> np.ndarray:
    """At most `points` indices of `count`, evenly spread, always with the first and the last."""
    if count <= points:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, points).round().astype(int))


def _place(triangle: int, centroids: np.ndarray) -> dict[str, float]:
    return {"x": float(centroids[triangle, 0]), "y": float(centroids[triangle, 1])}


def _time(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def timestep_figures(steps: TimeSteps, centroids: np.ndarray) -> dict[str, Any]:
    """min, median and max are of the steps the model chose: a step cut short to land on a recording time says
    nothing of the model (all steps, when every one was cut). `steps` counts every step."""
    timesteps, limiting = steps.timesteps, steps.limiting
    chosen = timesteps[limiting != RECORDING_TIME]
    chosen = chosen if len(chosen) else timesteps
    statistics = (
        {
            "min": float(chosen.min()),
            "median": float(np.median(chosen)),
            "max": float(chosen.max()),
            "steps": steps.steps,
        }
        if steps.steps
        else {"min": None, "median": None, "max": None, "steps": 0}
    )
    limited = limiting[limiting >= 0]
    triangles, counts = np.unique(limited, return_counts=True)
    order = np.argsort(-counts, kind="stable")[:LIMITING_TRIANGLES_SHOWN]
    radii = np.asarray(steps.radii, dtype=float)
    return {
        "timestep_s": statistics,
        "steps_limited_by": {
            "courant": steps.courant_limited,
            "maximum_step": steps.maximum_step_limited,
            "recording_time": steps.recording_time_limited,
        },
        "limiting_triangles": [
            {
                "triangle": int(triangles[i]),
                **_place(int(triangles[i]), centroids),
                "radius_m": float(radii[triangles[i]]),
                "steps": int(counts[i]),
                "share": float(counts[i]) / steps.steps,
            }
            for i in order
        ],
        "cfl": float(steps.cfl),
        "peak_courant": None
        if steps.peak_courant_triangle < 0
        else {
            "value": steps.peak_courant,
            "triangle": steps.peak_courant_triangle,
            **_place(steps.peak_courant_triangle, centroids),
            "t": _time(steps.peak_courant_time),
        },
    }


def spike_figures(recordings: Recordings, centroids: np.ndarray) -> dict[str, Any]:
    worst: list[dict[str, Any]] = []
    counts = {}
    for kind, largest, times, threshold in (
        ("speed", recordings.largest_speed_jump, recordings.time_of_speed_jump, recordings.speed_jump_m_s),
        ("depth", recordings.largest_depth_jump, recordings.time_of_depth_jump, recordings.depth_jump_m),
    ):
        over = np.flatnonzero(largest > threshold)
        counts[kind] = len(over)
        for triangle in over[np.argsort(-largest[over], kind="stable")][:WORST_SPIKES_SHOWN]:
            worst.append(
                {
                    "kind": kind,
                    "triangle": int(triangle),
                    **_place(int(triangle), centroids),
                    "t": _time(times[triangle]),
                    "jump": float(largest[triangle]),
                }
            )
    return {
        "speed_jump_threshold_m_s": recordings.speed_jump_m_s,
        "depth_jump_threshold_m": recordings.depth_jump_m,
        "speed_cells": counts["speed"],
        "depth_cells": counts["depth"],
        "largest_speed_jump_m_s": float(recordings.largest_speed_jump.max(initial=0.0)),
        "largest_depth_jump_m": float(recordings.largest_depth_jump.max(initial=0.0)),
        "worst": worst,
    }


def mass_error_figures(recordings: Recordings, *, final_error_m3: float, final_came_in_m3: float) -> dict[str, Any]:
    """The final figures come from the run's closing volume account; the series from the recordings."""
    volumes = zip(recordings.error_m3, recordings.came_in_m3, strict=True)
    percentages = [mass_error_pct(error, came_in) for error, came_in in volumes]
    read = [(abs(pct), t) for pct, t in zip(percentages, recordings.times, strict=True) if pct is not None]
    largest = max(read, default=None)
    shown = thinned(len(recordings.times))
    return {
        "healthy_line_pct": HEALTHY_MASS_ERROR_PCT,
        "final_m3": float(final_error_m3),
        "final_pct": mass_error_pct(final_error_m3, final_came_in_m3),
        "largest_abs_pct": None if largest is None else largest[0],
        "largest_at_t": None if largest is None else largest[1],
        "series": {
            "t": [recordings.times[i] for i in shown],
            "error_m3": [_significant(recordings.error_m3[i]) for i in shown],
            "error_pct": [None if percentages[i] is None else _significant(percentages[i]) for i in shown],
        },
    }


def _significant(value: float, digits: int = 6) -> float:
    return float(f"{value:.{digits}g}")


def _at(time: float | None) -> str:
    return "" if time is None else f" at t = {time:.4g} s"


def verdict(figures: dict[str, Any]) -> tuple[str, list[str]]:
    """healthy, check or unhealthy, with a sentence for each finding that made it so."""
    unhealthy: list[str] = []
    check: list[str] = []
    mass = figures["mass_error"]
    line = mass["healthy_line_pct"]
    if mass["final_pct"] is not None and abs(mass["final_pct"]) > line:
        unhealthy.append(
            f"The cumulative mass error ends at {mass['final_pct']:+.3g}% of the water that came in, beyond the "
            f"±{line:g}% of a healthy model: check the mesh, the inflows and the boundaries."
        )
    elif mass["largest_abs_pct"] is not None and mass["largest_abs_pct"] > line:
        check.append(
            f"The cumulative mass error reached {mass['largest_abs_pct']:.3g}% at t = {mass['largest_at_t']:g} s "
            f"(beyond ±{line:g}%) before it came back within the line."
        )
    courant = figures["peak_courant"]
    if courant is not None and courant["value"] > COURANT_LIMIT:
        unhealthy.append(
            f"The Courant number reached {courant['value']:.3g} (above {COURANT_LIMIT:g}) at triangle "
            f"{courant['triangle']} ({courant['x']:.1f}, {courant['y']:.1f}){_at(courant['t'])}."
        )
    timestep = figures["timestep_s"]
    if not timestep["steps"]:
        check.append("No internal time step was recorded.")
    elif timestep["min"] * TIMESTEP_DROP_RATIO < timestep["median"]:
        check.append(
            f"The time step fell to {timestep['min']:.3g} s, under 1/{TIMESTEP_DROP_RATIO:g} of its median "
            f"{timestep['median']:.3g} s: look at the triangles that limited it."
        )
    spikes = figures["spikes"]
    for kind, units, threshold in (
        ("speed", "m/s", spikes["speed_jump_threshold_m_s"]),
        ("depth", "m", spikes["depth_jump_threshold_m"]),
    ):
        cells = spikes[f"{kind}_cells"]
        if cells:
            worst = next(spike for spike in spikes["worst"] if spike["kind"] == kind)
            check.append(
                f"{cells} triangle{'s' if cells != 1 else ''} had a {kind} spike of more than {threshold:g} {units} "
                f"(away and back between recordings); the largest, {worst['jump']:.3g} {units}, at triangle "
                f"{worst['triangle']} "
                f"({worst['x']:.1f}, {worst['y']:.1f}){_at(worst['t'])}."
            )
    if unhealthy:
        return UNHEALTHY, unhealthy + check
    return (CHECK, check) if check else (HEALTHY, [])


def health_report(
    *,
    steps: TimeSteps,
    recordings: Recordings,
    centroids: np.ndarray,
    final_error_m3: float,
    final_came_in_m3: float,
) -> dict[str, Any]:
    figures = {
        **timestep_figures(steps, centroids),
        "spikes": spike_figures(recordings, centroids),
        "mass_error": mass_error_figures(recordings, final_error_m3=final_error_m3, final_came_in_m3=final_came_in_m3),
    }
    status, reasons = verdict(figures)
    return {"verdict": status, "reasons": reasons, **figures}
