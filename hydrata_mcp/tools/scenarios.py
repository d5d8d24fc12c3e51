from datetime import datetime
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from hydrata_contract import paths
from hydrata_contract.answers.scenarios import Problem, ScenarioDetail, ScenarioPage, ScenarioSummary
from hydrata_contract.errors import ErrorCode
from hydrata_contract.links import Panel, relink
from hydrata_contract.requests.scenarios import ScenarioChanges, ScenarioClone, ScenarioCreate
from hydrata_contract.states import BUILD_IN_FLIGHT, RunStatus
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.handback import HandBack
from hydrata_mcp.polling import (
    DEFAULT_POLL_INTERVAL_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
    PollIntervalSeconds,
    TimeoutSeconds,
    queue_in_words,
    wait_for,
)
from hydrata_mcp.tools.arguments import ProjectId
from hydrata_mcp.tools.projections import Projection
from hydrata_mcp.tools.registry import tool
from hydrata_mcp.tools.time_series import figure

CONFIRM_ABOVE_TRIANGLES = 100_000
BUILD_FAILED = (RunStatus.ERROR, RunStatus.CANCELLED)
# What a scenario's result promises: the price of a run before it is built, and where the scenario stands.
ESTIMATE = ("mesh_triangle_count_estimate", "compute_cost_estimate", "vcpu_hours_estimate", "computed_status")

ScenarioId = Annotated[int, Field(ge=1, description="From list_scenarios.")]
Resolution = Annotated[
    float, Field(ge=0.1, le=1000, description="Mesh resolution, m (largest base triangle: resolution²/2 m²).")
]
Duration = Annotated[int, Field(ge=1, le=2_592_000, description="Simulated seconds.")]
# No minimum in the schema (14 of these in two tools cost the catalog 336 B): the platform refuses an id under 1.
InputId = Annotated[int | None, Field(description="From list_inputs.")]
ModelStart = Annotated[datetime | None, Field(description="Start time (for time series).")]
InputName = Literal[
    "terrain",
    "boundary",
    "friction",
    "inflow",
    "rainfall",
    "structure",
    "breakline",
    "culvert",
    "weir",
    "mesh_region",
    "gauge",
    "flow_line",
    "initial_condition",
    "soil",
]
InundationThreshold = Annotated[
    float | None,
    Field(
        gt=0,
        le=10,
        description="Inundated above this depth, m; default 0.05.",
    ),
]


class ScenarioView(
    Projection,
    of=ScenarioDetail,
    fields=(
        *("id", "name", "description", "computed_status", "terrain", "boundary", "friction", "inflow", "rainfall"),
        *("structure", "breakline", "culvert", "weir", "mesh_region", "gauge", "flow_line", "initial_condition"),
        *("soil", "resolution", "duration", "model_start", "inundation_threshold_m", "mesh_triangle_count_estimate"),
        *("mesh_estimate_breakdown", "mesh_estimate_problem", "mesh_estimate_warnings", "vcpu_hours_estimate"),
        *("compute_cost_estimate", "latest_run", "latest_run_is_valid", "changed_since_build", "approval"),
    ),
):
    pass


class ScenarioRow(
    Projection,
    of=ScenarioSummary,
    fields=("id", "name", "resolution", "duration", "computed_status", "latest_run", "latest_run_is_valid"),
):
    pass


class ScenarioList(BaseModel):
    results: list[ScenarioRow]


class ScenarioWithHandBack(ScenarioView, HandBack):
    pass


class BuildResult(HandBack):
    outcome: str = Field(
        description="built, error, timed_out (call again with the same arguments), refused "
        "(see code and detail) or needs_confirmation (call again with confirm=true)."
    )
    computed_status: str
    run_id: int | None
    mesh_triangle_count: int | None = Field(description="The built mesh's real triangle count.")
    mesh_triangle_count_estimate: int | None
    compute_cost_estimate: str | None
    posted: bool = Field(description="Whether this call started a build.")
    code: str | None = None
    detail: str | None = None
    polls: int = 0
    elapsed_seconds: float = 0.0


def scenario_view(data: dict[str, Any]) -> ScenarioView:
    return ScenarioView.from_answer(ScenarioDetail.model_validate(data))


# What the scenario's rain and inflow apply over the run, as the platform computed it.
FORCING = ("rain_total_depth_mm", "rain_peak_intensity_mm_per_h", "inflow_volume_m3", "inflow_peak_m3_per_s")


def forcing_in_words(forcing: dict[str, Any]) -> str:
    """What the model will apply over the run, in the platform's numbers ('' when it brings no water in)."""
    said = []
    if forcing.get("rain_total_depth_mm") is not None:
        said.append(
            f"up to {figure(forcing['rain_total_depth_mm'])} mm of rain, at most "
            f"{figure(forcing['rain_peak_intensity_mm_per_h'])} mm/h"
        )
    if forcing.get("inflow_volume_m3") is not None:
        said.append(
            f"{figure(forcing['inflow_volume_m3'])} m³ of inflow, at most "
            f"{figure(forcing['inflow_peak_m3_per_s'])} m³/s"
        )
    sentence = f" Over the run the model will apply {' and '.join(said)}." if said else ""
    problems = forcing.get("problems") or []
    return sentence + (f" It cannot apply: {' '.join(problems[:3])}" if problems else "")


def _handback(view: ScenarioView, link: str, verb: str, forcing: dict[str, Any] | None = None) -> dict[str, Any]:
    forcing = forcing or {}
    estimate = view.mesh_triangle_count_estimate
    warnings = view.mesh_estimate_warnings
    problem = view.mesh_estimate_problem.detail if view.mesh_estimate_problem else "inputs missing"
    price = (
        f"about {estimate:,} triangles, estimated ${view.compute_cost_estimate} to run"
        if estimate
        else f"no estimate yet ({problem})"
    )
    if any(warning.code == ErrorCode.MESH_TOO_LARGE for warning in warnings):
        price = f"about {estimate:,} triangles, too many to build, so no price to approve"
    cautions = "".join(f" {warning.detail}" for warning in warnings)
    return {
        "ui_url": link,
        "summary": {
            "mesh_triangle_count_estimate": estimate,
            "compute_cost_estimate": view.compute_cost_estimate,
            "vcpu_hours_estimate": view.vcpu_hours_estimate,
            "resolution_m": view.resolution,
            "duration_s": view.duration,
            "computed_status": view.computed_status,
            **{name: forcing[name] for name in FORCING if forcing.get(name) is not None},
            **({"forcing_problems": forcing["problems"]} if forcing.get("problems") else {}),
            **({"mesh_estimate_warnings": warnings} if warnings else {}),
        },
        "say_to_user": f"I {verb} the scenario '{view.name}' ({view.resolution:g} m, {view.duration} s): {price}."
        f"{cautions}{forcing_in_words(forcing)} Review it here: {link}",
    }


def _handed_back(data: dict[str, Any], verb: str) -> ScenarioWithHandBack:
    scenario = ScenarioDetail.model_validate(data)
    view = ScenarioView.from_answer(scenario)
    return ScenarioWithHandBack.from_answer(
        scenario, **_handback(view, scenario.ui_url, verb, scenario.forcing.model_dump())
    )


@tool(title="Create a scenario", relied_on=("id", *ESTIMATE))
async def create_scenario(
    ctx: Context,
    project_id: ProjectId,
    name: Annotated[str, Field(min_length=1, max_length=200, description="A name the engineer will recognise.")],
    resolution: Resolution,
    duration: Duration,
    terrain: InputId = None,
    boundary: InputId = None,
    friction: InputId = None,
    inflow: InputId = None,
    rainfall: InputId = None,
    structure: InputId = None,
    breakline: InputId = None,
    culvert: InputId = None,
    weir: InputId = None,
    mesh_region: InputId = None,
    gauge: InputId = None,
    flow_line: InputId = None,
    initial_condition: InputId = None,
    soil: InputId = None,
    description: Annotated[str, Field(description="Free text.")] = "",
    model_start: ModelStart = None,
    inundation_threshold_m: InundationThreshold = None,
) -> ScenarioWithHandBack:
    """Create a draft scenario (nothing built or spent); an input left out takes its kind's default row if that has
    features. Show the engineer the triangle estimate and price before build_scenario."""
    api = PlatformClient.for_context(ctx)
    chosen = {
        "terrain": terrain,
        "boundary": boundary,
        "friction": friction,
        "inflow": inflow,
        "rainfall": rainfall,
        "structure": structure,
        "breakline": breakline,
        "culvert": culvert,
        "weir": weir,
        "mesh_region": mesh_region,
        "gauge": gauge,
        "flow_line": flow_line,
        "initial_condition": initial_condition,
        "soil": soil,
        "inundation_threshold_m": inundation_threshold_m,
    }
    given = {key: value for key, value in chosen.items() if value is not None}
    created = body(
        ScenarioCreate,
        name=name,
        resolution=resolution,
        duration=duration,
        description=description,
        model_start=model_start,
        **given,
    )
    return _handed_back((await api.post(paths.SCENARIOS.url(project_id=project_id), json=created)).data, "created")


@tool(title="Get a scenario", read_only=True, idempotent=True, relied_on=ESTIMATE)
async def get_scenario(ctx: Context, project_id: ProjectId, scenario_id: ScenarioId) -> ScenarioView:
    """Read a scenario: status, inputs, numbers, triangle estimate and price, latest run, the engineer's approval."""
    api = PlatformClient.for_context(ctx)
    return scenario_view(
        (await api.get(paths.SCENARIO_DETAIL.url(project_id=project_id, scenario_id=scenario_id))).data
    )


@tool(title="List scenarios", read_only=True, idempotent=True)
async def list_scenarios(ctx: Context, project_id: ProjectId) -> ScenarioList:
    """List a project's scenarios, newest first, with computed_status and latest run."""
    api = PlatformClient.for_context(ctx)
    page = ScenarioPage.model_validate((await api.get(paths.SCENARIOS.url(project_id=project_id))).data)
    return ScenarioList(results=[ScenarioRow.from_answer(row) for row in page.results])


@tool(title="Update a scenario", relied_on=("id", *ESTIMATE, "latest_run_is_valid"))
async def update_scenario(
    ctx: Context,
    project_id: ProjectId,
    scenario_id: ScenarioId,
    name: Annotated[str | None, Field(min_length=1, max_length=200, description="A new name.")] = None,
    description: Annotated[str | None, Field(description="Free text.")] = None,
    resolution: Resolution | None = None,
    duration: Duration | None = None,
    model_start: ModelStart = None,
    terrain: InputId = None,
    boundary: InputId = None,
    friction: InputId = None,
    inflow: InputId = None,
    rainfall: InputId = None,
    structure: InputId = None,
    breakline: InputId = None,
    culvert: InputId = None,
    weir: InputId = None,
    mesh_region: InputId = None,
    gauge: InputId = None,
    flow_line: InputId = None,
    initial_condition: InputId = None,
    soil: InputId = None,
    inundation_threshold_m: InundationThreshold = None,
    clear: Annotated[list[InputName], Field(description="Inputs to remove, e.g. ['rainfall'].")] = [],  # noqa: B006  (pydantic copies defaults)
) -> ScenarioWithHandBack:
    """Change a scenario's name, numbers or inputs (only those given); the latest run is then invalid: build again."""
    api = PlatformClient.for_context(ctx)
    given = {
        "name": name,
        "description": description,
        "resolution": resolution,
        "duration": duration,
        "model_start": model_start,
        "terrain": terrain,
        "boundary": boundary,
        "friction": friction,
        "inflow": inflow,
        "rainfall": rainfall,
        "structure": structure,
        "breakline": breakline,
        "culvert": culvert,
        "weir": weir,
        "mesh_region": mesh_region,
        "gauge": gauge,
        "flow_line": flow_line,
        "initial_condition": initial_condition,
        "soil": soil,
        "inundation_threshold_m": inundation_threshold_m,
    }
    changes = {key: value for key, value in given.items() if value is not None} | dict.fromkeys(clear)
    changed = body(ScenarioChanges, **changes)
    return _handed_back(
        (await api.patch(paths.SCENARIO_DETAIL.url(project_id=project_id, scenario_id=scenario_id), json=changed)).data,
        "updated",
    )


@tool(title="Clone a scenario", relied_on=("id", *ESTIMATE))
async def clone_scenario(
    ctx: Context,
    project_id: ProjectId,
    scenario_id: ScenarioId,
    name: Annotated[str, Field(min_length=1, max_length=200, description="The new scenario's name.")],
    overrides: Annotated[
        dict[str, Any], Field(description='Fields to change in the copy, e.g. {"friction": 12, "resolution": 2}.')
    ] = {},  # noqa: B006
) -> ScenarioWithHandBack:
    """Copy a scenario under a new name with some inputs or numbers changed, e.g. another friction or rainfall."""
    api = PlatformClient.for_context(ctx)
    response = await api.post(
        paths.SCENARIO_CLONE.url(project_id=project_id, scenario_id=scenario_id),
        json=body(ScenarioClone, name=name, overrides=overrides),
    )
    return _handed_back(response.data, "created")


@tool(
    title="Build a scenario",
    relied_on=("outcome", "computed_status", "run_id", "mesh_triangle_count", "mesh_triangle_count_estimate", "posted"),
)
async def build_scenario(
    ctx: Context,
    project_id: ProjectId,
    scenario_id: ScenarioId,
    confirm: Annotated[bool, Field(description="Needed above 100,000 triangles; ask the user first.")] = False,
    rebuild: Annotated[
        bool, Field(description="Build again though built: start_simulation asks for it when inputs changed.")
    ] = False,
    timeout_seconds: TimeoutSeconds = DEFAULT_TIMEOUT_SECONDS,
    poll_interval_seconds: PollIntervalSeconds = DEFAULT_POLL_INTERVAL_SECONDS,
) -> BuildResult:
    """Mesh a scenario and wait; outcome built, error, timed_out, refused (code, detail; ui_url if fixable in the
    map) or needs_confirmation. A valid build is reused unless rebuild."""
    api = PlatformClient.for_context(ctx)
    read_first = ScenarioDetail.model_validate(
        (await api.get(paths.SCENARIO_DETAIL.url(project_id=project_id, scenario_id=scenario_id))).data
    )
    view, link = ScenarioView.from_answer(read_first), read_first.ui_url  # the scenario's place in the map, all along
    early = _build_without_posting(view, link, confirm=confirm, rebuild=rebuild)
    if early is not None:
        return early
    posted = False
    if not _in_flight(view):
        response = await api.post(
            paths.SCENARIO_BUILD.url(project_id=project_id, scenario_id=scenario_id), allow=(409, 422)
        )
        if response.status == 422:
            return _refused(view, link, response.data)
        posted = response.status == 202

    async def read() -> ScenarioView:
        return scenario_view(
            (await api.get(paths.SCENARIO_DETAIL.url(project_id=project_id, scenario_id=scenario_id))).data
        )

    waited = await wait_for(
        ctx,
        read=read,
        finished=lambda v: not _in_flight(v),
        describe=lambda v: _build_in_words(v) or f"build {v.computed_status}",
        timeout_seconds=timeout_seconds,
        poll_interval_seconds=poll_interval_seconds,
    )
    return _built(waited.value, link, posted=posted, polls=waited.polls, elapsed=waited.elapsed_seconds)


def _build_in_words(view: ScenarioView) -> str:
    place = view.latest_run.queue if view.latest_run else None
    return queue_in_words("build", place.model_dump() if place else None)


def _in_flight(view: ScenarioView) -> bool:
    return view.latest_run is not None and view.computed_status in BUILD_IN_FLIGHT


def _build_without_posting(view: ScenarioView, link: str, *, confirm: bool, rebuild: bool) -> BuildResult | None:
    if _in_flight(view):
        return None  # follow the build already running
    if (
        view.latest_run is not None
        and view.latest_run_is_valid
        and view.computed_status not in BUILD_FAILED
        and not rebuild
    ):
        return _built(view, link, posted=False, polls=0, elapsed=0.0)
    if view.mesh_triangle_count_estimate is None:
        problem = view.mesh_estimate_problem or Problem(
            code=ErrorCode.NO_ESTIMATE, detail="The scenario has no estimate."
        )
        return _refused(view, link, problem.model_dump() | {"fixable_in_map": True})
    if view.mesh_triangle_count_estimate > CONFIRM_ABOVE_TRIANGLES and not confirm:
        return BuildResult(
            outcome="needs_confirmation",
            computed_status=view.computed_status,
            run_id=None,
            mesh_triangle_count=None,
            mesh_triangle_count_estimate=view.mesh_triangle_count_estimate,
            compute_cost_estimate=view.compute_cost_estimate,
            posted=False,
            ui_url=link,
            summary={
                "mesh_triangle_count_estimate": view.mesh_triangle_count_estimate,
                "compute_cost_estimate": view.compute_cost_estimate,
            },
            say_to_user=f"This mesh would have about {view.mesh_triangle_count_estimate:,} triangles (estimated "
            f"${view.compute_cost_estimate} to run). Shall I build it?",
        )
    return None


def _refused(view: ScenarioView, link: str, problem: dict[str, Any]) -> BuildResult:
    fixable = bool(problem.get("fixable_in_map"))
    link = relink(link, panel=Panel.INPUTS) if fixable else link
    return BuildResult(
        outcome="refused",
        computed_status=view.computed_status,
        run_id=None,
        mesh_triangle_count=None,
        mesh_triangle_count_estimate=view.mesh_triangle_count_estimate,
        compute_cost_estimate=view.compute_cost_estimate,
        posted=False,
        code=problem.get("code"),
        detail=problem.get("detail"),
        ui_url=link,
        summary={"code": problem.get("code")},
        say_to_user=f"The model cannot be built yet: {problem.get('detail')}"
        + (f" Fix it in the map: {link}" if fixable else ""),
    )


def _built(view: ScenarioView, link: str, *, posted: bool, polls: int, elapsed: float) -> BuildResult:
    run = view.latest_run
    status = view.computed_status
    outcome = "timed_out" if _in_flight(view) else (RunStatus.ERROR if status in BUILD_FAILED else RunStatus.BUILT)
    link = relink(link, run=run.id if run else None)
    count = run.mesh_triangle_count if run else None
    say = {
        RunStatus.BUILT: f"The scenario is built: a mesh of {count:,} triangles (estimated "
        f"{view.mesh_triangle_count_estimate:,}). Look at it here before we run it: {link}"
        if count is not None
        else f"The scenario is built. Look at it here: {link}",
        RunStatus.ERROR: f"The build failed: {run.user_message or run.error_message if run else 'unknown error'}",
        "timed_out": _build_in_words(view) or f"The build is {status}.",
    }[outcome]
    return BuildResult(
        outcome=outcome,
        computed_status=status,
        run_id=run.id if run else None,
        mesh_triangle_count=count,
        mesh_triangle_count_estimate=view.mesh_triangle_count_estimate,
        compute_cost_estimate=view.compute_cost_estimate,
        posted=posted,
        polls=polls,
        elapsed_seconds=elapsed,
        ui_url=link,
        summary={
            "mesh_triangle_count": count,
            "mesh_triangle_count_estimate": view.mesh_triangle_count_estimate,
            "compute_cost_estimate": view.compute_cost_estimate,
        },
        say_to_user=say,
    )
