"""Reads of design inputs and studies, always through a project the caller may see, and the inputs read back as
the parsers' types."""

import hashlib
import json
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet

from hydrata.anuga.models import Project
from hydrata.anuga.selectors.approvals import scenario_state_parts, state_changes, state_digest_of
from hydrata.anuga.selectors.links import project_link
from hydrata.anuga.selectors.projects import Reader
from hydrata.compute.arr.ifd import IfdTable
from hydrata.compute.arr.losses import PreBurst, StormLosses
from hydrata.compute.arr.patterns import TemporalPattern
from hydrata.core.errors import NotFound
from hydrata.studies.models import DesignInput, DesignMember, DesignStudy, DesignStudyApproval
from hydrata_contract.answers.studies import StudyApproval, StudyProgress
from hydrata_contract.errors import ErrorCode
from hydrata_contract.links import Panel
from hydrata_contract.states import TERMINAL_RUN_STATES, RunStatus
from hydrata_contract.studies import StoredStudyResults, StudyStatus

# What a member computes from, besides the base scenario and the study's inputs and factors: which storm, and how long.
MEMBER_FORCING_FIELDS = ("aep", "duration_min", "pattern", "simulated_s")
# What a member's storm is derived from on the study (with its design inputs' digests).
STUDY_FORCING_FIELDS = (
    "rain_binding",
    "rainfall_layer_id",
    "aeps",
    "durations_min",
    "areal_reduction_factor",
    "climate_factor",
    "initial_loss_mm",
    "continuing_loss_mm_h",
)


def design_inputs_of(*, project: Project, reader: Reader) -> QuerySet[DesignInput]:
    """The project's design inputs; none for a public reader (a project shares its inputs with its members only)."""
    inputs = project.design_inputs.all()
    return inputs if reader.in_full else inputs.none()


def design_input_get(*, project: Project, input_id: int, reader: Reader) -> DesignInput:
    found = design_inputs_of(project=project, reader=reader).filter(pk=input_id).first()
    if found is None:
        raise NotFound(f"Project {project.pk} has no design input {input_id}.", code=ErrorCode.DESIGN_INPUT_NOT_FOUND)
    return found


def design_studies_of(*, project: Project) -> QuerySet[DesignStudy]:
    return project.design_studies.select_related("base_scenario")


def design_study_get(*, project: Project, study_id: int) -> DesignStudy:
    found = design_studies_of(project=project).filter(pk=study_id).first()
    if found is None:
        raise NotFound(f"Project {project.pk} has no design study {study_id}.", code=ErrorCode.DESIGN_STUDY_NOT_FOUND)
    return found


def study_results(*, study: DesignStudy) -> StoredStudyResults | None:
    """The study's results (a JSON column) read back as the contract's model; None until its envelopes are written."""
    return StoredStudyResults.model_validate(study.results) if study.results else None


def study_link(study: DesignStudy) -> str:
    """The map's Study panel on this study (its base scenario named too, for the Scenario tab beside it)."""
    return project_link(study.project, Panel.STUDY, scenario=study.base_scenario_id, study=study.pk)


def ifd_table(*, design_input: DesignInput) -> IfdTable:
    content: dict[str, Any] = design_input.content
    return IfdTable(
        aeps=tuple(content["aeps"]),
        durations_min=tuple(content["durations_min"]),
        depths_mm=tuple(tuple(row) for row in content["depths_mm"]),
    )


def temporal_patterns(*, design_input: DesignInput) -> list[TemporalPattern]:
    return [
        TemporalPattern(**{**pattern, "increments_pct": tuple(pattern["increments_pct"])})
        for pattern in design_input.content["patterns"]
    ]


def storm_losses(*, design_input: DesignInput) -> StormLosses:
    content: dict[str, Any] = design_input.content
    preburst = content.get("preburst")
    return StormLosses(
        initial_loss_mm=content["initial_loss_mm"],
        continuing_loss_mm_h=content["continuing_loss_mm_h"],
        preburst=PreBurst(
            aeps_pct=tuple(preburst["aeps_pct"]),
            durations_min=tuple(preburst["durations_min"]),
            depths_mm=tuple(tuple(row) for row in preburst["depths_mm"]),
        )
        if preburst
        else None,
    )


# The parts of a study's state that are the study's own, besides its base scenario's (scenario_state_parts).
STUDY_FACTORS_PART = "the study's design inputs and factors"
STUDY_MEMBERS_PART = "the members' storms"


def study_fingerprint(*, study: DesignStudy) -> str:
    """SHA-256 of everything a study's members compute from: the base scenario's state (its approval digest), where
    the storms fall, the design inputs (their digests, taken once when stored) and the factors the storms are derived
    from, and each member's storm and simulated time. Any change to one of them changes it. No storm is built or read:
    a member's is a function of these (services/studies.py, `study_storms`)."""
    return study_state(study=study)[0]


def study_state(*, study: DesignStudy) -> tuple[str, dict[str, str]]:
    """The study's fingerprint (study_fingerprint) and its parts by name, each with its SHA-256: the base scenario's
    parts, STUDY_FACTORS_PART and STUDY_MEMBERS_PART; `state_changes` names the parts that differ. One pass."""
    scenario_parts = scenario_state_parts(scenario=study.base_scenario)
    digest = hashlib.sha256()
    digest.update(state_digest_of(parts=scenario_parts).encode())
    forcing = {field: getattr(study, field) for field in STUDY_FORCING_FIELDS}
    used = [study.ifd_id, study.temporal_patterns_id, study.storm_losses_id]
    digests = dict(DesignInput.objects.filter(pk__in=[pk for pk in used if pk]).values_list("pk", "digest"))
    forcing["inputs"] = [digests.get(pk) if pk else None for pk in used]
    factors = json.dumps(forcing, sort_keys=True).encode()
    digest.update(factors)
    members = hashlib.sha256()
    for member in study.members.order_by("id").values_list("id", *MEMBER_FORCING_FIELDS).iterator(chunk_size=1000):
        row = json.dumps(member).encode()
        digest.update(row)
        members.update(b"%d:%s" % (len(row), row))
    parts = {
        **scenario_parts,
        STUDY_FACTORS_PART: hashlib.sha256(factors).hexdigest(),
        STUDY_MEMBERS_PART: members.hexdigest(),
    }
    return digest.hexdigest(), parts


def study_approved_by(*, study: DesignStudy, user: User, fingerprint: str) -> bool:
    return study.approvals.filter(approved_by=user, fingerprint=fingerprint).exists()


def study_approval_summary(*, study: DesignStudy, user: User, fingerprint: str | None = None) -> StudyApproval:
    """Who signed the study off as it is now; `fingerprint` when the caller has just computed it. Once it started:
    the sign-offs it ran under (those of the fingerprint it started with, given before it started), whether its start
    needed one, and whether it changed since (and what, by name)."""
    parts: dict[str, str] | None = None
    if fingerprint is None:
        fingerprint, parts = study_state(study=study)
    current = list(study.approvals.filter(fingerprint=fingerprint).select_related("approved_by"))
    started = study.started_fingerprint
    ran_under = (
        study.approvals.filter(fingerprint=started, approved_at__lte=study.started_at).select_related("approved_by")
        if started and study.started_at
        else []
    )
    changes: list[str] = []
    if started and fingerprint != started and study.started_state_parts:
        parts = parts if parts is not None else study_state(study=study)[1]
        changes = state_changes(before=study.started_state_parts, after=parts)
    return StudyApproval(
        approved=bool(current),
        approved_by_you=any(approval.approved_by_id == user.pk for approval in current),
        approvals=[_signed(approval) for approval in current],
        fingerprint=fingerprint,
        started_fingerprint=started or None,
        started_approvals=[_signed(approval) for approval in ran_under],
        sign_off_required_at_start=study.sign_off_required_at_start,
        changed_since_start=None if not started else fingerprint != started,
        changes_since_start=changes,
    )


def _signed(approval: DesignStudyApproval) -> dict[str, Any]:
    return {"by": approval.approved_by.get_username(), "at": approval.approved_at}


def study_member_runs(*, study: DesignStudy) -> QuerySet[DesignMember]:
    return study.members.select_related("run").order_by("id")


def study_progress(*, study: DesignStudy, now: datetime) -> StudyProgress:
    """Members settled (complete, error or cancelled) over all, and an ETA from the share of the work done so far:
    a settled member counts whole, a computing one by its own progress."""
    runs = list(study.members.values_list("run__status", "run__progress_pct"))
    total = len(runs)
    settled = sum(1 for status, _ in runs if status in TERMINAL_RUN_STATES)
    done = sum(
        1.0 if status in TERMINAL_RUN_STATES else (pct or 0.0) / 100.0 for status, pct in runs if status is not None
    )
    share = done / total if total else 0.0
    eta = None
    if study.status == StudyStatus.RUNNING and study.started_at and 0 < share < 1:
        elapsed = (now - study.started_at).total_seconds()
        eta = round(elapsed * (1 - share) / share, 1)
    counts: dict[str, int] = dict.fromkeys((RunStatus.COMPLETE, RunStatus.ERROR, RunStatus.CANCELLED), 0)
    for status, _ in runs:
        if status in counts:
            counts[status] += 1
    return StudyProgress(
        members_done=settled,
        members_total=total,
        members_complete=counts[RunStatus.COMPLETE],
        members_failed=counts[RunStatus.ERROR],
        members_cancelled=counts[RunStatus.CANCELLED],
        progress_pct=round(100.0 * share, 1),
        eta_seconds=eta,
    )
