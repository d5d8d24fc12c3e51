"""The design studies' answers (ARR 2019): a project's design-input files, and a study with its members' storms and
its estimate."""

from datetime import datetime
from typing import Any

from pydantic import Field

from hydrata_contract.answers.base import Answer, Page, map_link
from hydrata_contract.studies import CentralStatistic, DesignInputKind, RainBinding


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
    aep: str
    aep_bin: str = Field(description="The temporal patterns' AEP bin: frequent, intermediate or rare.")
    duration_min: int
    pattern: int = Field(description="The pattern's EventID in the Data Hub file.")
    time_step_min: int
    burst_initial_loss_mm: float = Field(description="The storm's initial loss less the pre-burst depth.")
    rain_depth_mm: float = Field(description="IFD depth x ARF x climate factor: check it against the IFD.")
    excess_depth_mm: float = Field(description="What the member applies, after the losses.")
    peak_excess_mm_per_h: float
    simulated_s: int


class DesignStudySummary(Answer):
    """design_study_answer without its members."""

    id: int
    project: int
    name: str
    base_scenario: int
    inputs: StudyInputs
    aeps: list[str]
    durations_min: list[int]
    areal_reduction_factor: float
    climate_factor: float
    initial_loss_mm: float
    continuing_loss_mm_h: float
    central_statistic: CentralStatistic
    rain_binding: RainBinding
    rainfall_layer: int | None = Field(description="The base scenario's rainfall layer the storms replace, if any.")
    rain_units: str = Field(description="How each member's storm is applied: depth per time step.")
    estimate: StudyEstimate
    ui_url: str = map_link()
    created_at: datetime


class DesignStudyDetail(DesignStudySummary):
    members: list[DesignMemberSummary]


class DesignStudyPage(Page):
    results: list[DesignStudySummary]
    ui_url: str = Field(description="The map's Scenario panel.")
