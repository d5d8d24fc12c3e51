"""Recording a run while ANUGA evolves it: an operator that ANUGA calls after every internal step (per-triangle peaks,
hazard and inundation, the water that crossed the boundary, and each step's length and what limited it), and the
gauges and flow lines read at every yield.
Imported only by the simulation child, after ANUGA."""

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from matplotlib.tri import Triangulation

from hydrata.compute.forcing import import_anuga
from hydrata.compute.geometry import feature_name
from hydrata.compute.health import TimeSteps
from hydrata.compute.package import PackageError
from hydrata.compute.peaks import StepState, TrianglePeaks

anuga = import_anuga()
AnugaOperator: Any = anuga.Operator


@dataclass
class BoundaryVolumes:
    """Water through the boundary, split by direction one internal step at a time: a step whose net boundary flux
    brings water in adds to `inflow_m3`, one that lets it out to `outflow_m3` (exact unless water enters through
    one edge and leaves through another within the same step; the net is always exact)."""

    inflow_m3: float = 0.0
    outflow_m3: float = 0.0
    integral_seen: float = 0.0

    def update(self, integral: float) -> None:
        change, self.integral_seen = integral - self.integral_seen, integral
        if change > 0:
            self.inflow_m3 += change
        else:
            self.outflow_m3 -= change


class RecordingOperator(AnugaOperator):
    """Registered after the rain and inflow operators, so it sees each step's final state. ANUGA calls it before
    it advances the clock, so the state belongs to the time now + timestep."""

    def __init__(self, domain: Any, *, peaks: TrianglePeaks, timesteps: TimeSteps) -> None:
        super().__init__(domain, description="hydrata run recorder", label="hydrata_recorder")
        self.peaks = peaks
        self.timesteps = timesteps
        self.boundary = BoundaryVolumes()

    def __call__(self) -> None:
        domain = self.domain
        quantities = domain.quantities
        timestep = float(domain.timestep)
        time = float(domain.get_relative_time()) + timestep
        # max_speed is from the flux computation that set this step under DE0's Euler stepping (the flow algorithm
        # used here); under RK2 it would be the second stage's, computed after the step was chosen
        self.timesteps.update(time=time, timestep=timestep, max_speed=domain.max_speed)
        self.peaks.update(
            StepState(
                time=time,
                timestep=timestep,
                stage=quantities["stage"].centroid_values,
                elevation=quantities["elevation"].centroid_values,
                xmomentum=quantities["xmomentum"].centroid_values,
                ymomentum=quantities["ymomentum"].centroid_values,
            )
        )
        self.boundary.update(float(domain.get_boundary_flux_integral()))

    def parallel_safe(self) -> bool:
        return False

    def statistics(self) -> str:
        return "hydrata run recorder"

    def timestepping_statistics(self) -> str:
        return f"hydrata run recorder: {self.peaks.steps} steps recorded"


# --- gauges and flow lines -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gauge:
    name: str
    x: float
    y: float
    triangle: int


@dataclass(frozen=True)
class FlowLine:
    """A cross-section: the segments of the line inside each triangle it crosses, with their unit normals (to the
    right of the line walked from its first point to its last) and lengths, from ANUGA's own cross-section
    search."""

    name: str
    triangles: np.ndarray
    normals: np.ndarray
    lengths: np.ndarray


def named(features: list[dict], kind: str) -> list[tuple[str, dict]]:
    """Each feature with its `name` (a feature without one is named by its position)."""
    return [
        (str((feature.get("properties") or {}).get("name") or f"{kind} {index + 1}").strip(), feature)
        for index, feature in enumerate(features)
    ]


def locate_gauges(domain: Any, features: list[dict]) -> list[Gauge]:
    """Each gauge point with the mesh triangle containing it; a point outside the mesh is refused by name."""
    if not features:
        return []  # the point finder costs seconds on a large mesh
    nodes = np.asarray(domain.get_nodes(absolute=True), dtype=float)
    finder = Triangulation(nodes[:, 0], nodes[:, 1], np.asarray(domain.get_triangles())).get_trifinder()
    gauges = []
    for index, (name, feature) in enumerate(named(features, "gauge")):
        for x, y in _points(feature):
            triangle = int(np.asarray(finder(x, y)).item())
            if triangle < 0:
                raise PackageError(
                    f"Gauge {name!r} ({feature_name(index, feature)}) at ({x:.3f}, {y:.3f}) is outside the mesh."
                )
            gauges.append(Gauge(name=name, x=x, y=y, triangle=triangle))
    return gauges


def _points(feature: dict) -> list[tuple[float, float]]:
    geometry = feature.get("geometry") or {}
    coordinates = geometry.get("coordinates") or []
    points = [coordinates] if geometry.get("type") == "Point" else coordinates
    return [(float(point[0]), float(point[1])) for point in points]


def cross_sections(domain: Any, features: list[dict]) -> list[FlowLine]:
    """Each flow line's crossing of the mesh (no segments when it crosses none: its discharge is then 0)."""
    lines = []
    for name, feature in named(features, "flow line"):
        geometry = feature.get("geometry") or {}
        parts = (
            [geometry.get("coordinates") or []]
            if geometry.get("type") == "LineString"
            else geometry.get("coordinates") or []
        )
        segments = [
            segment
            for part in parts
            if len(part) >= 2
            for segment in domain.get_intersecting_segments([list(map(float, p[:2])) for p in part], use_cache=False)
        ]
        lines.append(
            FlowLine(
                name=name,
                triangles=np.array([s.triangle_id for s in segments], dtype=int),
                normals=np.array([s.normal for s in segments], dtype=float).reshape(-1, 2),
                lengths=np.array([s.length for s in segments], dtype=float),
            )
        )
    return lines


@dataclass
class SeriesRecorder:
    """Stage, depth, speed and velocity at each gauge, and discharge through each flow line, at every yield."""

    gauges: list[Gauge]
    flow_lines: list[FlowLine]
    film_m: float
    times: list[float] = field(default_factory=list)
    gauge_values: list[dict[str, list[float]]] = field(init=False)
    discharges: list[list[float]] = field(init=False)

    def __post_init__(self) -> None:
        self.gauge_values = [{key: [] for key in ("stage", "depth", "speed", "xvel", "yvel")} for _ in self.gauges]
        self.discharges = [[] for _ in self.flow_lines]

    def record(self, domain: Any, time: float) -> None:
        quantities = domain.quantities
        stage, elevation = quantities["stage"].centroid_values, quantities["elevation"].centroid_values
        xmom, ymom = quantities["xmomentum"].centroid_values, quantities["ymomentum"].centroid_values
        self.times.append(round(time, 6))
        for gauge, values in zip(self.gauges, self.gauge_values, strict=True):
            depth = max(float(stage[gauge.triangle] - elevation[gauge.triangle]), 0.0)
            u, v = (
                (float(xmom[gauge.triangle]) / depth, float(ymom[gauge.triangle]) / depth)
                if depth >= self.film_m
                else (0.0, 0.0)
            )
            for key, value in (
                ("stage", float(stage[gauge.triangle])),
                ("depth", depth),
                ("speed", float(np.hypot(u, v))),
                ("xvel", u),
                ("yvel", v),
            ):
                values[key].append(round(value, 6))
        for line, series in zip(self.flow_lines, self.discharges, strict=True):
            normal_flow = xmom[line.triangles] * line.normals[:, 0] + ymom[line.triangles] * line.normals[:, 1]
            series.append(round(float((normal_flow * line.lengths).sum()), 6))

    def as_json(self) -> dict[str, Any]:
        return {
            "t": self.times,
            "gauges": [
                {"name": gauge.name, "x": gauge.x, "y": gauge.y, **values}
                for gauge, values in zip(self.gauges, self.gauge_values, strict=True)
            ],
            "flow_lines": [
                {"name": line.name, "discharge": series}
                for line, series in zip(self.flow_lines, self.discharges, strict=True)
            ],
        }
