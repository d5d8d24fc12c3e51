"""ARR 2019 design flood studies: made from a base scenario and the engineer's files and priced; then started (every
member a run on the workers), followed, cancelled, and read back as envelopes and critical durations."""

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from hydrata_contract import paths
from hydrata_contract.answers.studies import (
    AepSample,
    DesignMemberSummary,
    DesignStudyDetail,
    DesignStudyPage,
    DesignStudySummary,
    StudyResults,
    StudySample,
)
from hydrata_contract.requests.base import NAME_MAX_LENGTH
from hydrata_contract.requests.runs import RunSampleQuery
from hydrata_contract.requests.studies import DesignStudyCreate
from hydrata_contract.states import changes_in_words
from hydrata_contract.studies import StudyStatus
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.handback import HandBack
from hydrata_mcp.pagination import page_numbers
from hydrata_mcp.tools.arguments import Page, ProjectId
from hydrata_mcp.tools.projections import Projection
from hydrata_mcp.tools.registry import tool
from hydrata_mcp.tools.runs import Point
from hydrata_mcp.tools.time_series import figure

StudyId = Annotated[int, Field(ge=1, description="From list_design_studies.")]


class Storms(BaseModel):
    """The members of one AEP and duration: one per temporal pattern, each with the same total rain."""

    aep: str
    duration_min: int
    patterns: int
    rain_depth_mm: float
    excess_mm_min: float
    excess_mm_max: float


class DesignStudy(
    HandBack,
    Projection,
    of=DesignStudyDetail,
    fields=("id", "name", "base_scenario", "status", "central_statistic", "rain_binding", "estimate", "progress"),
):
    """The contract's study with its storms grouped, its results without signed links, and points sampled."""

    storms: list[Storms]
    results: dict[str, Any] | None = Field(None, description="Per AEP: figures, layers, gauge and flow-line tables.")
    sampled: list[AepSample] | None = Field(None, description="Per AEP: the envelopes at the points asked.")


class StudyItem(Projection, of=DesignStudySummary, fields=("id", "name", "status")):
    members: int
    progress_pct: float


class StudyList(BaseModel):
    count: int
    next_page: int | None
    previous_page: int | None
    results: list[StudyItem]


def _storms(members: list[DesignMemberSummary]) -> list[Storms]:
    if any(member.rain_depth_mm is None for member in members):
        return []  # a public project's reader is not told the storms (they are derived from the design inputs)
    groups: dict[tuple[str, int], list[DesignMemberSummary]] = {}
    for member in members:
        groups.setdefault((member.aep, member.duration_min), []).append(member)
    return [
        Storms(
            aep=aep,
            duration_min=duration,
            patterns=len(group),
            rain_depth_mm=round(group[0].rain_depth_mm or 0.0, 2),
            excess_mm_min=round(min(m.excess_depth_mm or 0.0 for m in group), 2),
            excess_mm_max=round(max(m.excess_depth_mm or 0.0 for m in group), 2),
        )
        for (aep, duration), group in groups.items()
    ]


def _handed_back(
    answered: dict[str, Any], *, made: bool = False, sampled: list[AepSample] | None = None
) -> DesignStudy:
    study = DesignStudyDetail.model_validate(answered)
    storms = _storms(study.members)
    estimate = study.estimate.model_dump() if study.estimate else {}
    return DesignStudy.from_answer(
        study,
        storms=storms,
        results=_results(study.results),
        sampled=sampled,
        summary={
            **estimate,
            **study.progress.model_dump(),
            "aeps": study.aeps,
            "durations_min": study.durations_min,
            **({"warnings": study.warnings} if study.warnings else {}),
        },
        say_to_user=" ".join([_said(study, storms, made=made), *_ran_under(study), *study.warnings]),
    )


def _ran_under(study: DesignStudyDetail) -> list[str]:
    """What a started study ran under, as the Study panel says it: the sign-off of the fingerprint it started with (or
    that it had none, and whether one was asked), and what changed since; an auditor's question, not whether it is
    signed off as it is now. Said to a project member's agent only (a public reader is told no sign-off)."""
    approval = study.approval
    if study.status == StudyStatus.DRAFT or approval is None or not approval.started_fingerprint:
        return []
    ran = "is running" if study.status == StudyStatus.RUNNING else "ran"
    signed = [f"{entry['by']} on {str(entry['at'])[:10]}" for entry in approval.started_approvals]
    if signed:
        said = f"It {ran} as signed off by {' and '.join(signed)}."
    else:
        none_asked = " (none was required)" if approval.sign_off_required_at_start is False else ""
        said = f"It {ran} without a sign-off{none_asked}."
    if approval.changed_since_start:
        changes = changes_in_words(approval.changes_since_start) or "the study or its base scenario"
        said += f" Changed since it started: {changes}."
    return [said]


def _said(study: DesignStudyDetail, storms: list[Storms], *, made: bool) -> str:
    estimate, progress, status = study.estimate, study.progress, study.status
    where = "the base scenario's rainfall polygons" if study.rain_binding == "rainfall_layer" else "the whole model"
    link = f"See it here: {study.ui_url}"
    if status == StudyStatus.DRAFT and storms and estimate:
        depths = [s.rain_depth_mm for s in storms]
        return (
            f"{'I made' if made else 'The'} design study '{study.name}' "
            f"{'from' if made else 'is of'} scenario {study.base_scenario}: {estimate.members} storms "
            f"({len(study.aeps)} AEPs x {len(study.durations_min)} durations x their patterns), "
            f"{figure(min(depths))} to {figure(max(depths))} mm of rain before losses, falling on {where}. "
            f"Running every member is estimated at {figure(estimate.vcpu_hours_estimate)} vCPU-hours, "
            f"USD {estimate.compute_cost_estimate}; nothing has been spent. {link}"
        )
    done = f"{progress.members_done} of {progress.members_total} members have ended"
    if status == StudyStatus.RUNNING:
        eta = progress.eta_seconds
        return f"Design study {study.id} is running: {done}" + (
            f", about {figure(eta / 60)} min to go. {link}" if eta is not None else f". {link}"
        )
    if status == StudyStatus.COMPLETE:
        critical = _critical_durations(study.results)
        figures = _figures(study.results)
        return (
            f"Design study {study.id} is complete ({done}); envelopes use the {study.central_statistic} of "
            f"each duration's patterns.{figures}{critical} {link}"
        )
    return f"Design study {study.id} is {status.replace('_', ' ')}: {done}. {study.status_message} {link}"


def _critical_durations(results: StudyResults | None) -> str:
    said = [
        f"{table.name} {aep.aep}: {table.critical_duration_min} min"
        for aep in (results.aeps if results else [])
        for table in aep.gauges + aep.flow_lines
        if table.critical_duration_min is not None
    ]
    return f" Critical durations: {'; '.join(said[:6])}." if said else ""


def _figures(results: StudyResults | None) -> str:
    """Each AEP's design figures in a sentence: peaks, the flooded area by hazard class and by critical duration."""
    said = []
    for aep in results.aeps if results else []:
        found = aep.figures
        if found is None or found.peak_depth_m is None:
            continue
        hectares = found.flooded_area_m2 / 1e4
        level = found.peak_stage_m
        hazard = ", ".join(
            f"{name} {figure(area / 1e4)} ha" for name, area in found.hazard_area_m2_by_class.items() if area > 0
        )
        shares = sorted(found.critical_durations, key=lambda item: -item.share_pct)
        critical = ", ".join(f"{s.duration_min} min {s.share_pct:.0f}%" for s in shares if s.area_m2 > 0)
        said.append(
            f"{aep.aep} AEP: peak depth {figure(found.peak_depth_m)} m"
            + (f", peak level {figure(level)} m" if level is not None else "")
            + f"; {figure(hectares)} ha flooded"
            + (f" ({hazard})" if hazard else "")
            + (f", critical duration by area {critical}" if critical else "")
        )
    return f" {'. '.join(said)}." if said else ""


def _results(results: StudyResults | None) -> dict[str, Any] | None:
    """The study's results without the rasters' signed links (a tool hands back no signature; get_design_study's
    REST answer carries them)."""
    if results is None:
        return None
    return results.model_dump(mode="json", exclude={"aeps": {"__all__": {"layers": {"__all__": {"url"}}}}})


@tool(title="Create a design study", relied_on=("id", "estimate"))
async def create_design_study(
    ctx: Context,
    project_id: ProjectId,
    base_scenario_id: Annotated[int, Field(ge=1, description="From list_scenarios.")],
    ifd: Annotated[int, Field(description="Uploaded BoM IFD CSV.")],
    temporal_patterns: Annotated[int, Field(description="Uploaded Data Hub increments CSV.")],
    aeps: Annotated[list[str], Field(description='e.g. ["1%"]')],
    durations_min: Annotated[list[int], Field(description="Minutes.")],
    losses: Annotated[int | None, Field(description="Uploaded Data Hub .txt.")] = None,
    initial_loss_mm: Annotated[float | None, Field(description="Else the losses'.")] = None,
    continuing_loss_mm_h: Annotated[float | None, Field(description="Else the losses'.")] = None,
    areal_reduction_factor: Annotated[float | None, Field(description="Default 1.")] = None,
    climate_factor: Annotated[float | None, Field(description="Default 1.")] = None,
    central_statistic: Annotated[Literal["median", "mean"] | None, Field(description="Default median.")] = None,
) -> DesignStudy:
    """ARR 2019 storms per AEP x duration x pattern on a scenario, priced; runs nothing."""
    api = PlatformClient.for_context(ctx)
    inputs = {"ifd": ifd, "temporal_patterns": temporal_patterns, "storm_losses": losses}
    settings = {
        "initial_loss_mm": initial_loss_mm,
        "continuing_loss_mm_h": continuing_loss_mm_h,
        "areal_reduction_factor": areal_reduction_factor,
        "climate_factor": climate_factor,
        "central_statistic": central_statistic,
    }
    study_body = body(
        DesignStudyCreate,
        name=f"ARR 2019: {', '.join(aeps)} AEP"[:NAME_MAX_LENGTH],
        base_scenario=base_scenario_id,
        **{kind: input_id for kind, input_id in inputs.items() if input_id is not None},
        aeps=aeps,
        durations_min=durations_min,
        **{name: value for name, value in settings.items() if value is not None},
    )
    study = (await api.post(paths.DESIGN_STUDIES.url(project_id=project_id), json=study_body)).data
    return _handed_back(study, made=True)


@tool(title="Get a design study", read_only=True, idempotent=True, relied_on=("id", "estimate"))
async def get_design_study(
    ctx: Context,
    project_id: ProjectId,
    study_id: StudyId,
    points: Annotated[list[Point] | None, Field(max_length=1000, description="Sample the envelopes: [{x, y}]")] = None,
    crs: Annotated[str | None, Field(description="Of the points; default the project's.")] = None,
) -> DesignStudy:
    """Storms and price; progress with ETA; then per AEP peaks, flooded areas by depth, hazard and critical
    duration, and the envelopes and critical duration at points."""
    api = PlatformClient.for_context(ctx)
    study = (await api.get(paths.DESIGN_STUDY_DETAIL.url(project_id=project_id, study_id=study_id))).data
    sampled = None
    if points:
        sent = body(RunSampleQuery, points=[point.model_dump() for point in points], crs=crs or "")
        sampled = StudySample.model_validate(
            (await api.post(paths.DESIGN_STUDY_SAMPLE.url(project_id=project_id, study_id=study_id), json=sent)).data
        ).aeps
    return _handed_back(study, sampled=sampled)


@tool(title="Start a design study", relied_on=("id", "status"))
async def start_design_study(ctx: Context, project_id: ProjectId, study_id: StudyId) -> DesignStudy:
    """Run every member; charges the whole price. Needs the base built and, if asked, signed off."""
    api = PlatformClient.for_context(ctx)
    await api.post(paths.DESIGN_STUDY_START.url(project_id=project_id, study_id=study_id))
    return _handed_back((await api.get(paths.DESIGN_STUDY_DETAIL.url(project_id=project_id, study_id=study_id))).data)


@tool(title="Cancel a design study", destructive=True, relied_on=("id", "status"))
async def cancel_design_study(ctx: Context, project_id: ProjectId, study_id: StudyId) -> DesignStudy:
    """Stop every member; each costs only what it computed."""
    api = PlatformClient.for_context(ctx)
    await api.post(paths.DESIGN_STUDY_CANCEL.url(project_id=project_id, study_id=study_id))
    return _handed_back((await api.get(paths.DESIGN_STUDY_DETAIL.url(project_id=project_id, study_id=study_id))).data)


@tool(title="List design studies", read_only=True, idempotent=True)
async def list_design_studies(ctx: Context, project_id: ProjectId, page: Page = 1) -> StudyList:
    """A project's design studies, newest first."""
    api = PlatformClient.for_context(ctx)
    data = (await api.get(paths.DESIGN_STUDIES.url(project_id=project_id), params={"page": page})).data
    items = [
        StudyItem.from_answer(study, members=study.progress.members_total, progress_pct=study.progress.progress_pct)
        for study in DesignStudyPage.model_validate(data).results
    ]
    return StudyList(**page_numbers(data), results=items)
