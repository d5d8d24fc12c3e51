import asyncio
import base64
from typing import Annotated, Any

from django.conf import settings
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ContentBlock, ImageContent, TextContent
from pydantic import BaseModel, ConfigDict, Field

from hydrata_contract import layers, paths, states
from hydrata_contract.answers.runs import (
    ModelHealth,
    ResultLayerEntry,
    ResultLayers,
    RunDetail,
    RunPage,
    RunPreview,
    RunSample,
    RunState,
    RunStatistics,
)
from hydrata_contract.answers.runs import RunResults as RunResultsAnswer
from hydrata_contract.compute import ComputeBackend
from hydrata_contract.errors import ErrorCode
from hydrata_contract.requests.runs import PointXY, Ranks, RunSampleQuery, RunStart
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient, PlatformToolError, refusal_error
from hydrata_mcp.handback import HandBack
from hydrata_mcp.pagination import page_numbers
from hydrata_mcp.tools.arguments import ComputeBackendChoice, Page, PageSize, ProjectId, RunStatusChoice
from hydrata_mcp.tools.projections import Projection
from hydrata_mcp.tools.registry import tool

RunId = Annotated[int, Field(ge=1, description="From list_runs.")]
WHERE_TO_COMPUTE = (
    f"{ComputeBackend.LOCAL}: the platform's workers; {ComputeBackend.SLURM} or {ComputeBackend.BATCH} where "
    "configured."
)
RUN_LAYERS = tuple(f"result_layers.gn_layer_{layer}" for layer in layers.ResultLayer)
RUN_STATISTICS = ("statistics.hazard_area_m2_by_class", "statistics.mass_balance_error_pct")


STATUS_FIELDS = ("id", "status", "phase", "progress_pct", "eta_seconds", "error_message", "compute_backend", "ranks")


class RunStatus(Projection, of=RunState, fields=(*STATUS_FIELDS, "worker_silent_seconds")):
    """A run's light status, as the contract's RunState says it."""


class Run(
    Projection,
    of=RunDetail,
    fields=(
        *STATUS_FIELDS,
        *("worker_silent_seconds", "user_message", "scenario", "scenario_name", "project", "resolution", "duration"),
        *("sim_time", "mesh_triangle_count", "mesh_triangle_count_estimate", "compute_cost", "retry_of"),
        *("created_at", "queued_at", "started_at", "finished_at", "wall_seconds", "log_tail", "statistics"),
    ),
):
    result_layers: dict[str, ResultLayerEntry] = Field(description="gn_layer_* entries: the result rasters in the map.")


class RunList(BaseModel):
    """A page of runs, with page numbers for the paginator's links."""

    count: int
    next_page: int | None
    previous_page: int | None
    results: list[Run]


class LaunchedRun(RunStatus, HandBack):
    compute_cost: str | None


class RunResults(BaseModel):
    """The contract's RunResults with its model health beside its statistics, and its rasters by name."""

    id: int
    status: states.RunStatus
    statistics: dict[str, Any] = Field(
        description="Peaks with where and when (peak_*_at: x, y, t), flooded area per "
        "depth band and per hazard class (hazard_area_m2_by_class), "
        "the volume balance and mass_balance_error_pct."
    )
    warnings: list[str] = Field(
        default_factory=list, description="E.g. a mass error above 1%: read before trusting the numbers."
    )
    health: ModelHealth | None = Field(default=None, description="Verdict, reasons, evidence; null for older runs.")
    result_layers: dict[str, ResultLayerEntry]


# A point of a request, its x and y in the request's CRS: described once, by the argument that lists them (a
# docstring here would be published in every schema that takes points).
class Point(Projection, of=PointXY, fields=("x", "y"), described={"x": None, "y": None}):
    model_config = ConfigDict(extra="forbid")  # a misspelt key inside a point is refused, as at the top level


def layers_of(answer: ResultLayers) -> dict[str, ResultLayerEntry]:
    """The run's rasters by name (gn_layer_*), those it has."""
    entries = {name: getattr(answer, name) for name in ResultLayers.model_fields if name.startswith("gn_layer_")}
    return {name: entry for name, entry in entries.items() if entry is not None}


def run_of(answer: RunDetail) -> Run:
    return Run.from_answer(answer, result_layers=layers_of(answer))


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


def _launched(run: RunDetail, verb: str, say: str) -> LaunchedRun:
    return LaunchedRun.from_answer(
        run,
        summary={
            "run_id": run.id,
            "status": run.status,
            "compute_cost": run.compute_cost,
            "mesh_triangle_count": run.mesh_triangle_count,
            "ranks": run.ranks,
        },
        say_to_user=f"{say} Follow it here: {run.ui_url}",
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
    run = RunDetail.model_validate(data)
    on_ranks = f" on {run.ranks} MPI ranks" if (run.ranks or 1) > 1 else ""
    return _launched(
        run,
        "started",
        f"The simulation of '{run.scenario_name}' is queued{on_ranks} (run {run.id}, ${run.compute_cost}).",
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
    return RunStatus.from_answer(RunState.model_validate((await api.get(paths.RUN_STATUS.url(run_id=run_id))).data))


@tool(title="Get a run", read_only=True, idempotent=True, relied_on=(*RUN_LAYERS, *RUN_STATISTICS))
async def get_run(ctx: Context, run_id: RunId) -> Run:
    """A run's full record: timing, mesh, cost, the log's last lines, statistics and result layers (gn_layer_*)."""
    api = PlatformClient.for_context(ctx)
    return run_of(RunDetail.model_validate((await api.get(paths.RUN_DETAIL.url(run_id=run_id))).data))


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
    return RunList(**page_numbers(data), results=[run_of(run) for run in RunPage.model_validate(data).results])


@tool(title="Cancel a run", destructive=True, relied_on=("id", "status"))
async def cancel_run(ctx: Context, run_id: RunId) -> LaunchedRun:
    """Stop a run (a computing one within seconds, keeping no results); refused (409) once it ended."""
    api = PlatformClient.for_context(ctx)
    await api.post(paths.RUN_CANCEL.url(run_id=run_id))
    run = RunDetail.model_validate((await api.get(paths.RUN_DETAIL.url(run_id=run_id))).data)
    return _launched(run, states.RunStatus.CANCELLED, f"Run {run_id} is being cancelled (now {run.status}).")


@tool(title="Retry a run", relied_on=("id", "status"))
async def retry_run(ctx: Context, run_id: RunId) -> LaunchedRun:
    """Retry a run that ended in error as a new run (built again, then computed); it spends money like
    start_simulation."""
    api = PlatformClient.for_context(ctx)
    run = RunDetail.model_validate(await _post_launch(api, paths.RUN_RETRY.url(run_id=run_id)))
    return _launched(run, "retried", f"Run {run_id} is being retried as run {run.id}.")


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
    answered = RunResultsAnswer.model_validate(answer.data)
    statistics = answered.statistics or RunStatistics()
    results = RunResults(
        id=answered.id,
        status=answered.status,
        statistics=statistics.model_dump(mode="json", exclude_unset=True, exclude={"health"}),
        warnings=statistics.warnings or [],
        health=statistics.health,
        result_layers=layers_of(answered),
    )
    content: list[ContentBlock] = [TextContent(type="text", text=results.model_dump_json(indent=2))]
    if preview is not None:
        base64.b64decode(preview.data, validate=True)  # only a real image goes to the model
        content.append(ImageContent(type="image", data=preview.data, mime_type=preview.mime_type))
    return CallToolResult(content=content, structured_content=results.model_dump(mode="json"))


async def _preview(api: PlatformClient, run_id: int) -> RunPreview | None:
    """The run's PNG of maximum depth; None for a design study's member, which keeps none."""
    try:
        return RunPreview.model_validate((await api.get(paths.RUN_PREVIEW.url(run_id=run_id))).data)
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
) -> RunSample:
    """A complete run's peaks, hazard class and inundation times at points, in order (null outside the mesh)."""
    api = PlatformClient.for_context(ctx)
    data = (
        await api.post(
            paths.RUN_SAMPLE.url(run_id=run_id),
            json=body(RunSampleQuery, points=[p.model_dump() for p in points], crs=crs or ""),
        )
    ).data
    return RunSample.model_validate(data)
