"""A scenario's answers: the scenario in full (a member's), its published part (a public reader's), a page of
them, its approval, a build request, and its built mesh."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, RootModel

from hydrata_contract.answers.base import Answer, Page, Sparse, map_link
from hydrata_contract.answers.runs import BuiltRun, RunCompact
from hydrata_contract.states import RunStatus

# [lon, lat]
Position = Annotated[list[float], Field(min_length=2, max_length=2)]
# [[lon, lat], [lon, lat]]: a straight line between two mesh nodes.
Segment = Annotated[list[Position], Field(min_length=2, max_length=2)]


def _computed_status() -> Any:
    return Field(description="The latest run's status, or `created` when the scenario has none.")


class ApprovalMark(Answer):
    by: str = Field(description="The approver's username.")
    at: datetime


class StaleApproval(ApprovalMark):
    changed: list[str] = Field(
        description='What changed since it, by name (e.g. "the rainfall layer", "the time series \'storm\'"); '
        "empty for an approval from before parts were kept."
    )


class Approval(Answer):
    """approval_summary: whether the scenario as it is now is approved, by whom, and whether the caller's agents
    need an approval to start its runs."""

    approved: bool
    approved_by_you: bool
    approvals: list[ApprovalMark]
    stale_approval: StaleApproval | None = Field(description="The latest approval, when the scenario changed since.")
    required_for_your_agents: bool


class EstimatePart(Answer):
    region: str = Field(description='"base" or the mesh region\'s name.')
    area_m2: float
    resolution_m: float
    max_triangle_area_m2: float
    triangles: int


class Problem(Answer):
    code: str
    detail: str


class ScenarioSummary(Answer):
    """One entry of a page of scenarios (scenarios._compact)."""

    id: int
    name: str
    resolution: float
    duration: int
    computed_status: RunStatus = _computed_status()
    latest_run: RunCompact | None
    latest_run_is_valid: bool
    ui_url: str = map_link()
    updated_at: datetime


class ScenarioPage(Page):
    results: list[ScenarioSummary]
    ui_url: str = Field(description="The map's Scenario panel.")


class ScenarioPublic(Answer):
    """scenario_public: a non-member's view of a public project's scenario: no inputs, no runs, no prices."""

    id: int
    project: int
    name: str
    description: str
    resolution: float
    duration: int
    computed_status: RunStatus = _computed_status()
    ui_url: str = map_link()
    reduced: Literal[True]


class ForcingPart(Answer):
    feature: str
    data: Any = Field(description="The feature's `data`: a number, or a time series name.")
    total_depth_mm: float | None = None
    peak_intensity_mm_per_h: float | None = None
    volume_m3: float | None = None
    peak_m3_per_s: float | None = None
    problem: str | None = Field(default=None, description="Why the model cannot apply this feature.")


class ForcingApplied(Answer):
    """compute/forcing.py forcing_applied: what the rain and inflow apply over the run (0 to duration_s)."""

    duration_s: float
    rainfall: list[ForcingPart]
    inflow: list[ForcingPart]
    rain_total_depth_mm: float | None = Field(description="The most rain any polygon gets.")
    rain_peak_intensity_mm_per_h: float | None
    inflow_volume_m3: float | None = Field(description="All the inflow lines together.")
    inflow_peak_m3_per_s: float | None = Field(description="The highest peak of any line.")
    problems: list[str]


class ScenarioDetail(Answer):
    """scenario_detail: a member's view."""

    id: int
    project: int
    name: str
    description: str
    terrain: int | None
    boundary: int | None
    friction: int | None
    inflow: int | None
    rainfall: int | None
    structure: int | None
    breakline: int | None
    culvert: int | None
    weir: int | None
    mesh_region: int | None
    gauge: int | None
    flow_line: int | None
    initial_condition: int | None
    soil: int | None
    resolution: float = Field(description="Metres; the base mesh's maximum triangle area is resolution² / 2.")
    duration: int = Field(description="Simulated seconds.")
    model_start: datetime | None
    inundation_threshold_m: float
    computed_status: RunStatus = _computed_status()
    latest_run: RunCompact | None
    latest_run_is_valid: bool = Field(
        description="A build holds the scenario as it is now, so start_simulation needs no build first."
    )
    changed_since_build: list[str] = Field(
        description="When no build holds it as it is now: what changed since its newest build, by name."
    )
    mesh_triangle_count_estimate: int | None
    mesh_estimate_breakdown: list[EstimatePart]
    mesh_estimate_problem: Problem | None = Field(description="Why the geometry could not be estimated.")
    mesh_estimate_warnings: list[Problem] = Field(
        description="What the estimate says against the model as it is: a mesh over the limit (it cannot be "
        "built), triangles finer than the terrain's cells."
    )
    vcpu_hours_estimate: float | None
    compute_cost_estimate: str | None = Field(description="A decimal amount in `currency`.")
    currency: str
    forcing: ForcingApplied
    approval: Approval
    ui_url: str = map_link()
    created_at: datetime
    updated_at: datetime


class ScenarioRead(RootModel[ScenarioDetail | ScenarioPublic]):
    """A member reads the scenario in full; a non-member of a public project its published part (`reduced`)."""


class ScenarioBuild(Answer):
    """ScenarioBuildView."""

    run: BuiltRun
    scenario: int


class MeshView(Answer):
    triangle_count: int
    truncated: bool = Field(description="More triangles than `limit` reach in: no edges; zoom in.")
    limit: int
    edges: list[Segment]


class ScenarioMesh(Sparse):
    """scenario_mesh: the built mesh's outline, and with ?bbox= the triangles' edges in that window."""

    scenario: int
    run: int
    current: bool = Field(description="Built from the scenario as it is now.")
    triangle_count: int
    bbox_wgs84: Annotated[list[float], Field(min_length=4, max_length=4)]
    outline: list[Segment]
    view: MeshView | None = Field(default=None, description="Only when asked with ?bbox=.")
