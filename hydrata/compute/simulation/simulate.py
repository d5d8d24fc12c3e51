"""Run one scenario package with ANUGA, in a child process that talks to its parent only through files and its
exit code. It knows nothing of Django or the database.

    python -m hydrata.compute.simulation.simulate --package DIR --output DIR [--threads N] [--yield-seconds S]
                                       [--depth-frames N] [--outputs full|envelope]
    mpiexec -n RANKS python -m hydrata.compute.simulation.simulate ...
    (the same, the mesh distributed over RANKS processes)

Writes into the output directory:
  progress.jsonl   one JSON object per line, flushed as written: a line per phase change and per yield step
                   {"phase", "sim_time", "duration", "progress_pct", "eta_seconds", "wall_seconds", "timestep",
                   "volume_m3", "inflow_volume_m3"}; a failure ends it with {"phase", "error", ...}
  run.log          what ANUGA printed (the process's stdout) and this module's own lines
  and, only once the run is complete (renamed into place together, result.json last):
  max_depth.tif, max_speed.tif, max_stage.tif, max_hazard.tif, time_of_inundation.tif,
  duration_of_inundation.tif (COGs on the DEM's grid), run.sww, statistics.json, time_series.json (gauges and
  flow lines at every yield), preview.png, result.json
  With --outputs envelope (a design study's member) only what the study's envelopes read: max_depth.tif,
  max_stage.tif, max_speed.tif, max_hazard.tif, statistics.json, time_series.json and result.json. ANUGA keeps no
  .sww, so there are no depth frames either; the maxima, statistics and series are the same as a full run's.

run.log ends with the wall and CPU seconds of each phase of the child (compute/simulation/phase_clock.py's
CHILD_PHASES_LINE and a JSON object), which benchmarks/design_study.py --overhead reads.

Under mpiexec, rank 0 builds the domain and `anuga.distribute` (METIS) splits it; every rank evolves its part and
records only the triangles it owns, and rank 0 gathers the recordings and alone writes progress and results (the
same files as a serial run). A rank that fails reports why in progress.jsonl and aborts the others.

Exit codes: 0 complete; 1 failed (bad package, ANUGA error: the last progress line says why); 2 bad command line;
3 numerically unstable; 143 stopped by SIGTERM (130 by SIGINT). Killed by SIGXFSZ (or SIGXCPU) when the parent's
file-size (or CPU-time) limit is reached.
"""

import argparse
import io
import json
import math
import os
import re
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import numpy as np

from hydrata.compute.simulation.phase_clock import CHILD_PHASES_LINE, PhaseClock, seconds_since_process_start
from hydrata.compute.simulation.ranks import Ownership, Ranks, current_ranks, gather_owned
from hydrata_contract.compute import EXIT_UNSTABLE, RunOutputs
from hydrata_contract.layers import DEPTH_FRAME_GLOB, DEPTH_FRAMES_INDEX, TOTAL_LOSS_FILE, ResultLayer
from hydrata_contract.states import RunPhase

if TYPE_CHECKING:  # the heavy imports wait until the first progress line is out
    from hydrata.compute.outputs.results import MeshMaxima, Staging
    from hydrata.compute.outputs.run_statistics import VolumeAccount
    from hydrata.compute.scenario.package import Grid, Package
    from hydrata.compute.simulation.health import Recordings, TimeSteps
    from hydrata.compute.simulation.peaks import TrianglePeaks
    from hydrata.compute.simulation.recording import Gauge, RecordingOperator, SeriesRecorder

EXIT_OK = 0
EXIT_FAILED = 1


SPEED_MINIMUM_DEPTH_M = 0.01  # speeds in films thinner than this are ignored by the maxima, hazard too
DEFAULT_INUNDATION_THRESHOLD_M = 0.05
VOLUME_GROWTH_FACTOR = 10.0  # stored volume above this many times what came in (+ allowance) is unstable
VOLUME_ALLOWANCE_M3 = 1.0
MINIMUM_TIMESTEP_S = 1e-6
COLLAPSED_YIELDS = 3  # yields in a row with the time step under MINIMUM_TIMESTEP_S
MAX_SWW_FRAMES = 200
DEFAULT_DEPTH_FRAMES = 48  # HYDRATA_RUN_DEPTH_FRAMES: saved frames kept as depth rasters for the map's time slider
SWW_NAME = "run.sww"
PARTIAL_SWW_NAME = ".run.partial"  # ANUGA adds ".sww"
ANUGA_TOO_SMALL_TIMESTEP = re.compile(r"Too small timestep\s+([0-9.eE+-]+)")


class Terminated(BaseException):
    """A termination signal arrived; raised from the signal handler so that the evolve loop stops at once."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class Unstable(Exception):
    """The model went numerically unstable; the message says how."""


# --- progress and log ------------------------------------------------------------------------------------------


@dataclass
class Progress:
    """progress.jsonl: each line one os.write to a file opened for appending, so a line is never half written."""

    path: Path
    duration: float
    writes_lines: bool = True  # False on the other ranks of a parallel run: rank 0 reports progress
    started: float = field(default_factory=time.monotonic)
    phase: str = RunPhase.PREPARING_INPUTS
    sim_time: float = 0.0

    def wall_seconds(self) -> float:
        return round(time.monotonic() - self.started, 3)

    def _append(self, record: dict[str, Any]) -> None:
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(descriptor, (json.dumps(record) + "\n").encode())
        finally:
            os.close(descriptor)

    def line(
        self,
        phase: str,
        *,
        sim_time: float = 0.0,
        eta_seconds: float | None = None,
        timestep: float | None = None,
        volume_m3: float = 0.0,
        inflow_volume_m3: float = 0.0,
        progress_pct: float | None = None,
    ) -> None:
        self.phase, self.sim_time = phase, sim_time
        if not self.writes_lines:
            return
        if progress_pct is None:
            progress_pct = min(100.0, 100.0 * sim_time / self.duration) if self.duration > 0 else 0.0
        self._append(
            {
                "phase": phase,
                "sim_time": round(sim_time, 3),
                "duration": self.duration,
                "progress_pct": round(progress_pct, 2),
                "eta_seconds": None if eta_seconds is None else round(eta_seconds, 1),
                "wall_seconds": self.wall_seconds(),
                "timestep": timestep,
                "volume_m3": _rounded(volume_m3),
                "inflow_volume_m3": _rounded(inflow_volume_m3),
            }
        )

    def error(self, message: str) -> None:
        """The last line of a run that did not complete: the phase it was in, what went wrong, how far it got."""
        self._append(
            {
                "phase": self.phase,
                "error": message,
                "sim_time": round(self.sim_time, 3),
                "wall_seconds": self.wall_seconds(),
            }
        )


def _rounded(value: float) -> float | None:
    return round(float(value), 6) if math.isfinite(value) else None


def log(message: str) -> None:
    """A line of our own in run.log (stdout is run.log once `capture_stdout` has run)."""
    print(f"[hydrata {time.strftime('%Y-%m-%dT%H:%M:%S')}] {message}", flush=True)


def capture_stdout(path: Path) -> None:
    """Send file descriptor 1 (Python's prints and the C extensions' printf alike) to `path`, appending."""
    sys.stdout.flush()
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.dup2(descriptor, 1)
    os.close(descriptor)
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(line_buffering=True)


# --- the instability guard -------------------------------------------------------------------------------------


@dataclass
class InstabilityGuard:
    """Checked at every yield. Unstable when the stored volume exceeds VOLUME_GROWTH_FACTOR x (what came in +
    VOLUME_ALLOWANCE_M3), or is not a number, or the time step stays under MINIMUM_TIMESTEP_S for
    COLLAPSED_YIELDS yields in a row. (ANUGA itself stops as soon as a step falls under its own minimum, 1e-6 s;
    `simulate` reports that as the same collapse.)"""

    collapsed: int = 0

    def check(self, *, volume: float, came_in: float, timestep: float | None) -> str | None:
        if not math.isfinite(volume):
            return "The model went numerically unstable: the stored water volume is no longer a finite number."
        ceiling = VOLUME_GROWTH_FACTOR * (max(came_in, 0.0) + VOLUME_ALLOWANCE_M3)
        if volume > ceiling:
            return (
                f"The model went numerically unstable: the stored volume {volume:.4g} m3 is far above the "
                f"{max(came_in, 0.0):.4g} m3 that came in."
            )
        self.collapsed = self.collapsed + 1 if timestep is not None and timestep < MINIMUM_TIMESTEP_S else 0
        if self.collapsed >= COLLAPSED_YIELDS and timestep is not None:
            return collapse_message(timestep)
        return None


def collapse_message(timestep: float) -> str:
    return (
        f"The model went numerically unstable: the time step collapsed to {timestep:.3g} s (ANUGA stops below "
        f"{MINIMUM_TIMESTEP_S:g} s). Look for very steep terrain, a forcing far too large for the mesh, or "
        "tiny triangles."
    )


# --- setting up the model --------------------------------------------------------------------------------------


@dataclass
class Model:
    domain: Any
    recorder: "RecordingOperator"  # per-step peaks, hazard, inundation and boundary volumes
    series: "SeriesRecorder"  # gauges and flow lines, per yield
    health: "Recordings"  # spikes and the cumulative mass error, per yield (time steps: recorder.timesteps)
    rainfall: list[Any]  # ANUGA's Rate_operators
    inflows: list[Any]  # ANUGA's Inlet_operators
    has_dirichlet: bool
    sww_path: Path
    ranks: Ranks
    ownership: Ownership
    whole: "WholeMesh | None"  # rank 0's
    initial_volume: float = 0.0
    losses: Any = None  # the soil loss operator (compute/simulation/losses.py), None without soils

    @property
    def peaks(self) -> "TrianglePeaks":
        return self.recorder.peaks


def inundation_threshold(package: "Package") -> float:
    from hydrata.compute.scenario.package import PackageError, as_number

    value = package.manifest.get("inundation_threshold_m")
    threshold = DEFAULT_INUNDATION_THRESHOLD_M if value in (None, "") else as_number(value)
    if threshold is None or threshold <= 0:
        raise PackageError(f"scenario.json has inundation_threshold_m {value!r}; it must be a positive depth in m.")
    return threshold


@dataclass(frozen=True)
class WholeMesh:
    """The whole mesh, kept by rank 0 when the domain is distributed: results are written over it."""

    nodes: np.ndarray
    triangles: np.ndarray
    centroids: np.ndarray
    radii: np.ndarray

    @classmethod
    def of(cls, domain: Any) -> "WholeMesh":
        return cls(
            nodes=np.asarray(domain.get_nodes(absolute=True), dtype=float),
            triangles=np.asarray(domain.get_triangles(), dtype=np.int64),
            centroids=np.asarray(domain.get_centroid_coordinates(absolute=True), dtype=float),
            radii=np.asarray(domain.radii, dtype=float),
        )


def whole_domain(*, package: "Package", anuga: Any) -> Any:
    """The whole mesh as an ANUGA domain with its elevation, friction and dry start (rank 0's work)."""
    from hydrata.compute.scenario.package import sample_dem
    from hydrata.compute.simulation import forcing, structures
    from hydrata.compute.simulation.water_state import set_initial_water

    domain = anuga.Domain(str(package.mesh_path))  # the .msh keeps its boundary tags; anuga reads them back
    log(
        f"Mesh {package.mesh_path.name}: {domain.number_of_triangles} triangles, boundary tags "
        f"{sorted(domain.get_boundary_tags())}; OpenMP threads {anuga.get_omp_num_threads()}; flow algorithm "
        f"{domain.get_flow_algorithm()}."
    )
    xy = domain.get_centroid_coordinates(absolute=True)
    domain.set_quantity("elevation", sample_dem(package.dem_path, xy), location="centroids")
    friction_features = package.features("friction")
    domain.set_quantity("friction", forcing.friction_values(xy, friction_features), location="centroids")
    log(f"Friction: {len(friction_features)} polygons, default Manning's n {forcing.DEFAULT_MANNINGS}.")
    structures.apply_structures(domain, package.features("structure"), xy=xy, log=log)
    domain.set_quantity("stage", expression="elevation", location="centroids")  # dry start
    set_initial_water(domain, xy=xy, features=package.features("initial_condition"), log=log)  # compute/water_state
    return domain


def distributed(domain: Any, *, ranks: Ranks, anuga: Any) -> tuple[Any, Ownership]:
    """This rank's part of the domain (METIS, through anuga.distribute) and which of its triangles it owns."""
    if not ranks.parallel:
        return domain, Ownership.serial(domain.number_of_triangles)
    part = anuga.distribute(domain)
    owned = np.asarray(part.tri_full_flag) == 1
    log(f"Distributed over {ranks.size} ranks: rank 0 owns {int(owned.sum())} of {part.number_of_global_triangles}.")
    return part, Ownership(
        owned=owned,
        global_index=np.asarray(part.tri_l2g, dtype=np.int64),
        global_count=int(part.number_of_global_triangles),
    )


def build_model(*, package: "Package", output_dir: Path, threads: int, ranks: Ranks | None = None) -> Model:
    """The ANUGA domain of the package (this rank's part of it under MPI), with elevation, friction, forcing,
    boundaries, the recorder of peaks, hazard and inundation, and the gauges and flow lines."""
    from hydrata.compute.simulation import forcing
    from hydrata.compute.simulation.health import Recordings
    from hydrata.compute.simulation.losses import add_losses
    from hydrata.compute.simulation.recording import locate_gauges

    ranks = ranks or Ranks()
    anuga = forcing.import_anuga()
    anuga.set_omp_num_threads(threads, verbose=False)
    whole = whole_domain(package=package, anuga=anuga) if ranks.is_root else None
    gauges = ranks.broadcast(locate_gauges(whole, package.features("gauge")) if whole is not None else None)
    mesh = WholeMesh.of(whole) if whole is not None else None
    domain, ownership = distributed(whole, ranks=ranks, anuga=anuga)
    del whole  # rank 0 keeps only the whole mesh's arrays

    xy = domain.get_centroid_coordinates(absolute=True)
    series = package.time_series()
    start = package.model_start()
    rainfall = forcing.add_rainfall(domain, package.features("rainfall"), xy=xy, series=series, start=start, log=log)
    losses = add_losses(domain, package.features("soil"), xy=xy, rainfall=rainfall, owned=ownership.owned, log=log)
    inflows = forcing.add_inflows(domain, package.features("inflow"), series=series, start=start, log=log)
    inflows = [inflow for inflow in inflows if inflow is not None]  # None on a rank the inlet does not touch
    bound_inlet_timestep(domain, inflows)
    culvert_volumes = add_site_operators(domain, package, anuga=anuga)
    boundary_features = package.features("boundary")
    domain.set_boundary(
        forcing.boundary_map(domain, boundary_features=boundary_features, log=log, series=series, start=start)
    )
    # ANUGA agrees the step across ranks, then caps it with each rank's own largest step: the caps must agree too,
    # or the ranks drift apart in time and wait forever on each other's messages
    domain.set_evolve_max_timestep(ranks.smallest(domain.evolve_max_timestep))
    recorder, recorded_series = add_recorders(
        domain, package, log=log, gauges=gauges, ownership=ownership, culverts=culvert_volumes
    )

    declared = set((package.manifest.get("boundary_tags") or {}).keys())
    tags = set(domain.get_boundary_tags()) - forcing.PARALLEL_BOUNDARY_TAGS
    if declared and declared != tags and not ranks.parallel:  # a rank's part carries only some of the tags
        log(
            f"Warning: scenario.json lists boundary tags {sorted(declared)} but the mesh carries "
            f"{sorted(tags)}; the mesh's tags are used."
        )
    domain.set_datadir(str(output_dir))
    domain.set_name(PARTIAL_SWW_NAME)
    has_dirichlet = ranks.total(any(stage_tag(tag) for tag in tags)) > 0
    return Model(
        domain=domain,
        recorder=recorder,
        series=recorded_series,
        health=Recordings(count=domain.number_of_triangles, film_m=SPEED_MINIMUM_DEPTH_M),
        rainfall=rainfall,
        inflows=inflows,
        has_dirichlet=has_dirichlet,
        sww_path=output_dir / f"{PARTIAL_SWW_NAME}.sww",
        ranks=ranks,
        ownership=ownership,
        whole=mesh,
        initial_volume=float(domain.get_water_volume()),
        losses=losses,
    )


def stage_tag(tag: str) -> bool:
    """Whether a boundary tag is a stage edge's (one that may bring water in)."""
    from hydrata.compute.simulation.boundary_edges import parsed_tag, stage_type

    return stage_type(tag) is not None or parsed_tag(tag) is not None


def add_site_operators(domain: Any, package: "Package", *, anuga: Any) -> Any:
    """The site as built on this process's domain: weirs as riverwalls, culverts as ANUGA's Boyd operators and
    their recorder (compute/simulation/weirs.py, compute/simulation/culverts.py); returns the culverts' volumes."""
    from hydrata.compute.scenario.package import sample_dem
    from hydrata.compute.simulation.culverts import CulvertVolumes, add_culverts, culvert_recorder
    from hydrata.compute.simulation.weirs import add_weirs

    add_weirs(domain, package.features("weir"), ground=lambda xy: sample_dem(package.dem_path, xy), log=log)
    culverts = add_culverts(domain, package.features("culvert"), anuga=anuga, log=log)
    volumes = CulvertVolumes(culverts)
    if culverts:
        culvert_recorder(domain, volumes, anuga=anuga)
    return volumes


def bound_inlet_timestep(domain: Any, inflows: list[Any]) -> None:
    from hydrata.compute.simulation import forcing

    ceiling = forcing.inlet_timestep_ceiling(inflows)
    if ceiling is not None:
        domain.set_evolve_max_timestep(ceiling)
        log(
            f"Time step at most {ceiling:.3g} s, so that no inflow line adds more than "
            f"{forcing.INLET_DEPTH_PER_STEP_M:g} m of depth to its triangles in one step (a dry start otherwise "
            "takes the whole first yield as one step)."
        )


def add_recorders(
    domain: Any,
    package: "Package",
    *,
    log: Callable[[str], None],
    gauges: list["Gauge"] | None = None,
    ownership: Ownership | None = None,
    culverts: Any = None,
) -> tuple["RecordingOperator", "SeriesRecorder"]:
    """The per-step recorder (registered after every forcing operator) and the gauges and flow lines."""
    import dataclasses

    from hydrata.compute.simulation.health import TimeSteps
    from hydrata.compute.simulation.peaks import TrianglePeaks
    from hydrata.compute.simulation.recording import (
        FlowLineVolumes,
        RecordingOperator,
        SeriesRecorder,
        cross_sections,
        locate_gauges,
    )

    ownership = ownership or Ownership.serial(domain.number_of_triangles)
    threshold = inundation_threshold(package)
    flow_lines = cross_sections(domain, package.features("flow_line"))
    volumes = FlowLineVolumes(domain, flow_lines)
    recorder = RecordingOperator(
        domain,
        peaks=TrianglePeaks(
            count=domain.number_of_triangles, film_m=SPEED_MINIMUM_DEPTH_M, inundation_threshold_m=threshold
        ),
        timesteps=TimeSteps(
            radii=np.where(ownership.owned, np.asarray(domain.radii, dtype=float), 0.0),  # ghosts never limit
            cfl=float(domain.CFL),
            max_timestep=float(domain.evolve_max_timestep),
        ),
        flow_lines=volumes,
    )
    if gauges is None:
        gauges = locate_gauges(domain, package.features("gauge"))
    else:  # located on the whole mesh; read by the rank that owns the triangle
        gauges = [dataclasses.replace(gauge, triangle=ownership.local_of(gauge.triangle)) for gauge in gauges]
    log(f"Inundation threshold {threshold:g} m; {len(gauges)} gauges, {len(flow_lines)} flow lines.")
    for line in flow_lines:
        if not len(line.slots):
            log(f"Flow line {line.name!r} crosses no edge of the mesh; its discharge is 0.")
    return recorder, SeriesRecorder(
        gauges=gauges, flow_lines=flow_lines, volumes=volumes, film_m=SPEED_MINIMUM_DEPTH_M, culverts=culverts
    )


def default_yield_seconds(duration: float) -> float:
    """About 100 progress lines a run, between one a second and one a minute of model time."""
    return float(min(duration, max(1.0, min(60.0, duration / 100.0))))


def sww_output_step(*, duration: float, yield_seconds: float) -> float:
    """Model seconds between .sww frames: every yield, or every few yields so that a run keeps at most
    MAX_SWW_FRAMES."""
    frames = math.ceil(duration / yield_seconds)
    return yield_seconds * max(1, math.ceil(frames / MAX_SWW_FRAMES))


def came_in_volume(*, forcing_volume: float, boundary_net_inflow: float, has_dirichlet: bool) -> float:
    """What the guard compares the stored volume with: rain and inflow lines, plus the net volume that entered
    through the boundary when a Dirichlet boundary (the only kind that may legitimately bring water in) exists."""
    return forcing_volume + (max(boundary_net_inflow, 0.0) if has_dirichlet else 0.0)


def evolve(
    model: Model, *, duration: float, yield_seconds: float, progress: Progress, state: "RunState | None" = None
) -> float:
    """Run the model to `duration`, a progress line and a guard check per yield; returns the simulated seconds."""
    domain = model.domain
    guard = InstabilityGuard()
    output_step = sww_output_step(duration=duration, yield_seconds=yield_seconds)
    computing_started = time.monotonic()
    sim_time = 0.0
    try:
        for _ in domain.evolve(yieldstep=yield_seconds, outputstep=output_step, finaltime=duration):
            if state is not None:
                state.raise_if_stopped()
            sim_time = float(domain.get_relative_time())
            model.series.record(domain, sim_time)
            record_health(model, sim_time)
            volume = float(domain.get_water_volume())
            forcing_volume = float(domain.get_fractional_step_volume_integral())
            boundary = float(domain.get_boundary_flux_integral())
            timestep = min(float(domain.recorded_min_timestep), yield_seconds) if sim_time > 0 else None
            elapsed = time.monotonic() - computing_started
            eta = elapsed / sim_time * (duration - sim_time) if sim_time > 0 else None
            progress.line(
                RunPhase.COMPUTING,
                sim_time=sim_time,
                eta_seconds=eta,
                timestep=timestep,
                volume_m3=volume,
                inflow_volume_m3=forcing_volume,
            )
            if model.ranks.is_root:
                print(domain.timestepping_statistics(), flush=True)  # ANUGA's own summary of the yield, to run.log
            reason = guard.check(
                volume=volume,
                timestep=timestep,
                came_in=came_in_volume(
                    forcing_volume=forcing_volume, boundary_net_inflow=boundary, has_dirichlet=model.has_dirichlet
                )
                + model.initial_volume,  # the water it started with (compute/simulation/water_state.py)
            )
            if reason:
                raise Unstable(reason)
    except Exception as error:
        collapse = ANUGA_TOO_SMALL_TIMESTEP.search(str(error))
        if collapse and not isinstance(error, Unstable):
            raise Unstable(collapse_message(float(collapse.group(1)))) from error
        raise
    return sim_time


def record_health(model: Model, sim_time: float) -> None:
    """A recording's speeds and depths (for spikes) and the volume account's cumulative error so far."""
    quantities = model.domain.quantities
    account = volume_account(model)
    model.health.record(
        time=sim_time,
        stage=quantities["stage"].centroid_values,
        elevation=quantities["elevation"].centroid_values,
        xmomentum=quantities["xmomentum"].centroid_values,
        ymomentum=quantities["ymomentum"].centroid_values,
        error_m3=account.error,
        came_in_m3=account.had,  # with the water it started with
    )


def model_health(model: Model, account: "VolumeAccount") -> dict[str, Any]:
    """The health report over the whole mesh, on rank 0 (collective; empty on the other ranks)."""
    from hydrata.compute.simulation.health import health_report

    steps, recordings = whole_steps(model), whole_recordings(model)
    if model.whole is None or steps is None or recordings is None:
        return {}
    return health_report(
        steps=steps,
        recordings=recordings,
        centroids=model.whole.centroids,
        final_error_m3=account.error,
        final_came_in_m3=account.had,
    )


def whole_steps(model: Model) -> "TimeSteps | None":
    """The time steps with, for each, the highest Courant number of any rank, its triangle numbered in the whole
    mesh; None off rank 0 (collective). Every rank took the same steps: ANUGA's step is global."""
    from hydrata.compute.simulation.health import TimeSteps

    local = model.recorder.timesteps
    if not model.ranks.parallel:
        return local
    times, timesteps, courants, triangles = local.steps_seen
    pieces = model.ranks.gather((courants, model.ownership.global_index[triangles]))
    if model.whole is None:
        return None
    merged = TimeSteps(radii=model.whole.radii, cfl=local.cfl, max_timestep=local.max_timestep)
    all_courants = np.array([piece[0] for piece in pieces])
    all_triangles = np.array([piece[1] for piece in pieces])
    highest = np.argmax(all_courants, axis=0)
    for step, (end, timestep) in enumerate(zip(times.tolist(), timesteps.tolist(), strict=True)):
        rank = highest[step]
        merged.record(
            time=end,
            timestep=timestep,
            courant=float(all_courants[rank, step]),
            triangle=int(all_triangles[rank, step]),
        )
    return merged


def whole_recordings(model: Model) -> "Recordings | None":
    """The spike recordings over the whole mesh, on rank 0 (collective)."""
    from hydrata.compute.simulation.health import Recordings

    local = model.health
    if not model.ranks.parallel:
        return local
    names = ("largest_speed_jump", "largest_depth_jump", "time_of_speed_jump", "time_of_depth_jump")
    arrays = gather_owned(model.ranks, model.ownership, {name: getattr(local, name) for name in names})
    if not arrays:
        return None
    whole = Recordings(count=model.ownership.global_count, film_m=local.film_m)
    whole.times, whole.error_m3, whole.came_in_m3 = local.times, local.error_m3, local.came_in_m3
    for name, values in arrays.items():
        setattr(whole, name, values)
    return whole


def mesh_maxima(model: Model) -> "MeshMaxima | None":
    """The per-triangle results over the whole mesh, each triangle's from the rank that owns it; None off rank 0
    (collective)."""
    import dataclasses

    from hydrata.compute.outputs.results import MeshMaxima

    mesh = ("nodes", "triangles")
    per_triangle = [member.name for member in dataclasses.fields(MeshMaxima) if member.name not in mesh]
    peaks = model.peaks
    arrays = gather_owned(model.ranks, model.ownership, {name: getattr(peaks, name) for name in per_triangle})
    if model.whole is None:
        return None
    return MeshMaxima(nodes=model.whole.nodes, triangles=model.whole.triangles, **arrays)


def whole_series(model: Model) -> dict[str, Any] | None:
    """The gauges and flow lines of every rank as one, on rank 0 (collective)."""
    from hydrata.compute.simulation.recording import merged_series

    parts = model.ranks.gather(model.series)
    return merged_series(parts).as_json() if model.ranks.is_root else None


def volume_account(model: Model) -> "VolumeAccount":
    """The water that came, went and stayed, over the whole mesh (collective: each rank's operators count the
    triangles it owns)."""
    from hydrata.compute.outputs.run_statistics import VolumeAccount

    boundary, ranks = model.recorder.boundary, model.ranks
    return VolumeAccount(
        initial=model.initial_volume,
        final=float(model.domain.get_water_volume()),
        rainfall=ranks.total(sum(float(operator.cumulative_influx) for operator in model.rainfall)),
        inflow=ranks.total(sum(inlet_volume(operator, ranks) for operator in model.inflows)),
        boundary_in=boundary.inflow_m3,
        boundary_out=boundary.outflow_m3,
        losses=ranks.total(float(model.losses.volume_m3) if model.losses is not None else 0.0),
    )


def inlet_volume(operator: Any, ranks: Ranks) -> float:
    """An inflow's applied volume, counted once: a parallel inlet's ranks all hold its total, its master counts it."""
    return float(operator.total_applied_volume) if getattr(operator, "master_proc", ranks.rank) == ranks.rank else 0.0


# --- the run ---------------------------------------------------------------------------------------------------


@dataclass
class RunState:
    stopping: bool = False  # a termination signal has been acted on; later ones are ignored
    committed: bool = False  # the results are in place: a late signal no longer stops anything
    signum: int = 0  # the signal that stopped the run, kept in case its exception was swallowed where it landed

    def raise_if_stopped(self) -> None:
        """Raise the stop again: the handler's exception lands wherever the interpreter is, and a library's bare
        `except:` or a finaliser ("Exception ignored in ...") would swallow it, so the run checks once a yield."""
        if self.signum and not self.committed:
            raise Terminated(self.signum)


RESULT_FILES = (
    "result.json",
    *(layer.filename for layer in ResultLayer),
    SWW_NAME,
    "statistics.json",
    "time_series.json",
    "preview.png",
    DEPTH_FRAMES_INDEX,
    TOTAL_LOSS_FILE,
)


def clear_previous_run(output_dir: Path) -> None:
    """Remove what an earlier run left in the output directory (result.json first), so that nothing there can be
    mistaken for this run's results or lines."""
    for name in (*RESULT_FILES, "progress.jsonl", "run.log"):
        (output_dir / name).unlink(missing_ok=True)
    for path in output_dir.glob(DEPTH_FRAME_GLOB):
        path.unlink()


def stage_sww(model: Model, staging: "Staging") -> None:
    """The .sww as a staged result, and ANUGA's working files (its writer locks, each rank's own .sww under MPI)
    as scratch."""
    staging.adopt(SWW_NAME, model.sww_path)
    stem, size = model.sww_path.name.removesuffix(".sww"), model.ranks.size
    names = [model.sww_path.name] if size == 1 else [f"{stem}_P{size}_{rank}.sww" for rank in range(size)]
    for name in names:
        staging.scratch(model.sww_path.with_name(name + ".lock"))
        if size > 1:
            staging.scratch(model.sww_path.with_name(name))


def run(
    args: argparse.Namespace,
    progress: Progress,
    state: RunState,
    ranks: Ranks | None = None,
    clock: PhaseClock | None = None,
) -> dict[str, Any]:
    """Prepare, mesh, compute and post-process; returns the statistics. Raises on failure, leaving no result."""
    ranks, clock = ranks or Ranks(), clock or PhaseClock()
    progress.line(RunPhase.PREPARING_INPUTS)
    from hydrata.compute.outputs.results import Staging
    from hydrata.compute.scenario.package import dem_grid, load_package

    clock.mark("imports")  # numpy, rasterio, scipy, matplotlib's triangulation: what reading and writing need
    staging = Staging(args.output)
    try:
        package = load_package(args.package)
        grid = dem_grid(package.dem_path)
        progress.duration = package.duration
        yield_seconds = args.yield_seconds or default_yield_seconds(package.duration)
        log(
            f"Package {args.package} ({package.manifest.get('name')!r}): {ranks.size} rank(s), duration "
            f"{package.duration:g} s, yield "
            f"every {yield_seconds:g} s, CRS {package.crs}, DEM {grid.width} x {grid.height}, outputs {args.outputs}."
        )
        clock.mark("package")

        progress.line(RunPhase.MESHING)
        from hydrata.compute.simulation.forcing import import_anuga

        import_anuga()
        clock.mark("anuga_import")
        model = build_model(package=package, output_dir=args.output, threads=args.threads, ranks=ranks)
        outputs = RunOutputs(args.outputs)
        if outputs == RunOutputs.FULL:
            stage_sww(model, staging)
        else:
            model.domain.set_store(False)  # ANUGA opens no .sww and writes no frame: the envelopes never read them
        clock.mark("model")

        sim_time = evolve(model, duration=package.duration, yield_seconds=yield_seconds, progress=progress, state=state)
        clock.mark("evolve")
        if ranks.parallel:
            log_parallel_balance(model)
        if ranks.parallel and outputs == RunOutputs.FULL:
            model.domain.sww_merge(delete_old=True)  # rank 0 joins the ranks' .sww files into one (collective)
            clock.mark("sww_merge")
        return post_process(
            model,
            grid=grid,
            staging=staging,
            progress=progress,
            state=state,
            sim_time=sim_time,
            depth_frames=args.depth_frames,
            outputs=outputs,
            clock=clock,
        )
    finally:
        if not state.committed and ranks.is_root:
            staging.discard()


PARALLEL_BALANCE = "Parallel balance: "


def log_parallel_balance(model: Model) -> None:
    """ANUGA's own split of each rank's evolve wall time, in run.log (collective): its ghost exchange, its wait in
    the step's global reduction, the rest computing. benchmarks/mpi_ranks.py projects more ranks from it."""
    balance = model.domain.load_balance_statistics()
    if model.ranks.is_root and balance is not None:
        keys = ("n_full", "n_ghost", "wall_time", "comm_time", "reduce_wait_time", "compute_time")
        log(PARALLEL_BALANCE + json.dumps({key: np.asarray(balance[key]).tolist() for key in keys}))


def post_process(
    model: Model,
    *,
    grid: "Grid",
    staging: "Staging",
    progress: Progress,
    state: RunState,
    sim_time: float,
    depth_frames: int = DEFAULT_DEPTH_FRAMES,
    outputs: RunOutputs = RunOutputs.FULL,
    clock: PhaseClock | None = None,
) -> dict[str, Any]:
    """Gather the ranks' recordings on rank 0 (collective), which writes the results under temporary names, then
    renames them into place with termination signals held off. The other ranks return empty statistics."""
    from hydrata.compute.outputs.depth_frames import write_depth_frames
    from hydrata.compute.outputs.results import write_results
    from hydrata.compute.simulation.losses import write_total_loss

    clock = clock or PhaseClock()
    domain = model.domain
    volume = float(domain.get_water_volume())
    volume_in = float(domain.get_fractional_step_volume_integral())
    totals = {"volume_m3": volume, "inflow_volume_m3": volume_in}
    progress.line(RunPhase.POST_PROCESSING, sim_time=sim_time, progress_pct=100.0, eta_seconds=0.0, **totals)
    account = volume_account(model)
    maxima, health, series = mesh_maxima(model), model_health(model, account), whole_series(model)
    total_loss = (  # compute/simulation/losses.py: the soils' map, collective
        write_total_loss(
            operator=model.losses,
            ranks=model.ranks,
            ownership=model.ownership,
            whole=model.whole,
            grid=grid,
            path_of=staging.path,
        )
        if outputs == RunOutputs.FULL
        else {}
    )
    if maxima is None or series is None:
        return {}
    from hydrata.compute.simulation import solver

    statistics = write_results(
        staging=staging,
        maxima=maxima,
        grid=grid,
        account=account,
        health=health,
        timing={"sim_seconds": sim_time, "wall_seconds": progress.wall_seconds()},
        series=series,
        extra_files=({"sww": SWW_NAME} if outputs == RunOutputs.FULL else {})
        | {"log": "run.log", "progress": "progress.jsonl"}
        | total_loss,
        inundation_threshold_m=model.peaks.inundation_threshold_m,
        outputs=outputs,
        solver=solver.solver_record(model.domain),
    )
    clock.mark("results")
    if outputs == RunOutputs.FULL:
        started = time.monotonic()
        frames = write_depth_frames(sww=model.sww_path, grid=grid, cap=depth_frames, path_of=staging.path)
        log(
            f"Depth at {frames['kept']} of {frames['saved']} saved times written in "
            f"{time.monotonic() - started:.2f} s (at most {depth_frames})."
        )
        clock.mark("depth_frames")
    held = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        state.raise_if_stopped()
        staging.commit()
        state.committed = True
        progress.line(RunPhase.POST_PROCESSING, sim_time=sim_time, progress_pct=100.0, eta_seconds=0.0, **totals)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, held)
    log(f"Complete: {json.dumps(statistics)}")
    clock.mark("commit")
    log(CHILD_PHASES_LINE + clock.as_json())
    return statistics


def _on_signal(state: RunState) -> Callable[[int, FrameType | None], None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        if state.committed or state.stopping:
            return
        state.stopping, state.signum = True, signum
        raise Terminated(signum)

    return handler


def _manifest_duration(package_dir: Path) -> float:
    """The package's duration for the first progress lines, read before the heavy imports; 0 if unreadable (the
    package is checked properly, with a message, straight after)."""
    try:
        duration = float(json.loads((package_dir / "scenario.json").read_text())["duration"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0
    return duration if math.isfinite(duration) and duration > 0 else 0.0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m hydrata.compute.simulation.simulate", description="Run a scenario package with ANUGA."
    )
    parser.add_argument("--package", type=Path, required=True, help="the package directory (holds scenario.json)")
    parser.add_argument("--output", type=Path, required=True, help="the directory results are written into")
    parser.add_argument(
        "--threads", type=int, default=None, help="OpenMP threads for ANUGA (default: OMP_NUM_THREADS, else 1)"
    )
    parser.add_argument(
        "--yield-seconds",
        type=float,
        default=None,
        help="model seconds between progress lines and guard checks (default: duration/100 within 1..60)",
    )
    parser.add_argument(
        "--outputs",
        choices=RunOutputs.values(),
        default=RunOutputs.FULL.value,
        help="what the run keeps: every result (full), or only what a design study's envelopes read (envelope)",
    )
    parser.add_argument(
        "--depth-frames",
        type=int,
        default=DEFAULT_DEPTH_FRAMES,
        help=f"the most saved frames kept as depth rasters, evenly spaced (default {DEFAULT_DEPTH_FRAMES}; 0: none)",
    )
    args = parser.parse_args(argv)
    if args.threads is None:
        args.threads = int(os.environ.get("OMP_NUM_THREADS") or 1)
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    if args.depth_frames < 0:
        parser.error("--depth-frames must be 0 or more")
    if args.yield_seconds is not None and not (math.isfinite(args.yield_seconds) and args.yield_seconds > 0):
        parser.error("--yield-seconds must be a positive number")
    args.package, args.output = args.package.resolve(), args.output.resolve()
    return args


def main(argv: list[str] | None = None) -> int:
    clock = PhaseClock()
    # the fork and exec, the interpreter's start and the module imports, before this line
    clock.add("before_main", wall=seconds_since_process_start(), cpu=time.process_time())
    state = RunState()
    signal.signal(signal.SIGTERM, _on_signal(state))
    signal.signal(signal.SIGINT, _on_signal(state))
    # Python ignores SIGXFSZ; by default it ends the process, so a file over the parent's size limit
    # (RLIMIT_FSIZE) stops the run at once and recognisably, not as some library's write error.
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    args = parse_args(argv)
    # OpenMP reads this when the runtime starts, so it must be set before anuga's extensions load
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    ranks = current_ranks()
    args.output.mkdir(parents=True, exist_ok=True)
    if ranks.is_root:
        clear_previous_run(args.output)
    ranks.broadcast(None)  # no rank writes into the output before rank 0 has cleared it
    progress = Progress(
        path=args.output / "progress.jsonl", duration=_manifest_duration(args.package), writes_lines=ranks.is_root
    )
    exit_code = EXIT_OK
    try:
        # run.log is rank 0's: the other ranks' ANUGA prints would repeat it; their failures go to progress.jsonl
        capture_stdout(args.output / "run.log" if ranks.is_root else Path(os.devnull))
        log(f"Simulation started: package {args.package}, output {args.output}, threads {args.threads}.")
        clock.mark("start")  # arguments, MPI's world under mpiexec, the output directory cleared
        run(args, progress, state, ranks, clock)
    except Terminated as stop:
        log(f"Stopped by {stop}.")
        if not ranks.parallel:  # under MPI a rank's death also SIGTERMs the others: this line would hide its cause
            progress.error(f"The simulation was stopped by {stop} before it finished; no results were kept.")
        return 128 + stop.signum
    except Unstable as unstable:
        state.stopping = True  # report first; a signal now changes nothing
        log(str(unstable))
        progress.error(str(unstable))
        exit_code = EXIT_UNSTABLE
    except Exception as error:
        state.stopping = True
        progress.error(failure_message(error, ranks=ranks))
        trace = traceback.format_exc()
        print(trace, file=sys.stderr, flush=True)
        log(f"{failure_message(error, ranks=ranks)}\n{trace}")
        exit_code = EXIT_FAILED
    if exit_code != EXIT_OK:
        ranks.abort(exit_code)  # the other ranks may be waiting in a collective this one will never reach
    return exit_code


def failure_message(error: Exception, *, ranks: Ranks | None = None) -> str:
    """One line for the progress file: a package problem says what to fix; anything else names the exception (and,
    under MPI, the rank it happened on)."""
    from hydrata.compute.scenario.package import PackageError

    detail = " ".join(str(error).split()) or type(error).__name__
    if isinstance(error, PackageError):
        return detail
    where = f" on rank {ranks.rank} of {ranks.size}" if ranks and ranks.parallel else ""
    return f"The simulation failed{where}: {type(error).__name__}: {detail}"


def skips_teardown(exit_code: int) -> bool:
    """Whether the process may end without the interpreter's teardown (about 0.56 CPU seconds with ANUGA loaded,
    benchmarks/design_study.py --overhead): once stopped by a signal, or complete in one process. Every file is
    closed or renamed into place by then; ranks under mpiexec finalize MPI at exit, so they always tear down."""
    return exit_code > 128 or (exit_code == EXIT_OK and not current_ranks().parallel)


if __name__ == "__main__":
    exit_code = main()
    if skips_teardown(exit_code):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(exit_code)
    sys.exit(exit_code)
