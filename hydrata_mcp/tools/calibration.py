"""Calibration and sensitivity studies: members are runs of a built base scenario with their own parameter values,
fitted to a flood event's observations by an optimiser, or screened for influence (Morris); priced, then started,
followed and read back as the best fit or the ranking."""

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from hydrata_contract import paths
from hydrata_contract.answers.calibration import (
    CalibrationMemberRow,
    CalibrationProgress,
    CalibrationResults,
    CalibrationStudyDetail,
)
from hydrata_contract.answers.studies import StudyEstimate
from hydrata_contract.calibration import CalibrationMethod
from hydrata_contract.requests.calibration import CalibrationParameter, CalibrationStudyCreate
from hydrata_contract.studies import StudyStatus
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.handback import HandBack
from hydrata_mcp.tools.arguments import ProjectId
from hydrata_mcp.tools.registry import tool
from hydrata_mcp.tools.time_series import figure

CalibrationId = Annotated[int, Field(ge=1, description="From create_calibration_study.")]


class CalibrationStudy(HandBack):
    """get_calibration_study's hand-back: the contract's answer (CalibrationStudyDetail) projected, its members only
    those launched."""

    id: int
    status: str = Field(description="draft, running, complete, cancelled or error.")
    method: CalibrationMethod
    progress: CalibrationProgress
    estimate: StudyEstimate
    results: CalibrationResults | None
    members: list[CalibrationMemberRow]


def _handed_back(answered: dict[str, Any], *, made: bool = False) -> CalibrationStudy:
    study = CalibrationStudyDetail.model_validate(answered)
    return CalibrationStudy(
        id=study.id,
        status=study.status,
        method=study.method,
        progress=study.progress,
        estimate=study.estimate,
        results=study.results,
        members=[member for member in study.members if member.run is not None],
        ui_url=study.ui_url,
        summary={
            **study.estimate.model_dump(),
            **study.progress.model_dump(),
            **_best(study.results),
            **({"report": study.report_url} if study.report_url else {}),
        },
        say_to_user=_said(study, made=made),
    )


def _best(results: CalibrationResults | None) -> dict[str, Any]:
    if results is not None and results.best is not None:
        best = results.best
        return {"best_values": best.values, "best_rmse_m": best.objective, "calibrated_run": best.run}
    if results is not None and results.morris is not None:
        return {"ranking": [rank.model_dump() for rank in results.morris.ranking]}
    return {}


def _said(study: CalibrationStudyDetail, *, made: bool) -> str:
    progress, estimate, status = study.progress, study.estimate, study.status
    link = f"See it here: {study.ui_url}"
    what = "fit to" if study.method == CalibrationMethod.OPTIMISE else "Morris screen against"
    ranges = ", ".join(f"{p.label} {figure(p.low)}-{figure(p.high)}" for p in study.parameters)
    if status == StudyStatus.DRAFT:
        return (
            f"{'I made' if made else 'The'} calibration study '{study.name}', a {what} flood event "
            f"{study.event}'s observations over {ranges}: {study.members_planned} members at most, estimated "
            f"at {figure(estimate.vcpu_hours_estimate)} vCPU-hours, USD {estimate.compute_cost_estimate}; "
            f"nothing has been spent. {link}"
        )
    done = f"{progress.members_done} of {progress.members_total} members have ended"
    if status == StudyStatus.RUNNING:
        eta = progress.eta_seconds
        return f"Calibration study {study.id} is running: {done}" + (
            f", about {figure(eta / 60)} min to go. {link}" if eta is not None else f". {link}"
        )
    results = study.results
    if status == StudyStatus.COMPLETE and results is not None and results.best is not None:
        best = results.best
        values = ", ".join(f"{label} {figure(value)}" for label, value in best.values.items())
        rmse = "no" if best.objective is None else figure(best.objective)
        return (
            f"Calibration study {study.id} is complete ({done}): the best fit is {values}, RMSE {rmse} m against "
            f"the observations, in run {best.run}. {link}"
        )
    if status == StudyStatus.COMPLETE and results is not None and results.morris is not None:
        ranking = ", ".join(f"{r.parameter} {r.influence:.2f}" for r in results.morris.ranking)
        return f"Calibration study {study.id} is complete ({done}); influence, most first: {ranking}. {link}"
    return f"Calibration study {study.id} is {status.replace('_', ' ')}: {done}. {study.status_message} {link}"


@tool(title="Create a calibration study", relied_on=("id", "estimate"))
async def create_calibration_study(
    ctx: Context,
    project_id: ProjectId,
    base_scenario_id: Annotated[int, Field(ge=1, description="A built scenario.")],
    event_id: Annotated[int, Field(ge=1, description="Its observations are fitted.")],
    parameters: Annotated[list[CalibrationParameter], Field(description="What to vary, each over [low, high].")],
    budget: Annotated[int, Field(description="Members at most.")],
    method: Annotated[Literal["optimise", "morris"], Field(description="Fit, or screen influence.")] = "optimise",
    in_flight: Annotated[int | None, Field(description="Members at once (workers).")] = None,
) -> CalibrationStudy:
    """Fit parameters to observations (optuna), or rank their influence (Morris); priced, runs nothing."""
    api = PlatformClient.for_context(ctx)
    sent = body(
        CalibrationStudyCreate,
        name=f"{'Calibration' if method == 'optimise' else 'Sensitivity'}: event {event_id}",
        base_scenario=base_scenario_id,
        event=event_id,
        method=method,
        parameters=[parameter.model_dump(mode="json", exclude_unset=True) for parameter in parameters],
        budget=budget,
        **({"in_flight": in_flight} if in_flight is not None else {}),
    )
    study = (await api.post(paths.CALIBRATION_STUDIES.url(project_id=project_id), json=sent)).data
    return _handed_back(study, made=True)


@tool(title="Start a calibration study", relied_on=("id", "status"))
async def start_calibration_study(ctx: Context, project_id: ProjectId, study_id: CalibrationId) -> CalibrationStudy:
    """Charges every member at once; what is never run is given back. Needs a sign-off if asked."""
    api = PlatformClient.for_context(ctx)
    return _handed_back(
        (await api.post(paths.CALIBRATION_STUDY_START.url(project_id=project_id, study_id=study_id))).data
    )


@tool(title="Get a calibration study", read_only=True, idempotent=True, relied_on=("id", "status"))
async def get_calibration_study(ctx: Context, project_id: ProjectId, study_id: CalibrationId) -> CalibrationStudy:
    """Progress with ETA; then the best fit and calibrated run, or the Morris ranking; every member."""
    api = PlatformClient.for_context(ctx)
    return _handed_back(
        (await api.get(paths.CALIBRATION_STUDY_DETAIL.url(project_id=project_id, study_id=study_id))).data
    )


@tool(title="Cancel a calibration study", destructive=True, relied_on=("id", "status"))
async def cancel_calibration_study(ctx: Context, project_id: ProjectId, study_id: CalibrationId) -> CalibrationStudy:
    """Stop it; members cost what they computed."""
    api = PlatformClient.for_context(ctx)
    return _handed_back(
        (await api.post(paths.CALIBRATION_STUDY_CANCEL.url(project_id=project_id, study_id=study_id))).data
    )
