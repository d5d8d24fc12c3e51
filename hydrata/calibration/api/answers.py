"""The calibration studies' answers as the contract spells them (hydrata_contract/answers/calibration.py)."""

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from hydrata.calibration.models import CalibrationStudy
from hydrata.calibration.selectors import (
    calibration_fingerprint,
    calibration_link,
    calibration_members,
    calibration_progress,
    study_parameters,
)
from hydrata_contract.links import ReportKind, report_url
from hydrata_contract.studies import StudyStatus


def calibration_study_answer(study: CalibrationStudy) -> dict[str, Any]:
    return {
        "id": study.pk,
        "project": study.project_id,
        "name": study.name,
        "base_scenario": study.base_scenario_id,
        "event": study.event_id,
        "method": study.method,
        "parameters": [{**p.model_dump(mode="json"), "label": p.label} for p in study_parameters(study)],
        "budget": study.budget,
        "members_planned": study.members_planned,
        "in_flight": study.in_flight,
        "seed": study.seed,
        "status": study.status,
        "status_message": study.status_message,
        "estimate": study.estimate,
        "compute_cost": None if study.compute_cost is None else str(study.compute_cost),
        "progress": calibration_progress(study=study, now=timezone.now()),
        "started_at": study.started_at,
        "finished_at": study.finished_at,
        "created_at": study.created_at,
        "ui_url": calibration_link(study),
        "report_url": report_url(site_url=settings.HYDRATA_SITE_URL, kind=ReportKind.CALIBRATION, object_id=study.pk)
        if study.status == StudyStatus.COMPLETE
        else None,
    }


def calibration_study_detail(study: CalibrationStudy, *, user: User) -> dict[str, Any]:
    labels = [parameter.label for parameter in study_parameters(study)]
    fingerprint = calibration_fingerprint(study=study)
    approvals = list(study.approvals.filter(fingerprint=fingerprint).values_list("approved_by_id", flat=True))
    return {
        **calibration_study_answer(study),
        "approval": {"approved": bool(approvals), "approved_by_you": user.pk in approvals, "fingerprint": fingerprint},
        "members": [
            {
                "index": member.index,
                "values": dict(zip(labels, member.values, strict=True)),
                "run": member.run_id,
                "run_status": member.run.status if member.run else None,
                "objective": member.objective,
            }
            for member in calibration_members(study=study)
        ],
        "results": study.results,
    }
