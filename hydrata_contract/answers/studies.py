"""The design studies' answers (ARR 2019): a project's design-input files, and a study with its members' storms and
its estimate."""

from datetime import datetime
from typing import Any

from pydantic import Field

from hydrata_contract.answers.base import Answer, Page, Withheld, map_link
from hydrata_contract.states import RunStatus
from hydrata_contract.studies import (
    AepFigures,
    CentralStatistic,
    CriticalDurationArea,
    DesignInputKind,
    DurationPeaks,
    EnsembleTable,
    LeftOutMember,
    Place,
    RainBinding,
    StudyStatus,
)

# Stored in a study's results and answered as they are (hydrata_contract/studies.py); named here for the answers.
__all__ = ["AepFigures", "CriticalDurationArea", "DurationPeaks", "EnsembleTable", "LeftOutMember", "Place"]


class DesignInputDetail(Answer):
    """design_input_answer (hydrata/studies/api/answers.py)."""

    id: int
    project: int
    kind: DesignInputKind
    name: str
    summary: dict[str, Any] = Field(
        description="What the file holds: an IFD table's AEPs, durations and depth range; the patterns' regions, "
        "durations, bins and count; the losses and the pre-burst table's AEPs and durations."
    )
    ui_url: str = map_link()
    created_at: datetime


class DesignInputPage(Page):
    results: list[DesignInputDetail]
    ui_url: str = Field(description="The map's Hydrology panel.")


class StudyInputs(Answer):
    ifd: int
    temporal_patterns: int
    storm_losses: int | None


class StudyEstimate(Answer):
    """Before anything is spent: every member is a run of the base scenario for its simulated time, priced as a run
    is (hydrata/anuga/pricing.py), and the study is their sum."""

    members: int
    mesh_triangle_count_estimate: int
    triangle_steps: int = Field(description="Triangles x simulated seconds / finest resolution, summed.")
    vcpu_hours_estimate: float
    compute_cost_estimate: str = Field(description="USD, the sum of the members' prices.")


class DesignMemberSummary(Answer):
    """A public reader's has the storm's figures (derived from the design inputs) null."""

    aep: str
    aep_bin: str = Field(description="The temporal patterns' AEP bin: frequent, intermediate or rare.")
    duration_min: int
    pattern: int = Field(description="The pattern's EventID in the Data Hub file.")
    time_step_min: int | None
    burst_initial_loss_mm: float | None = Field(description="The storm's initial loss less the pre-burst depth.")
    rain_depth_mm: float | None = Field(description="IFD depth x ARF x climate factor: check it against the IFD.")
    excess_depth_mm: float | None = Field(description="What the member applies, after the losses.")
    peak_excess_mm_per_h: float | None
    simulated_s: int
    run: int | None = Field(description="The member's run (get_run reads it); its retry when its worker was lost.")
    run_status: RunStatus | None


class StudyProgress(Answer):
    members_done: int = Field(description="Members whose run has ended: complete, error or cancelled.")
    members_total: int
    members_complete: int
    members_failed: int
    members_cancelled: int
    progress_pct: float = Field(description="Ended members whole, computing ones by their own progress.")
    eta_seconds: float | None = Field(description="From the share done so far and the time since the start.")


class StudyApproval(Answer):
    """The sign-off: a person's, over every member's storm and the base scenario as they are now; once the study
    started, the sign-offs it ran under and whether it changed since."""

    approved: bool
    approved_by_you: bool
    approvals: list[dict[str, Any]]
    fingerprint: str
    started_fingerprint: str | None = Field(
        default=None, description="What it started with; None for a draft or a study started before it was kept."
    )
    started_approvals: list[dict[str, Any]] = Field(
        default_factory=list, description="The sign-offs it ran under: of started_fingerprint, before the start."
    )
    sign_off_required_at_start: bool | None = Field(
        default=None, description="Whether its start needed the account owner's sign-off; None if not known."
    )
    changed_since_start: bool | None = Field(
        default=None, description="Whether the fingerprint now differs from started_fingerprint."
    )
    changes_since_start: list[str] = Field(default_factory=list, description="What changed since, by name.")


class StudyLayer(Answer):
    name: str = Field(description="A result layer's envelope (max_depth...), or critical_duration.")
    units: str
    url: str | None = Field(
        default=None, description="A signed download link to the GeoTIFF: for an agent of a project member only."
    )


class AepResults(Answer):
    aep: str
    layers: list[StudyLayer]
    figures: AepFigures | None = Field(
        None, description="None where no member of the AEP completed (or the study predates the figures)."
    )
    gauges: list[EnsembleTable]
    flow_lines: list[EnsembleTable]


class StudyResults(Answer):
    central_statistic: CentralStatistic
    members_used: int
    members_left_out: list[LeftOutMember]
    aeps: list[AepResults]


class DesignStudySummary(Withheld):
    """design_study_answer without its members. A public reader's has the withheld fields empty (see `withheld`):
    its inputs and factors, its price and cost, its sign-off."""

    id: int
    project: int
    name: str
    base_scenario: int
    inputs: StudyInputs | None
    aeps: list[str]
    durations_min: list[int]
    areal_reduction_factor: float | None
    climate_factor: float | None
    initial_loss_mm: float | None
    continuing_loss_mm_h: float | None
    central_statistic: CentralStatistic
    rain_binding: RainBinding | None
    rainfall_layer: int | None = Field(description="The base scenario's rainfall layer the storms replace, if any.")
    rain_units: str = Field(description="How each member's storm is applied: depth per time step.")
    estimate: StudyEstimate | None
    status: StudyStatus
    status_message: str
    started_at: datetime | None
    finished_at: datetime | None
    compute_cost: str | None = Field(description="USD charged at the start: the members' sum.")
    progress: StudyProgress
    ui_url: str = map_link()
    created_at: datetime


class DesignStudyDetail(DesignStudySummary):
    approval: StudyApproval | None
    members: list[DesignMemberSummary]
    results: StudyResults | None = Field(description="Once complete; its central_statistic says median or mean.")
    warnings: list[str] = Field(
        default_factory=list, description="What the study will not give as it stands, e.g. no gauge tables."
    )


class StudySampledPoint(Answer):
    x: float
    y: float
    peak_depth: float | None
    peak_stage: float | None
    peak_speed: float | None
    max_hazard: int | None = Field(description="ARR 2019 class 1-6 (0 dry); between two classes, the upper.")
    critical_duration_min: int | None = Field(description="None where no duration wetted the cell.")


class AepSample(Answer):
    aep: str
    points: list[StudySampledPoint] = Field(description="In the order asked; all None off the grid.")


class StudySample(Answer):
    """study_sample (hydrata/studies/sampling.py): each AEP's envelopes and critical duration at points."""

    id: int
    crs: str
    aeps: list[AepSample]


class DesignStudyPage(Page):
    results: list[DesignStudySummary]
    ui_url: str = Field(description="The map's Study panel.")
