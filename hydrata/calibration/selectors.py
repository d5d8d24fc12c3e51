"""Reads of calibration studies, always through a project the caller reads in full (a project shares its studies
with its members only, as it does its design inputs), and what a study is signed off over."""

import hashlib
import json
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import QuerySet

from hydrata.anuga.models import Project
from hydrata.anuga.selectors.approvals import scenario_state_digest
from hydrata.anuga.selectors.links import project_link
from hydrata.anuga.selectors.projects import Reader
from hydrata.calibration.models import CalibrationMember, CalibrationStudy
from hydrata.core.errors import NotFound
from hydrata.observations.selectors import fingerprint_of
from hydrata_contract.answers.calibration import CalibrationProgress, CalibrationResults
from hydrata_contract.errors import ErrorCode
from hydrata_contract.links import Panel
from hydrata_contract.requests.calibration import CalibrationParameter
from hydrata_contract.states import TERMINAL_RUN_STATES
from hydrata_contract.studies import StudyStatus


def calibration_studies_of(*, project: Project, reader: Reader) -> QuerySet[CalibrationStudy]:
    studies = project.calibration_studies.select_related("base_scenario", "event")
    return studies if reader.in_full else studies.none()


def calibration_study_get(*, project: Project, study_id: int, reader: Reader) -> CalibrationStudy:
    found = calibration_studies_of(project=project, reader=reader).filter(pk=study_id).first()
    if found is None:
        raise NotFound(
            f"Project {project.pk} has no calibration study {study_id}.", code=ErrorCode.CALIBRATION_STUDY_NOT_FOUND
        )
    return found


def calibration_results(*, study: CalibrationStudy) -> CalibrationResults | None:
    """The study's results (a JSON column) read back as the contract's model."""
    return None if study.results is None else CalibrationResults.model_validate(study.results)


def study_parameters(study: CalibrationStudy) -> list[CalibrationParameter]:
    return [CalibrationParameter.model_validate(parameter) for parameter in study.parameters]


def calibration_link(study: CalibrationStudy) -> str:
    """The map's Calibration panel on this study."""
    return project_link(study.project, Panel.CALIBRATION, scenario=study.base_scenario_id, study=study.pk)


def calibration_fingerprint(*, study: CalibrationStudy) -> str:
    """SHA-256 of what its members compute from and are judged by: the base scenario's state, the parameters and
    their ranges, the budget, the method and seed, and the event's observations. Any change leaves a sign-off stale."""
    digest = hashlib.sha256()
    digest.update(scenario_state_digest(scenario=study.base_scenario).encode())
    own = {
        "parameters": study.parameters,
        "budget": study.budget,
        "members_planned": study.members_planned,
        "method": study.method,
        "seed": study.seed,
        "event": study.event_id,
        "observations": fingerprint_of(event=study.event),
    }
    digest.update(json.dumps(own, sort_keys=True).encode())
    return digest.hexdigest()


def calibration_approved_by(*, study: CalibrationStudy, user: User, fingerprint: str) -> bool:
    return study.approvals.filter(approved_by=user, fingerprint=fingerprint).exists()


def calibration_members(*, study: CalibrationStudy) -> QuerySet[CalibrationMember]:
    return study.members.select_related("run").order_by("index")


def calibration_progress(*, study: CalibrationStudy, now: datetime) -> CalibrationProgress:
    """Members ended over those planned, and an ETA from the share done since the start: an ended member counts
    whole, a computing one by its own progress, one not yet proposed as nothing."""
    runs = list(study.members.values_list("run__status", "run__progress_pct"))
    total = study.members_planned
    ended = sum(1 for status, _ in runs if status in TERMINAL_RUN_STATES)
    done = sum(1.0 if status in TERMINAL_RUN_STATES else (pct or 0.0) / 100.0 for status, pct in runs if status)
    share = min(1.0, done / total) if total else 0.0
    if study.status in (StudyStatus.COMPLETE, StudyStatus.CANCELLED, StudyStatus.ERROR):
        share = 1.0
    eta = None
    if study.status == StudyStatus.RUNNING and study.started_at and 0 < share < 1:
        elapsed = (now - study.started_at).total_seconds()
        eta = round(elapsed * (1 - share) / share, 1)
    return CalibrationProgress(
        members_done=ended,
        members_started=len(runs),
        members_total=total,
        progress_pct=round(100.0 * share, 1),
        eta_seconds=eta,
    )
