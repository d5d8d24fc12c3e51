"""A run's answers: its state while it builds and computes, all of it, its results, values at points, series
over time, its preview, and its impact against another run."""

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from hydrata_contract.answers.base import Answer, Picture, Withheld, map_link
from hydrata_contract.compute import ComputeBackend
from hydrata_contract.states import RunPhase, RunStatus


class RunState(Withheld):
    """run_status. A public reader's answer has the withheld fields empty (see `withheld`)."""

    id: int
    status: RunStatus
    phase: RunPhase
    progress_pct: float
    eta_seconds: float | None
    error_message: str
    user_message: str
    compute_backend: ComputeBackend | None
    sim_time: float | None
    duration: int
    cancel_requested: bool | None
    ui_url: str = map_link()
    updated_at: datetime


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


class ResultLayers(Answer):
    """result_layers: each raster of a finished run, and its signed download link for those who may have one."""

    gn_layer_max_depth: ResultLayerEntry | None = _entry()
    gn_layer_max_speed: ResultLayerEntry | None = _entry()
    gn_layer_max_stage: ResultLayerEntry | None = _entry()
    gn_layer_max_hazard: ResultLayerEntry | None = _entry()
    gn_layer_time_of_inundation: ResultLayerEntry | None = _entry()
    gn_layer_duration_of_inundation: ResultLayerEntry | None = _entry()
    s3_max_depth_url: str | None = _signed()
    s3_max_speed_url: str | None = _signed()
    s3_max_stage_url: str | None = _signed()
    s3_max_hazard_url: str | None = _signed()
    s3_time_of_inundation_url: str | None = _signed()
    s3_duration_of_inundation_url: str | None = _signed()
    s3_log_url: str | None = _signed()
    s3_preview_url: str | None = _signed()


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
    statistics: dict[str, Any] | None


class RunPage(Answer):
    count: int
    next: str | None
    previous: str | None
    results: list[RunDetail]
    ui_url: str = Field(description="The map's Run panel.")


class RunResults(Withheld, ResultLayers):
    """RunResultsView."""

    id: int
    status: RunStatus
    ui_url: str = map_link()
    statistics: dict[str, Any] | None


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


class Series(Answer):
    """run_time_series: a gauge (x, y, stage, depth, speed, xvel, yvel), a flow line (discharge) or a point (x, y,
    stage, depth, speed; null off the mesh), each value at the times `t`."""

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


class RunImpact(Answer):
    """RunImpactView: other - run on maximum depth and stage."""

    id: int
    project: int
    scenario: int
    ui_url: str = map_link()
    run: int
    other_run: int
    statistics: dict[str, Any]
    gn_layer_impact_depth: ResultLayerEntry
    gn_layer_impact_stage: ResultLayerEntry
    s3_impact_depth_url: str | None = Field(default=None, description="A signed download link; agents only.")
    s3_impact_stage_url: str | None = Field(default=None, description="A signed download link; agents only.")
    image: Picture


class RunCompact(Withheld):
    """run_compact: the latest run as a scenario's answer carries it. In a page of scenarios a public reader's has
    the withheld fields empty (see `withheld`)."""

    id: int
    status: RunStatus
    error_message: str
    user_message: str
    mesh_triangle_count: int | None
    created_at: datetime


class BuiltRun(RunCompact):
    """The run a build request made or found (ScenarioBuildView)."""

    mesh_triangle_count_estimate: int | None
