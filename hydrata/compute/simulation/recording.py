"""Recording a run while ANUGA evolves it: an operator that ANUGA calls after every internal step (per-triangle peaks,
hazard and inundation, the water that crossed the boundary, and each step's length and what limited it), and the
gauges and flow lines read at every yield.
Imported only by the simulation child, after ANUGA."""

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from matplotlib.tri import Triangulation

from hydrata.compute.scenario.package import PackageError
from hydrata.compute.simulation.flow_lines import EdgeStates, MeshTopology, central_upwind_mass_flux, crossed_edges
from hydrata.compute.simulation.forcing import import_anuga
from hydrata.compute.simulation.health import TimeSteps
from hydrata.compute.simulation.peaks import StepState, TrianglePeaks
from hydrata.compute.spatial.geometry import feature_name

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

    def __init__(
        self, domain: Any, *, peaks: TrianglePeaks, timesteps: TimeSteps, flow_lines: "FlowLineVolumes"
    ) -> None:
        super().__init__(domain, description="hydrata run recorder", label="hydrata_recorder")
        self.peaks = peaks
        self.timesteps = timesteps
        self.boundary = BoundaryVolumes()
        self.flow_lines = flow_lines

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
        self.flow_lines.update(domain, timestep)

    def parallel_safe(self) -> bool:
        """Every rank records its own triangles; the boundary flux integral is summed over the ranks each step."""
        return True

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
    """A flow line's crossing of the mesh: the edges it crosses (compute/simulation/flow_lines.py), each as the slot 3k
    + i of the triangle it is read from, with its sign and this process's share of it."""

    name: str
    slots: np.ndarray
    weights: np.ndarray


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
    """Each flow line's crossed edges (none when it crosses no edge of the mesh: its discharge is then 0)."""
    mesh = mesh_topology(domain)
    lines = []
    for name, feature in named(features, "flow line"):
        geometry = feature.get("geometry") or {}
        parts = (
            [geometry.get("coordinates") or []]
            if geometry.get("type") == "LineString"
            else geometry.get("coordinates") or []
        )
        edges = crossed_edges(
            mesh=mesh,
            parts=[np.array([p[:2] for p in part], dtype=float) for part in parts if len(part) >= 2],
        )
        lines.append(FlowLine(name=name, slots=edges.slots, weights=edges.weights))
    return lines


def mesh_topology(domain: Any) -> MeshTopology:
    count = domain.number_of_triangles
    return MeshTopology(
        centroids=np.asarray(domain.get_centroid_coordinates(absolute=True), dtype=float),
        edge_midpoints=np.asarray(domain.get_edge_midpoint_coordinates(absolute=True), dtype=float).reshape(
            count, 3, 2
        ),
        neighbours=np.asarray(domain.neighbours),
        full=np.asarray(domain.tri_full_flag) == 1,
    )


class FlowLineVolumes:
    """The water through each flow line, integrated step by step from the solver's own flux across each edge it
    crosses. ANUGA keeps no per-edge flux (its kernel adds each edge's flux into the triangles' updates), but after
    each Euler step (DE0, the platform's flow algorithm) the edge values still hold the states the step's fluxes
    were computed from, so the crossed edges' mass fluxes are computed again from them, with the same formula
    (compute/simulation/flow_lines.py), vectorised: the same numbers, to rounding, as the flux the solver applied (a
    test holds every triangle's fluxes to ANUGA's own stage update)."""

    def __init__(self, domain: Any, lines: list[FlowLine]) -> None:
        if lines and domain.get_timestepping_method() != "euler":
            raise PackageError(
                f"Flow lines are integrated with Euler time stepping (flow algorithm DE0); this model uses "
                f"{domain.get_timestepping_method()!r} ({domain.get_flow_algorithm()})."
            )
        self.count = len(lines)
        self.volumes = np.zeros(self.count)
        self.line_of_edge = np.repeat(np.arange(self.count), [len(line.slots) for line in lines])
        self.weights = np.concatenate([line.weights for line in lines]) if lines else np.zeros(0)
        self.slots = np.concatenate([line.slots for line in lines]).astype(np.int64) if lines else np.zeros(0, int)
        across = np.asarray(domain.neighbours, dtype=np.int64).reshape(-1)[self.slots]
        edge_across = np.asarray(domain.neighbour_edges, dtype=np.int64).reshape(-1)[self.slots]
        self.on_boundary = across < 0
        self.boundary_index = np.where(self.on_boundary, -across - 1, 0)  # ANUGA's code for a boundary edge
        self.far_slot = np.where(self.on_boundary, self.slots, 3 * across + edge_across)
        self.normals = np.asarray(domain.normals, dtype=float).reshape(-1, 2)[self.slots]
        self.lengths = np.asarray(domain.edgelengths, dtype=float).reshape(-1)[self.slots]

    def update(self, domain: Any, timestep: float) -> None:
        if self.count:
            self.volumes += timestep * self.discharges(domain)

    def discharges(self, domain: Any) -> np.ndarray:
        """Each line's discharge (m3/s, positive left to right) from the fluxes of the step just taken."""
        fluxes = self.edge_fluxes(domain) * self.lengths * self.weights
        return np.bincount(self.line_of_edge, weights=fluxes, minlength=self.count)

    def edge_fluxes(self, domain: Any) -> np.ndarray:
        """The mass flux per unit length out of each edge's near triangle, as ANUGA's DE kernel computes it
        (core_compute_fluxes_central): from the edge states the step used, the bed at the edge the higher of the two
        sides', the boundary's values across a boundary edge."""
        quantities = domain.quantities

        def sides(name: str) -> tuple[np.ndarray, np.ndarray]:
            edge_values = quantities[name].edge_values.reshape(-1)
            across = np.where(
                self.on_boundary, quantities[name].boundary_values[self.boundary_index], edge_values[self.far_slot]
            )
            return edge_values[self.slots], across

        stage_left, stage_right = sides("stage")
        xmom_left, xmom_right = sides("xmomentum")
        ymom_left, ymom_right = sides("ymomentum")
        height = quantities["height"].edge_values.reshape(-1)
        bed = quantities["elevation"].edge_values.reshape(-1)
        height_left, bed_left = height[self.slots], bed[self.slots]
        bed_right = np.where(self.on_boundary, bed_left, bed[self.far_slot])
        height_right = np.where(self.on_boundary, np.maximum(stage_right - bed_left, 0.0), height[self.far_slot])
        bed_at_edge = np.maximum(bed_left, bed_right)
        normal_x, normal_y = self.normals[:, 0], self.normals[:, 1]
        states = EdgeStates(
            stage_left=stage_left,
            stage_right=stage_right,
            normal_momentum_left=normal_x * xmom_left + normal_y * ymom_left,
            normal_momentum_right=normal_x * xmom_right + normal_y * ymom_right,
            height_left=height_left,
            height_right=height_right,
            h_left=np.maximum(height_left + bed_left - bed_at_edge, 0.0),
            h_right=np.maximum(height_right + bed_right - bed_at_edge, 0.0),
            bed_at_edge=bed_at_edge,
        )
        return central_upwind_mass_flux(states, g=float(domain.g), epsilon=float(domain.epsilon))


@dataclass
class SeriesRecorder:
    """Stage, depth, speed and velocity at each gauge, and discharge through each flow line, at every yield.

    A flow line's discharge at a recording is the volume of water that crossed it since the previous recording
    (integrated step by step from the solver's edge fluxes, `volumes`), divided by the time between them: the mean
    over the interval, positive left to right. The first recording's is 0.

    On a rank of a parallel run, a gauge whose triangle another rank owns has `triangle` -1 and records nothing
    here, and the crossed volumes are this rank's share; `merged_series` joins the ranks' recordings."""

    gauges: list[Gauge]
    flow_lines: list[FlowLine]
    volumes: FlowLineVolumes
    film_m: float
    culverts: Any = (
        None  # compute/simulation/culverts.py CulvertVolumes: each culvert's series, recorded as a flow line's
    )
    times: list[float] = field(default_factory=list)
    gauge_values: list[dict[str, list[float]]] = field(init=False)
    crossed: list[list[float]] = field(init=False)  # per flow line, the volume crossed since the last recording
    volumes_seen: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.gauge_values = [{key: [] for key in GAUGE_KEYS} for _ in self.gauges]
        self.crossed = [[] for _ in self.flow_lines]
        self.volumes_seen = self.volumes.volumes.copy()
        self.culvert_names = list(self.culverts.names) if self.culverts is not None else []
        self.culvert_crossed: list[list[float]] = [[] for _ in self.culvert_names]
        self.culverts_seen = self.culverts.volumes.copy() if self.culverts is not None else np.zeros(0)

    def record(self, domain: Any, time: float) -> None:
        quantities = domain.quantities
        stage, elevation = quantities["stage"].centroid_values, quantities["elevation"].centroid_values
        xmom, ymom = quantities["xmomentum"].centroid_values, quantities["ymomentum"].centroid_values
        self.record_crossings()
        self.times.append(round(time, 6))
        for gauge, values in zip(self.gauges, self.gauge_values, strict=True):
            if gauge.triangle < 0:
                continue
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

    def record_crossings(self) -> None:
        crossed, self.volumes_seen = self.volumes.volumes - self.volumes_seen, self.volumes.volumes.copy()
        for series, volume in zip(self.crossed, crossed.tolist(), strict=True):
            series.append(volume)
        if self.culverts is not None:
            moved, self.culverts_seen = self.culverts.volumes - self.culverts_seen, self.culverts.volumes.copy()
            for series, volume in zip(self.culvert_crossed, moved.tolist(), strict=True):
                series.append(volume)

    @property
    def discharges(self) -> list[list[float]]:
        """Each flow line's mean discharge over each interval between recordings (0 at the first)."""
        return self._means(self.crossed)

    def _means(self, volumes: list[list[float]]) -> list[list[float]]:
        intervals = np.diff(self.times, prepend=self.times[0]) if self.times else np.zeros(0)
        return [
            [
                round(volume / interval, 6) if interval > 0 else 0.0
                for volume, interval in zip(series, intervals.tolist(), strict=True)
            ]
            for series in volumes
        ]

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
            ]
            + [  # a culvert's discharge, positive from inlet to outlet, and the volume it moved in each interval
                {"name": name, "culvert": True, "discharge": series, "volume": [round(v, 9) for v in moved]}
                for name, series, moved in zip(
                    self.culvert_names, self._means(self.culvert_crossed), self.culvert_crossed, strict=True
                )
            ],
        }


GAUGE_KEYS = ("stage", "depth", "speed", "xvel", "yvel")


def merged_series(parts: list[SeriesRecorder]) -> SeriesRecorder:
    """The ranks' recordings as one (rank 0's recorder, filled in): each gauge's values from the rank that owns its
    triangle, each flow line's crossed volumes summed over the ranks (each counts only the edges it owns)."""
    whole = parts[0]
    for index in range(len(whole.gauges)):
        owner = next((part for part in parts if part.gauges[index].triangle >= 0), whole)
        whole.gauge_values[index] = owner.gauge_values[index]
    shape = (len(whole.crossed), len(whole.times))
    whole.crossed = np.sum([np.asarray(part.crossed, dtype=float).reshape(shape) for part in parts], axis=0).tolist()
    shape = (len(whole.culvert_crossed), len(whole.times))  # a culvert is counted by its master rank alone
    whole.culvert_crossed = np.sum(
        [np.asarray(part.culvert_crossed, dtype=float).reshape(shape) for part in parts], axis=0
    ).tolist()
    return whole
