"""A run's answers: its state while it builds and computes, all of it, its results, values at points, series
over time, its preview, and its impact against another run."""

from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field

from hydrata_contract.answers.base import Answer, Page, Picture, Sparse, Withheld, map_link
from hydrata_contract.answers.queues import QueuePlace
from hydrata_contract.compute import ComputeBackend
from hydrata_contract.states import RunPhase, RunStatus


class RunState(Sparse, Withheld):
    """run_status. A public reader's answer has the withheld fields empty (see `withheld`)."""

    id: int
    status: RunStatus
    phase: RunPhase
    progress_pct: float
    eta_seconds: float | None
    error_message: str
    user_message: str
    compute_backend: ComputeBackend | None
    ranks: int | None = Field(description="MPI processes the run computes on.")
    sim_time: float | None
    duration: int
    cancel_requested: bool | None
    ui_url: str = map_link()
    updated_at: datetime
    worker_silent_seconds: int | None = Field(
        description="While the run computes: the worker running it stopped reporting this many seconds ago, longer "
        "than the heartbeat timeout (it was killed or its machine lost). The run is ended in error by the next "
        "stale-run sweep, which needs a live worker to run on: until one runs it, the run stays in its state. "
        "Null while the worker reports, and once the run has ended."
    )
    queue: QueuePlace | None = Field(
        description="While its build or simulation has not ended: queued (with the work ahead) or running; else null."
    )


class ResultLayerEntry(Answer):
    """One raster of a finished run, as the map lists it."""

    name: str
    title: str
    units: str
    crs: str
    format: str


def _entry() -> Any:
    return Field(default=None, description="Absent when the run has no such raster (older runs lack the last three).")


def _signed() -> Any:
    return Field(default=None, description="A signed download link; agents only, members only.")


class ResultLayers(Sparse):
    """result_layers: each raster of a finished run, and its signed download link for those who may have one."""

    gn_layer_max_depth: ResultLayerEntry | None = _entry()
    gn_layer_max_speed: ResultLayerEntry | None = _entry()
    gn_layer_max_stage: ResultLayerEntry | None = _entry()
    gn_layer_max_hazard: ResultLayerEntry | None = _entry()
    gn_layer_time_of_inundation: ResultLayerEntry | None = _entry()
    gn_layer_duration_of_inundation: ResultLayerEntry | None = _entry()
    gn_layer_total_loss: ResultLayerEntry | None = Field(default=None, description="Only when soils took rain.")
    s3_max_depth_url: str | None = _signed()
    s3_max_speed_url: str | None = _signed()
    s3_max_stage_url: str | None = _signed()
    s3_max_hazard_url: str | None = _signed()
    s3_time_of_inundation_url: str | None = _signed()
    s3_duration_of_inundation_url: str | None = _signed()
    s3_total_loss_url: str | None = _signed()
    s3_log_url: str | None = _signed()
    s3_preview_url: str | None = _signed()


class Where(Answer):
    x: float = Field(description="Project CRS.")
    y: float
    t: float | None = Field(description="Seconds from the run's start.")


class TimeStepFigures(Answer):
    """Of the steps the model chose (a step cut short to land on a recording time is left out); `steps` counts all."""

    min: float | None = Field(description="s")
    median: float | None = Field(description="s")
    max: float | None = Field(description="s")
    steps: int = Field(description="Every internal step ANUGA took.")


class StepsLimitedBy(Answer):
    courant: int = Field(description="Steps set by one triangle's Courant (CFL) condition.")
    maximum_step: int = Field(description="Steps capped at the largest step allowed.")
    recording_time: int = Field(description="Steps cut short to land on a recording time.")


class LimitingTriangle(Answer):
    triangle: int = Field(description="Index in the mesh.")
    x: float = Field(description="Its centroid, project CRS.")
    y: float
    radius_m: float = Field(description="Its inscribed radius, which ANUGA's CFL condition uses.")
    steps: int = Field(description="Steps it limited.")
    share: float = Field(description="Of all steps, 0-1.")


class PeakCourant(Answer):
    value: float = Field(description="Step x the triangle's max wave speed / its inscribed radius.")
    triangle: int
    x: float
    y: float
    t: float | None


class Spike(Answer):
    kind: Literal["speed", "depth"]
    triangle: int
    x: float
    y: float
    t: float | None = Field(description="The recording at the top (or bottom) of its spike.")
    jump: float = Field(description="m/s or m: the smaller of its jump away and its jump back.")


class Spikes(Answer):
    speed_jump_threshold_m_s: float
    depth_jump_threshold_m: float
    speed_cells: int = Field(
        description="Triangles whose speed jumped over the threshold away from a recording and back at the next."
    )
    depth_cells: int
    largest_speed_jump_m_s: float
    largest_depth_jump_m: float
    worst: list[Spike] = Field(description="The largest few of each kind.")


class MassErrorSeries(Answer):
    t: list[float]
    error_m3: list[float]
    error_pct: list[float | None]


class MassError(Answer):
    """Cumulative: stored now - at the start - what came in + what left, signed, as % of what came in."""

    healthy_line_pct: float = Field(description="±1: a healthy model stays within it.")
    final_m3: float
    final_pct: float | None = Field(description="Null when under 1 m³ came in.")
    largest_abs_pct: float | None
    largest_at_t: float | None
    series: MassErrorSeries = Field(description="At most 50 recordings, the first and last among them.")


class ModelHealth(Answer):
    """compute/simulation/health.py: health_report. Is the model healthy? With the evidence."""

    verdict: Literal["healthy", "check", "unhealthy"]
    reasons: list[str] = Field(description="One sentence per finding; [] if healthy.")
    timestep_s: TimeStepFigures
    steps_limited_by: StepsLimitedBy
    limiting_triangles: list[LimitingTriangle] = Field(description="Those that limited the most steps, most first.")
    cfl: float = Field(description="ANUGA's CFL number: a step is at most this Courant number.")
    peak_courant: PeakCourant | None
    spikes: Spikes
    mass_error: MassError


class VolumeBalance(Sparse):
    """compute/outputs/run_statistics.py: VolumeAccount.as_json, m³ (error_pct a %). A run written before a key existed
    lacks it."""

    model_config = ConfigDict(extra="allow")

    initial_m3: float | None = None
    rainfall_m3: float | None = None
    inflow_m3: float | None = None
    boundary_in_m3: float | None = None
    boundary_out_m3: float | None = None
    losses_m3: float | None = None
    rainfall_excess_m3: float | None = None
    final_m3: float | None = None
    came_in_m3: float | None = None
    error_m3: float | None = None
    error_pct: float | None = None


class SolverRecord(Sparse):
    """compute/simulation/solver.py: solver_record. The ANUGA version and the domain's parameters the run computed
    with."""

    model_config = ConfigDict(extra="allow")

    anuga_version: str | None = None
    parameters: dict[str, Any] | None = None


class RunStatistics(Sparse):
    """compute/outputs/run_statistics.py: run_statistics; the run's `statistics` column, written and read through this
    model. Every key may be missing from a run written before it existed, and a run's statistics.json may hold keys
    of its own time: they pass through as written."""

    model_config = ConfigDict(extra="allow")

    peak_depth_m: float | None = None
    peak_speed_m_s: float | None = None
    peak_stage_m: float | None = None
    peak_depth_at: Where | None = None
    peak_speed_at: Where | None = None
    peak_stage_at: Where | None = None
    flooded_area_m2_by_depth_band: dict[str, float] | None = None
    wet_area_m2: float | None = None
    hazard_area_m2_by_class: dict[str, float] | None = None
    inundation_threshold_m: float | None = None
    inundated_area_m2: float | None = None
    volume_in_m3: float | None = None
    volume_out_m3: float | None = None
    final_volume_m3: float | None = None
    boundary_net_inflow_m3: float | None = None
    volume_balance: VolumeBalance | None = None
    mass_balance_error_pct: float | None = None
    warnings: list[str] | None = None
    gauges: list[str] | None = None
    flow_lines: list[str] | None = None
    sim_seconds: float | None = None
    wall_seconds: float | None = None
    triangles: int | None = None
    health: ModelHealth | None = Field(default=None, description="Is the model healthy? With the evidence.")
    solver: SolverRecord | None = Field(default=None, description="The solver and its settings, as the run ran.")


class RunDetail(RunState, ResultLayers):
    """run_detail."""

    scenario: int
    project: int
    scenario_name: str
    resolution: float
    mesh_triangle_count: int | None
    mesh_triangle_count_estimate: int | None
    compute_cost: str | None = Field(description="A decimal amount in `currency`.")
    currency: str
    retry_of: int | None
    created_at: datetime
    build_started_at: datetime | None
    build_finished_at: datetime | None
    queued_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    wall_seconds: float | None
    log_tail: list[str]
    statistics: RunStatistics | None


class RunPage(Page):
    results: list[RunDetail]
    ui_url: str = Field(description="The map's Run panel.")


class RunResults(Withheld, ResultLayers):
    """RunResultsView."""

    id: int
    status: RunStatus
    ui_url: str = map_link()
    statistics: RunStatistics | None


class RunPreview(Picture):
    id: int


class SampledPoint(Answer):
    """run_results.sample: null outside the mesh, and for the inundation times where it never got wet."""

    x: float
    y: float
    peak_depth: float | None
    peak_stage: float | None
    peak_speed: float | None
    max_hazard: int | None
    time_of_inundation_s: float | None
    duration_of_inundation_s: float | None


class RunSample(Answer):
    id: int
    crs: str
    points: list[SampledPoint]


class Series(Sparse):
    """run_time_series: a gauge (x, y, stage, depth, speed, xvel, yvel), a flow line (discharge) or a point (x, y,
    stage, depth, speed; null off the mesh), each value at the times `t`.

    A flow line's discharge at `t[i]` is the volume of water that crossed it between `t[i-1]` and `t[i]` (summed
    step by step from the solver's own fluxes across the mesh edges the line crosses) divided by that interval: the
    interval's mean, in m³/s, positive from the line's left to its right; 0 at the first time."""

    name: str
    kind: Literal["gauge", "flow_line", "point"]
    t: list[float]
    x: float | None = None
    y: float | None = None
    stage: list[float | None] | None = None
    depth: list[float | None] | None = None
    speed: list[float | None] | None = None
    xvel: list[float | None] | None = None
    yvel: list[float | None] | None = None
    discharge: list[float | None] | None = None


class RunTimeSeries(Answer):
    id: int
    crs: str
    series: list[Series]
    chart: Picture


class GaugeChange(Answer):
    """compute/comparisons/impact.py: gauge_changes."""

    name: str
    run_peak_depth_m: float | None = Field(description="The max-depth raster at the gauge.")
    other_peak_depth_m: float | None
    change_m: float | None = Field(description="other - run.")
    change_pct: float | None = Field(description="Of the run's peak; null where it is under 1 cm.")


class RunImpact(Sparse):
    """RunImpactView: other - run on maximum depth and stage, and peak depth at each gauge both recorded (the same
    scenario at two resolutions: a mesh-convergence check)."""

    id: int
    project: int
    scenario: int
    ui_url: str = map_link()
    run: int
    other_run: int
    statistics: dict[str, Any]
    run_resolution_m: float
    other_resolution_m: float
    gauges: list[GaugeChange] = Field(description="Same scenario, two resolutions: a mesh-convergence check.")
    gn_layer_impact_depth: ResultLayerEntry
    gn_layer_impact_stage: ResultLayerEntry
    s3_impact_depth_url: str | None = Field(default=None, description="A signed download link; agents only.")
    s3_impact_stage_url: str | None = Field(default=None, description="A signed download link; agents only.")
    image: Picture


class RunCompact(Sparse, Withheld):
    """run_compact: the latest run as a scenario's answer carries it. In a page of scenarios a public reader's has
    the withheld fields empty (see `withheld`)."""

    id: int
    status: RunStatus
    error_message: str
    user_message: str
    mesh_triangle_count: int | None
    created_at: datetime
    queue: QueuePlace | None = Field(
        description="While its build or simulation has not ended: queued (with the work ahead) or running; else null."
    )


class BuiltRun(RunCompact):
    """The run a build request made or found (ScenarioBuildView)."""

    mesh_triangle_count_estimate: int | None
