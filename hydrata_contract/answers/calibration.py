"""The calibration studies' answers: a study with its parameters, its estimate and progress, every member's values
and fit, and once ended the best fit with every observation, or the Morris ranking."""

from datetime import datetime
from typing import Any

from pydantic import Field

from hydrata_contract.answers.base import Answer, Page, map_link
from hydrata_contract.answers.studies import StudyEstimate
from hydrata_contract.calibration import CalibrationMethod, ParameterTarget
from hydrata_contract.states import RunStatus
from hydrata_contract.studies import StudyStatus


class ParameterRange(Answer):
    target: ParameterTarget
    name: str | None
    low: float
    high: float
    label: str = Field(description="How members' values and the results name it: target, or target:name.")


class CalibrationMemberRow(Answer):
    index: int = Field(description="In the order proposed (optimise) or designed (morris).")
    values: dict[str, float] = Field(description="By parameter label.")
    run: int | None = Field(description="Its run, once launched: compare, report or read it as any run.")
    run_status: RunStatus | None
    objective: float | None = Field(description="RMSE (m) against the event's observations; None if it gave none.")


class FitRow(Answer):
    observation_id: int
    observed: float
    modelled: float | None
    error: float | None
    within_tolerance: bool | None


class BestFit(Answer):
    member: int
    run: int | None = Field(description="The calibrated run: an ordinary run of the base scenario.")
    values: dict[str, float]
    objective: float | None = Field(description="Its RMSE (m).")
    comparison: int | None = Field(description="Its comparison with the event (get_comparison reads it).")
    metrics: dict[str, Any] | None = Field(description="The comparison's: n, bias, mae, rmse, max_abs_error...")
    fit: list[FitRow] = Field(description="Every observation against the calibrated run.")


class MorrisEffect(Answer):
    parameter: str
    mu_star: float = Field(description="Mean absolute elementary effect, in the output's units: its influence.")
    sigma: float = Field(description="Their spread: interaction or non-linearity.")
    mu_star_conf: float = Field(description="mu*'s 95% bootstrap half-width.")


class MorrisOutput(Answer):
    output: str = Field(description="observation (peak), gauge (peak depth) or wet_area.")
    name: str
    trajectories: int = Field(description="Whole trajectories used (one with a failed member is left out).")
    effects: list[MorrisEffect] = Field(description="Highest mu* first.")


class MorrisRank(Answer):
    parameter: str
    influence: float = Field(description="Mean over the outputs of its mu* over each output's largest (0 to 1).")


class MorrisResults(Answer):
    trajectories: int
    outputs: list[MorrisOutput]
    ranking: list[MorrisRank] = Field(description="Most influential first.")


class CalibrationResults(Answer):
    method: CalibrationMethod
    members_run: int
    members_complete: int = Field(description="Those compared with the observations.")
    best: BestFit | None = Field(description="optimise: the member with the lowest RMSE.")
    morris: MorrisResults | None = Field(description="morris: each output's effects and the ranking.")


class CalibrationProgress(Answer):
    members_done: int = Field(description="Members whose run has ended.")
    members_started: int
    members_total: int
    progress_pct: float
    eta_seconds: float | None


class CalibrationApproval(Answer):
    approved: bool = Field(description="A person signed it off as it is now.")
    approved_by_you: bool
    fingerprint: str


class CalibrationStudySummary(Answer):
    id: int
    project: int
    name: str
    base_scenario: int
    event: int
    method: CalibrationMethod
    parameters: list[ParameterRange]
    budget: int
    members_planned: int = Field(description="The budget, or Morris's whole trajectories of it.")
    in_flight: int
    seed: int
    status: StudyStatus
    status_message: str
    estimate: StudyEstimate
    compute_cost: str | None = Field(description="USD, once ended: what its members cost.")
    progress: CalibrationProgress
    started_at: datetime | None
    finished_at: datetime | None
    created_at: datetime
    ui_url: str = map_link()
    report_url: str | None = Field(description="Once complete: its report page (method, budget, fit), for people.")


class CalibrationStudyDetail(CalibrationStudySummary):
    approval: CalibrationApproval
    members: list[CalibrationMemberRow]
    results: CalibrationResults | None


class CalibrationStudyPage(Page):
    results: list[CalibrationStudySummary]
    ui_url: str = Field(description="The map's Calibration panel.")
