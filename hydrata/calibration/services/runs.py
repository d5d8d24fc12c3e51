"""Running a calibration study: its sign-off, its start (every planned member charged at once, all or nothing), the
members launched as runs of the base build with their own values, its advance as members end (each member read
against the event's observations; the optimiser proposes the next while workers are free), its cancel (what was not
computed given back) and its end (the best fit, or the Morris ranking).

A member is an `anuga.Run` of the base build (study_member): its own package holds its scenario.json and the layers
and series its values change; the mesh and terrain are read from the build (`shared_prefix`)."""

import json
from dataclasses import dataclass
from decimal import Decimal
from hashlib import sha256
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from hydrata.agents.models import AgentGrant
from hydrata.agents.services import SpendItem, agent_spend_charge_all, agent_spend_refund, agent_spend_rereference
from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.selectors.approvals import runs_need_approval
from hydrata.anuga.services.runs import run_cancel, run_from_build, run_lost_its_worker, run_queue_member
from hydrata.calibration.models import CalibrationApproval, CalibrationMember, CalibrationStudy
from hydrata.calibration.selectors import (
    calibration_approved_by,
    calibration_fingerprint,
    calibration_link,
    study_parameters,
)
from hydrata.calibration.services.results import member_read, study_results
from hydrata.calibration.services.studies import build_extent, build_layers, build_series, targets_check
from hydrata.compute.calibration.members import member_files
from hydrata.compute.calibration.search import Told, propose
from hydrata.core.errors import Conflict, Forbidden
from hydrata.storage import get_storage
from hydrata.studies.services.runs import BaseBuild, base_build, build_of, member_retry
from hydrata.studies.services.studies import study_member_prices
from hydrata_contract.calibration import CalibrationMethod
from hydrata_contract.compute import ComputeBackend
from hydrata_contract.errors import ErrorCode
from hydrata_contract.requests.calibration import CalibrationParameter
from hydrata_contract.states import TERMINAL_RUN_STATES, RunPhase, RunStatus
from hydrata_contract.studies import STUDY_FINISHED_STATES, StudyStatus


def _slot(study: CalibrationStudy, index: int) -> str:
    """What a member is charged under until its run exists (then under the run's own reference)."""
    return f"calibration:{study.pk}:member:{index}"


@transaction.atomic
def calibration_study_approve(*, study: CalibrationStudy, user: User, grant: AgentGrant | None) -> CalibrationApproval:
    """Record that `user` signed the study off as it is now. A person does this on the site; an agent never can."""
    if grant is not None:
        raise Forbidden(
            "Only a person can sign a calibration study off for its runs, on the site; agent keys cannot.",
            code=ErrorCode.APPROVAL_BY_PERSON_ONLY,
        )
    study = CalibrationStudy.objects.select_for_update().select_related("base_scenario", "event").get(pk=study.pk)
    fingerprint = calibration_fingerprint(study=study)
    found = study.approvals.filter(approved_by=user, fingerprint=fingerprint).first()
    return found or CalibrationApproval.objects.create(study=study, approved_by=user, fingerprint=fingerprint)


def _approval_check(study: CalibrationStudy, grant: AgentGrant | None, fingerprint: str) -> None:
    if grant is None or not runs_need_approval(user=grant.user):
        return
    if calibration_approved_by(study=study, user=grant.user, fingerprint=fingerprint):
        return
    link = calibration_link(study)
    raise Conflict(
        f"This account asks that its owner sign a study off before an agent runs it, and calibration study "
        f"'{study.name}' is not signed off as it is now (a change to its parameters, its event's observations or "
        f"the base scenario since needs a new sign-off). Ask the user to sign it off in the map's Calibration "
        f"panel: {link}",
        code=ErrorCode.APPROVAL_REQUIRED,
        ui_url=link,
        study=study.pk,
    )


def calibration_study_start(*, study: CalibrationStudy, user: User, grant: AgentGrant | None) -> CalibrationStudy:
    """Charge every planned member to the agent's month at once (all or none, 402 past the limit), then launch the
    first members: a Morris screen's all, an optimiser's `in_flight`. The base scenario must be built as it is now,
    and the study signed off where the account asks."""
    with transaction.atomic():
        study = CalibrationStudy.objects.select_for_update().select_related("base_scenario", "event").get(pk=study.pk)
        if study.status != StudyStatus.DRAFT:
            raise Conflict(
                f"Calibration study {study.pk} is {study.status}; a study starts once. Make a new one to run again.",
                code=ErrorCode.STUDY_NOT_STARTABLE,
                status=study.status,
            )
        scenario = Scenario.objects.select_for_update().get(pk=study.base_scenario_id)
        build = base_build(scenario)
        targets_check(build=build, parameters=study_parameters(study))
        fingerprint = calibration_fingerprint(study=study)
        _approval_check(study, grant, fingerprint)
        price = study_member_prices(scenario=scenario, simulated_s=[scenario.duration])[0]
        if grant is not None:
            agent_spend_charge_all(
                grant=grant,
                items=[
                    SpendItem(
                        amount=price,
                        reference=_slot(study, index),
                        description=f"Calibration study {study.pk} member {index + 1} of {study.members_planned}",
                    )
                    for index in range(study.members_planned)
                ],
            )
        study.status, study.started_at, study.started_fingerprint = StudyStatus.RUNNING, timezone.now(), fingerprint
        study.member_price, study.launched_by, study.launched_by_grant_id = price, user, grant.pk if grant else None
        study.build = build.run
        study.save()
        launched = _launch_more(study, build)
        transaction.on_commit(lambda: _enqueue(study.pk, launched))
    return study


def _launch_more(study: CalibrationStudy, build: BaseBuild) -> list[int]:
    """Launch members while fewer than `in_flight` compute and the plan has more: a Morris screen's designed members
    in order, or the optimiser's next proposals. Returns the runs to queue."""
    members = list(study.members.select_related("run").order_by("index"))
    computing = [m for m in members if m.run is not None and m.run.status not in TERMINAL_RUN_STATES]
    free = study.in_flight - len(computing)
    if free <= 0:
        return []
    waiting = [m for m in members if m.run is None]
    parameters = study_parameters(study)
    if study.method == CalibrationMethod.OPTIMISE:
        room = min(free, study.members_planned - len(members))
        if room > 0:
            told = [Told(values=tuple(m.values), objective=m.objective) for m in members if m.told]
            pending = [m.values for m in members if not m.told]
            proposed = propose(
                parameters=parameters,
                told=told,
                pending=pending,
                count=room,
                seed=study.seed,
                budget=study.members_planned,
            )
            start = len(members)
            waiting += CalibrationMember.objects.bulk_create(
                CalibrationMember(study=study, index=start + k, values=list(v)) for k, v in enumerate(proposed)
            )
    chosen = waiting[:free]
    if not chosen:
        return []
    own = _BuildInputs(layers=build_layers(build), series=build_series(build), extent=build_extent(build))
    runs = []
    for member in chosen:
        run = _member_run(study, build)
        run.package_prefix = _write_member_package(study, build, member, run, parameters=parameters, inputs=own)
        run.save(update_fields=["package_prefix", "package_sha256"])
        agent_spend_rereference(
            reference=_slot(study, member.index),
            to=f"run:{run.pk}",
            description=f"Calibration study {study.pk} member {member.index + 1} (run {run.pk})",
        )
        member.run = run
        member.save(update_fields=["run"])
        runs.append(run.pk)
    return runs


@dataclass(frozen=True)
class _BuildInputs:
    """What the members change, as the build has it: read once for every member a launch writes."""

    layers: dict[str, dict[str, Any] | None]
    series: dict[str, dict[str, Any]]
    extent: tuple[float, float, float, float]


def _member_run(study: CalibrationStudy, build: BaseBuild) -> Run:
    run = run_from_build(
        build=build.run,
        study_member=True,
        status=RunStatus.QUEUED,
        phase=RunPhase.PREPARING_INPUTS,
        duration=build.run.duration,
        compute_backend=ComputeBackend.LOCAL,
        queued_at=timezone.now(),
        compute_cost=study.member_price,
        created_by=study.launched_by,
        launched_by=study.launched_by,
        launched_by_grant_id=study.launched_by_grant_id,
    )
    run.save()
    return run


def _write_member_package(
    study: CalibrationStudy,
    build: BaseBuild,
    member: CalibrationMember,
    run: Run,
    *,
    parameters: list[CalibrationParameter],
    inputs: "_BuildInputs",
) -> str:
    """The member's own files: scenario.json naming its changed layers and series, and the build's for the rest."""
    files = member_files(
        parameters=parameters,
        values=member.values,
        layers=inputs.layers,
        series=inputs.series,
        extent=inputs.extent,
        crs=build.manifest["epsg"],
    )
    prefix = f"calibration/{study.pk}/members/{member.index}/package"
    own: dict[str, bytes] = {}
    manifest = {
        **build.manifest,
        "run_id": run.pk,
        "duration": build.run.duration,
        "shared_prefix": build.run.package_prefix,
        "calibration": {
            "study": study.pk,
            "study_name": study.name,
            "member": member.index,
            "values": {parameter.label: value for parameter, value in zip(parameters, member.values, strict=True)},
        },
    }
    for kind, layer in files.layers.items():
        manifest[kind] = f"inputs/calibration_{kind}.geojson"
        own[manifest[kind]] = json.dumps(layer).encode()
    named = dict(manifest.get("time_series") or {})
    for number, (name, document) in enumerate(files.series.items()):
        named[name] = f"time_series/calibration_{number}.json"
        own[named[name]] = json.dumps(document).encode()
    manifest["time_series"] = named
    manifest["own_files"] = sorted(own)
    own["scenario.json"] = json.dumps(manifest, indent=2).encode()
    storage = get_storage()
    for name, data in own.items():
        storage.save(key=f"{prefix}/{name}", data=data)
    run.package_sha256 = {**build.run.package_sha256, **{name: sha256(data).hexdigest() for name, data in own.items()}}
    return prefix


def _enqueue(study_id: int, run_ids: list[int]) -> None:
    """Each run's own simulation task; its link tells the study when it has ended (a lost worker sends nothing:
    the sweep, calibration_studies_advance, sees those)."""
    from hydrata.calibration.tasks import calibration_study_advance_task

    for run_id in run_ids:
        run_queue_member(run_id=run_id, when_ended=calibration_study_advance_task.si(study_id))


def calibration_study_advance(*, study_id: int) -> CalibrationStudy:
    """Run once more each member whose worker was lost on its first run (as a design study's); read each member
    whose run has ended (its fit to the observations, its peaks); launch the next while the plan has more and
    workers are free; and end the study once every planned member has ended."""
    with transaction.atomic():
        study = CalibrationStudy.objects.select_for_update().select_related("base_scenario", "event").get(pk=study_id)
        if study.status != StudyStatus.RUNNING:
            return study
        launched: list[int] = []
        for member in study.members.select_related("run").filter(told=False).exclude(run=None):
            if member.run is not None and member.run.retry_of_id is None and run_lost_its_worker(run=member.run):
                member.run = member_retry(member.run)  # once, uncharged: the loss was ours, not the member's
                member.save(update_fields=["run"])
                launched.append(member.run.pk)
            elif member.run is not None and member.run.status in TERMINAL_RUN_STATES:
                member_read(study=study, member=member)
        more = study.members.count() < study.members_planned or study.members.filter(run=None).exists()
        if more and study.build is not None:
            launched += _launch_more(study, build_of(study.build))
        ended = study.members.filter(told=True).count()
        if ended >= study.members_planned or (more and study.build is None and not _computing(study)):
            _finish(study)
        transaction.on_commit(lambda: _enqueue(study_id, launched))
    return study


def _cost(run: Run) -> Decimal:
    """What a member's run cost: a retry's is its lost first run's (the retry is not charged)."""
    if run.compute_cost is None and run.retry_of is not None:
        return run.retry_of.compute_cost or Decimal("0")
    return run.compute_cost or Decimal("0")


def _computing(study: CalibrationStudy) -> bool:
    return study.members.exclude(run=None).exclude(run__status__in=TERMINAL_RUN_STATES).exists()


def _finish(study: CalibrationStudy) -> None:
    members = list(study.members.select_related("run__retry_of").order_by("index"))
    members_ran = [member for member in members if member.run is not None]
    study.results = study_results(study=study, members=members).model_dump(mode="json")
    study.compute_cost = sum((_cost(m.run) for m in members_ran if m.run), Decimal("0.00"))
    complete = sum(1 for m in members_ran if m.run and m.run.status == RunStatus.COMPLETE)
    study.status = StudyStatus.COMPLETE if complete else StudyStatus.ERROR
    study.status_message = "" if complete else "No member completed; each member's run says why."
    if study.build is None and len(members_ran) < study.members_planned:
        study.status_message = (
            f"Ended after {len(members_ran)} of {study.members_planned} members: the build they ran was deleted. "
            + study.status_message
        ).strip()
    study.finished_at = timezone.now()
    study.save()
    _refund_unlaunched(study)


def _refund_unlaunched(study: CalibrationStudy) -> Decimal:
    """Give back the charge of every planned member that never ran."""
    given = Decimal("0")
    for index in range(study.members_planned):
        given += agent_spend_refund(
            reference=_slot(study, index),
            keep=Decimal("0"),
            description=f"Refund of calibration study {study.pk} member {index + 1}, never run",
        )
    return given


def calibration_study_cancel(*, study: CalibrationStudy) -> CalibrationStudy:
    """Cancel every member that has not ended (each costs only what it computed, as a cancelled run does), give back
    every member never launched, and end the study."""
    with transaction.atomic():
        study = CalibrationStudy.objects.select_for_update().get(pk=study.pk)
        if study.status in STUDY_FINISHED_STATES:
            raise Conflict(
                f"Calibration study {study.pk} has already ended ({study.status}); there is nothing to cancel.",
                code=ErrorCode.STUDY_FINISHED,
                status=study.status,
            )
        members = list(study.members.select_related("run").order_by("index"))
        for member in members:
            if member.run is not None and member.run.status not in TERMINAL_RUN_STATES:
                run_cancel(run=member.run)
        launched = sum(1 for m in members if m.run is not None)
        study.status, study.finished_at = StudyStatus.CANCELLED, timezone.now()
        study.status_message = (
            f"Cancelled with {launched} of {study.members_planned} members launched; those computing are stopped "
            "by their workers, and those never launched were given back."
        )
        study.save()
        if study.started_at is not None:
            _refund_unlaunched(study)
    return study


def calibration_study_delete(*, study: CalibrationStudy) -> None:
    """Delete a study that is not computing (cancel a running one first); its members' runs stay, as runs of the
    base scenario with what they cost."""
    with transaction.atomic():
        study = CalibrationStudy.objects.select_for_update().get(pk=study.pk)
        if study.status in (StudyStatus.RUNNING, StudyStatus.POST_PROCESSING):
            raise Conflict(
                f"Calibration study {study.pk} is {study.status}; cancel it (cancel_calibration_study) and delete it "
                "then.",
                code=ErrorCode.STUDY_RUNNING,
                status=study.status,
            )
        study.delete()


def calibration_studies_advance() -> int:
    """The sweep: advance every running study (one whose last member's worker was lost has no link to do it)."""
    running = list(CalibrationStudy.objects.filter(status=StudyStatus.RUNNING).values_list("pk", flat=True))
    for study_id in running:
        calibration_study_advance(study_id=study_id)
    return len(running)
