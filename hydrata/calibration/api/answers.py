"""The calibration studies' answers, built as the contract's models (hydrata_contract/answers/calibration.py): what
a view sends is the model, dumped."""

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from hydrata.calibration.models import CalibrationStudy
from hydrata.calibration.selectors import (
    calibration_fingerprint,
    calibration_link,
    calibration_members,
    calibration_progress,
    calibration_results,
    study_parameters,
)
from hydrata_contract.answers.calibration import (
    CalibrationApproval,
    CalibrationMemberRow,
    CalibrationStudyDetail,
    CalibrationStudySummary,
    ParameterRange,
)
from hydrata_contract.answers.studies import StudyEstimate
from hydrata_contract.calibration import CalibrationMethod
from hydrata_contract.links import ReportKind, report_url
from hydrata_contract.states import RunStatus
from hydrata_contract.studies import StudyStatus


def calibration_study_answer(study: CalibrationStudy) -> CalibrationStudySummary:
    return CalibrationStudySummary(**_summary(study))


def calibration_study_detail(study: CalibrationStudy, *, user: User) -> CalibrationStudyDetail:
    labels = [parameter.label for parameter in study_parameters(study)]
    fingerprint = calibration_fingerprint(study=study)
    approvals = list(study.approvals.filter(fingerprint=fingerprint).values_list("approved_by_id", flat=True))
    return CalibrationStudyDetail(
        **_summary(study),
        approval=CalibrationApproval(
            approved=bool(approvals), approved_by_you=user.pk in approvals, fingerprint=fingerprint
        ),
        members=[
            CalibrationMemberRow(
                index=member.index,
                values=dict(zip(labels, member.values, strict=True)),
                run=member.run_id,
                run_status=RunStatus(member.run.status) if member.run else None,
                objective=member.objective,
            )
            for member in calibration_members(study=study)
        ],
        results=calibration_results(study=study),
    )


def _summary(study: CalibrationStudy) -> dict:
    """The fields every answer of a study carries, as the summary's model types them."""
    complete = study.status == StudyStatus.COMPLETE
    return {
        "id": study.pk,
        "project": study.project_id,
        "name": study.name,
        "base_scenario": study.base_scenario_id,
        "event": study.event_id,
        "method": CalibrationMethod(study.method),
        "parameters": [ParameterRange(**p.model_dump(), label=p.label) for p in study_parameters(study)],
        "budget": study.budget,
        "members_planned": study.members_planned,
        "in_flight": study.in_flight,
        "seed": study.seed,
        "status": StudyStatus(study.status),
        "status_message": study.status_message,
        "estimate": StudyEstimate.model_validate(study.estimate),
        "compute_cost": None if study.compute_cost is None else str(study.compute_cost),
        "progress": calibration_progress(study=study, now=timezone.now()),
        "started_at": study.started_at,
        "finished_at": study.finished_at,
        "created_at": study.created_at,
        "ui_url": calibration_link(study),
        "report_url": report_url(site_url=settings.HYDRATA_SITE_URL, kind=ReportKind.CALIBRATION, object_id=study.pk)
        if complete
        else None,
    }
