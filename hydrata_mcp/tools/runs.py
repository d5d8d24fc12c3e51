import asyncio
import base64
from datetime import datetime
from typing import Annotated, Any, Literal

from django.conf import settings
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ContentBlock, ImageContent, TextContent
from pydantic import BaseModel, ConfigDict, Field

from hydrata_contract import layers, paths, states
from hydrata_contract.compute import ComputeBackend
from hydrata_contract.errors import ErrorCode
from hydrata_contract.requests.runs import Ranks, RunSampleQuery, RunStart
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient, PlatformToolError, refusal_error
from hydrata_mcp.handback import HandBack
from hydrata_mcp.pagination import page_numbers
from hydrata_mcp.tools.arguments import ComputeBackendChoice, Page, PageSize, ProjectId, RunStatusChoice
from hydrata_mcp.tools.registry import tool

RunId = Annotated[int, Field(ge=1, description="From list_runs.")]
WHERE_TO_COMPUTE = (
    f"{ComputeBackend.LOCAL}: the platform's workers; {ComputeBackend.SLURM} or {ComputeBackend.BATCH} where "
    "configured."
)
RUN_LAYERS = tuple(f"result_layers.gn_layer_{layer}" for layer in layers.ResultLayer)
RUN_STATISTICS = ("statistics.hazard_area_m2_by_class", "statistics.mass_balance_error_pct")


class RunStatus(BaseModel):
    id: int
    status: str = Field(description=", ".join(states.RunStatus.values()))
    phase: str = Field(description=", ".join(states.RunPhase.values()))
    progress_pct: float
    eta_seconds: float | None
    error_message: str
    compute_backend: str | None
    ranks: int | None = Field(description="MPI processes it computes on.")
    worker_silent_seconds: int | None = Field(
        default=None, description="Seconds since its worker stopped reporting, once past the heartbeat timeout."
    )


class ResultLayer(BaseModel):
    name: str
    title: str
    units: str
    crs: str
    format: str


class Run(RunStatus):
    user_message: str
    scenario: int
    scenario_name: str
    project: int
    resolution: float
    duration: int
    sim_time: float | None
    mesh_triangle_count: int | None
    mesh_triangle_count_estimate: int | None
    compute_cost: str | None = Field(description="USD charged for the run.")
    retry_of: int | None
    created_at: datetime
    queued_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    wall_seconds: float | None
    log_tail: list[str] = Field(description="The last lines of the run log.")
    statistics: dict[str, Any] | None
    result_layers: dict[str, ResultLayer] = Field(description="gn_layer_* entries: the result rasters in the map.")


class RunList(BaseModel):
    count: int
    next_page: int | None
    previous_page: int | None
    results: list[Run]


class LaunchedRun(RunStatus, HandBack):
    compute_cost: str | None


class Place(BaseModel):
    triangle: int
    x: float
    y: float


class LimitingTriangle(Place):
    radius_m: float
    steps: int
    share: float = Field(description="Of all steps, 0-1.")


class PeakCourant(Place):
    value: float = Field(description="dt x wave speed / radius.")
    t: float | None


class Spike(Place):
    kind: Literal["speed", "depth"]
    t: float | None
    jump: float = Field(description="m/s or m, away and back.")


class Spikes(BaseModel):
    speed_jump_threshold_m_s: float
    depth_jump_threshold_m: float
    speed_cells: int
    depth_cells: int
    largest_speed_jump_m_s: float
    largest_depth_jump_m: float
    worst: list[Spike]


class MassError(BaseModel):
    healthy_line_pct: float
    final_m3: float
    final_pct: float | None = Field(description="Signed, of what came in.")
    largest_abs_pct: float | None
    largest_at_t: float | None
    series: dict[str, list[float | None]] = Field(description="t, error_m3, error_pct.")


class TimeSteps(BaseModel):
    min: float | None = Field(description="s, of the steps the model chose.")
    median: float | None
    max: float | None
    steps: int


class ModelHealth(BaseModel):
    verdict: Literal["healthy", "check", "unhealthy"]
    reasons: list[str]
    timestep_s: TimeSteps
    steps_limited_by: dict[str, int] = Field(description="courant, maximum_step, recording_time.")
    limiting_triangles: list[LimitingTriangle]
    cfl: float
    peak_courant: PeakCourant | None
    spikes: Spikes
    mass_error: MassError


class RunResults(BaseModel):
    id: int
    status: str
    statistics: dict[str, Any] = Field(
        description="Peaks with where and when (peak_*_at: x, y, t), flooded area per "
        "depth band and per hazard class (hazard_area_m2_by_class), "
        "the volume balance and mass_balance_error_pct."
    )
    warnings: list[str] = Field(
        default_factory=list, description="E.g. a mass error above 1%: read before trusting the numbers."
    )
    health: ModelHealth | None = Field(default=None, description="Verdict, reasons, evidence; null for older runs.")
    result_layers: dict[str, ResultLayer]


class PointValue(BaseModel):
    x: float
    y: float
    peak_depth: float | None = Field(description="Metres; null outside the mesh or never wet.")
    peak_stage: float | None
    peak_speed: float | None
    max_hazard: int | None = Field(default=None, description="ARR 2019 hazard class 1-6, 0 dry.")
    time_of_inundation_s: float | None = Field(
        default=None, description="When the depth first passed the scenario's inundation threshold; null if never."
    )
    duration_of_inundation_s: float | None = None


class SampledPoints(BaseModel):
    id: int
    crs: str
    points: list[PointValue]


class Point(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt key inside a point is refused, as at the top level

    x: float
    y: float


def run_status(data: dict[str, Any]) -> RunStatus:
    return RunStatus.model_validate({name: data.get(name) for name in RunStatus.model_fields})


def layers_of(data: dict[str, Any]) -> dict[str, ResultLayer]:
    return {key: ResultLayer(**value) for key, value in data.items() if key.startswith("gn_layer_")}


def run_of(data: dict[str, Any]) -> Run:
    fields = {name: data.get(name) for name in Run.model_fields if name != "result_layers"}
    return Run.model_validate({**fields, "result_layers": layers_of(data)})


async def _post_launch(api: PlatformClient, path: str, *, json: dict[str, Any] | None = None) -> dict[str, Any]:
    """POST a start or a retry. A refusal for want of the user's sign-off carries the map link to give them."""
    response = await api.post(path, json=json, allow=(409,))
    if response.status != 409:
        return response.data
    body = response.data if isinstance(response.data, dict) else {}
    if body.get("code") != ErrorCode.APPROVAL_REQUIRED:
        raise refusal_error(409, body)
    link = str(body.get("ui_url") or "")
    if not link.startswith(f"{settings.HYDRATA_SITE_URL}/"):
        link = f"{settings.HYDRATA_SITE_URL}/catalogue/"  # never relay a link to anywhere but this site
    raise PlatformToolError(
        "Hydrata refused the request (HTTP 409, APPROVAL_REQUIRED): this account wants its owner to approve a "
        "scenario before an agent runs it, and this scenario is not approved as it is now (any change since an "
        f"approval needs a new one). Ask the user to review it and press 'Approve for a run' here: {link} "
        "Then call this tool again.",
        status=409,
        code=ErrorCode.APPROVAL_REQUIRED,
    )


def _launched(data: dict[str, Any], verb: str, say: str) -> LaunchedRun:
    status = run_status(data)
    link = data["ui_url"]
    return LaunchedRun(
        **status.model_dump(),
        compute_cost=data.get("compute_cost"),
        ui_url=link,
        summary={
            "run_id": status.id,
            "status": status.status,
            "compute_cost": data.get("compute_cost"),
            "mesh_triangle_count": data.get("mesh_triangle_count"),
            "ranks": status.ranks,
        },
        say_to_user=f"{say} Follow it here: {link}",
    )


@tool(title="Start a simulation", relied_on=("id", "status"))
async def start_simulation(
    ctx: Context,
    scenario_id: Annotated[int, Field(ge=1, description="A built scenario (see build_scenario).")],
    compute_backend: Annotated[ComputeBackendChoice, Field(description=WHERE_TO_COMPUTE)] = ComputeBackend.LOCAL,
    ranks: Annotated[Ranks, Field(description="MPI processes to split the mesh over; each extra one costs more.")] = 1,
) -> LaunchedRun:
    """Run a built scenario's ANUGA simulation. It SPENDS MONEY: only after the user reviewed the model and said
    to run it. Refused when paused, over the spend limit or unapproved (APPROVAL_REQUIRED, with the link)."""
    api = PlatformClient.for_context(ctx)
    data = await _post_launch(
        api,
        paths.SCENARIO_RUN.url(scenario_id=scenario_id),
        json=body(RunStart, compute_backend=compute_backend, ranks=ranks),
    )
    on_ranks = f" on {data['ranks']} MPI ranks" if (data.get("ranks") or 1) > 1 else ""
    return _launched(
        data,
        "started",
        f"The simulation of '{data['scenario_name']}' is queued{on_ranks} (run {data['id']}, "
        f"${data.get('compute_cost')}).",
    )


@tool(
    title="Get run status",
    read_only=True,
    idempotent=True,
    relied_on=("id", "status", "phase", "progress_pct", "eta_seconds", "error_message", "compute_backend"),
)
async def get_run_status(ctx: Context, run_id: RunId) -> RunStatus:
    """A run's light, fast status; poll it every 10-30 s while a simulation computes."""
    api = PlatformClient.for_context(ctx)
    return run_status((await api.get(paths.RUN_STATUS.url(run_id=run_id))).data)


@tool(title="Get a run", read_only=True, idempotent=True, relied_on=(*RUN_LAYERS, *RUN_STATISTICS))
async def get_run(ctx: Context, run_id: RunId) -> Run:
    """A run's full record: timing, mesh, cost, the log's last lines, statistics and result layers (gn_layer_*)."""
    api = PlatformClient.for_context(ctx)
    return run_of((await api.get(paths.RUN_DETAIL.url(run_id=run_id))).data)


@tool(title="List runs", read_only=True, idempotent=True)
async def list_runs(
    ctx: Context,
    project_id: ProjectId,
    status_filter: Annotated[RunStatusChoice | None, Field(description="Only runs in this state.")] = None,
    page: Page = 1,
    page_size: PageSize = 100,
) -> RunList:
    """List a project's runs, newest first, optionally in one state only."""
    api = PlatformClient.for_context(ctx)
    params: dict[str, Any] = {"page": page, "page_size": page_size}
    if status_filter:
        params["status"] = status_filter
    data = (await api.get(paths.PROJECT_RUNS.url(project_id=project_id), params=params)).data
    return RunList(**page_numbers(data), results=[run_of(item) for item in data["results"]])


@tool(title="Cancel a run", destructive=True, relied_on=("id", "status"))
async def cancel_run(ctx: Context, run_id: RunId) -> LaunchedRun:
    """Stop a run (a computing one within seconds, keeping no results); refused (409) once it ended."""
    api = PlatformClient.for_context(ctx)
    await api.post(paths.RUN_CANCEL.url(run_id=run_id))
    data = (await api.get(paths.RUN_DETAIL.url(run_id=run_id))).data
    return _launched(data, states.RunStatus.CANCELLED, f"Run {run_id} is being cancelled (now {data['status']}).")


@tool(title="Retry a run", relied_on=("id", "status"))
async def retry_run(ctx: Context, run_id: RunId) -> LaunchedRun:
    """Retry a run that ended in error as a new run (built again, then computed); it spends money like
    start_simulation."""
    api = PlatformClient.for_context(ctx)
    data = await _post_launch(api, paths.RUN_RETRY.url(run_id=run_id))
    return _launched(data, "retried", f"Run {run_id} is being retried as run {data['id']}.")


@tool(
    title="Get run results",
    read_only=True,
    idempotent=True,
    relied_on=(*RUN_LAYERS, *RUN_STATISTICS),
)
async def get_run_results(ctx: Context, run_id: RunId) -> Annotated[CallToolResult, RunResults]:
    """A complete run's peaks (where, when), flooded areas by depth and ARR 2019 hazard class, mass balance
    (read the warnings), model health, result layers and a PNG of maximum depth."""
    api = PlatformClient.for_context(ctx)
    answer, preview = await asyncio.gather(api.get(paths.RUN_RESULTS.url(run_id=run_id)), _preview(api, run_id))
    data = answer.data
    statistics = dict(data.get("statistics") or {})
    health = statistics.pop("health", None)
    results = RunResults(
        id=data["id"],
        status=data["status"],
        statistics=statistics,
        warnings=statistics.get("warnings") or [],
        health=None if health is None else ModelHealth.model_validate(health),
        result_layers=layers_of(data),
    )
    content: list[ContentBlock] = [TextContent(type="text", text=results.model_dump_json(indent=2))]
    if preview is not None:
        base64.b64decode(preview["data"], validate=True)  # only a real image goes to the model
        content.append(ImageContent(type="image", data=preview["data"], mime_type=preview["mime_type"]))
    return CallToolResult(content=content, structured_content=results.model_dump(mode="json"))


async def _preview(api: PlatformClient, run_id: int) -> dict[str, Any] | None:
    """The run's PNG of maximum depth; None for a design study's member, which keeps none."""
    try:
        return (await api.get(paths.RUN_PREVIEW.url(run_id=run_id))).data
    except PlatformToolError as refused:
        if refused.code == ErrorCode.LAYER_NOT_FOUND:
            return None
        raise


@tool(
    title="Sample run results",
    read_only=True,
    idempotent=True,
    relied_on=tuple(f"points.{key}" for key in ("x", "y", "peak_depth", "peak_stage", "peak_speed")),
)
async def sample_run_results(
    ctx: Context,
    run_id: RunId,
    points: Annotated[list[Point], Field(min_length=1, max_length=1000, description="[{x, y}, ...]")],
    crs: Annotated[str | None, Field(description="CRS of the points, e.g. EPSG:4326; default the project's.")] = None,
) -> SampledPoints:
    """A complete run's peaks, hazard class and inundation times at points, in order (null outside the mesh)."""
    api = PlatformClient.for_context(ctx)
    data = (
        await api.post(
            paths.RUN_SAMPLE.url(run_id=run_id),
            json=body(RunSampleQuery, points=[p.model_dump() for p in points], crs=crs or ""),
        )
    ).data
    return SampledPoints(id=data["id"], crs=data["crs"], points=[PointValue(**p) for p in data["points"]])
