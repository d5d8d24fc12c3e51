"""Running a design study: its sign-off, its start (the whole study charged at once, every member a run of the base
scenario's build with the member's storm for rain, each its own simulation task), its cancel, and its advance as
members settle (a member whose worker was lost is run once more; when every member has settled, the envelopes).

A member is an `anuga.Run` of the base scenario (`study_member`): the simulation child, the storage of its results,
its progress, its cancel and its cost are the runs' own. Its package holds only its scenario.json, its rain layer
and its storm; the mesh and terrain are read from the base scenario's build (`shared_prefix`)."""

import json
from dataclasses import dataclass
from decimal import Decimal
from hashlib import sha256
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from hydrata.agents.models import AgentGrant
from hydrata.agents.services import SpendItem, agent_spend_charge_all
from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.selectors.approvals import runs_need_approval, scenario_state_digest
from hydrata.anuga.selectors.scenarios import latest_run, scenario_geometry
from hydrata.anuga.services.runs import run_cancel, run_from_build, run_lost_its_worker, run_queue_member
from hydrata.compute.arr.storm import DesignStorm
from hydrata.compute.scenario.series_units import MM_PER_INTERVAL
from hydrata.core.broker import broker_lost_its_messages
from hydrata.core.errors import Conflict, Forbidden
from hydrata.storage import get_storage
from hydrata.studies.models import DesignMember, DesignStudy, DesignStudyApproval
from hydrata.studies.selectors import study_approved_by, study_fingerprint, study_link, study_results, study_state
from hydrata.studies.services.studies import study_member_prices, study_storms
from hydrata_contract.compute import ComputeBackend
from hydrata_contract.errors import ErrorCode
from hydrata_contract.inputs import SeriesType
from hydrata_contract.states import TERMINAL_RUN_STATES, RunPhase, RunStatus
from hydrata_contract.studies import STUDY_FINISHED_STATES, RainBinding, StudyStatus

STORM_FILE = "time_series/design_storm.json"
RAIN_FILE = "inputs/design_rain.geojson"
SOIL_FILE = "inputs/design_soil.geojson"  # a base with soils: its soils, then the study's losses everywhere else


@transaction.atomic
def design_study_approve(*, study: DesignStudy, user: User, grant: AgentGrant | None) -> DesignStudyApproval:
    """Record that `user` signed the study off as it is now. A person does this on the site; an agent never can."""
    if grant is not None:
        raise Forbidden(
            "Only a person can sign a design study off for its runs, on the site; agent keys cannot.",
            code=ErrorCode.APPROVAL_BY_PERSON_ONLY,
        )
    study = DesignStudy.objects.select_for_update().select_related("base_scenario").get(pk=study.pk)
    fingerprint = study_fingerprint(study=study)
    found = study.approvals.filter(approved_by=user, fingerprint=fingerprint).first()
    return found or DesignStudyApproval.objects.create(study=study, approved_by=user, fingerprint=fingerprint)


def _approval_check(study: DesignStudy, grant: AgentGrant | None, fingerprint: str) -> bool:
    """Whether the start needs a sign-off (an agent's, whose account asks its owner to sign off first); 409
    APPROVAL_REQUIRED when it does and the owner has not signed the study off as it is now, its `fingerprint` (a
    member's storm or the base scenario changed since leaves the sign-off stale)."""
    if grant is None or not runs_need_approval(user=grant.user):
        return False
    if study_approved_by(study=study, user=grant.user, fingerprint=fingerprint):
        return True
    link = study_link(study)
    raise Conflict(
        f"This account asks that its owner sign a study off before an agent runs it, and design study "
        f"'{study.name}' is not signed off as it is now (any change to a member's storm or the base scenario since "
        f"needs a new sign-off). Ask the user to review it and sign it off in the map's Study panel: {link}",
        code=ErrorCode.APPROVAL_REQUIRED,
        ui_url=link,
        study=study.pk,
    )


@dataclass(frozen=True)
class BaseBuild:
    """The base scenario's build that every member shares: its package and its mesh."""

    run: Run
    manifest: dict[str, Any]


def design_study_start(*, study: DesignStudy, user: User, grant: AgentGrant | None) -> DesignStudy:
    """Charge the whole study to the agent's month (all members or none, 402 past the limit), make each member's
    run and queue its simulation. The base scenario must be built as it is now, and signed off where asked."""
    with transaction.atomic():
        study = DesignStudy.objects.select_for_update().select_related("base_scenario__project").get(pk=study.pk)
        if study.status != StudyStatus.DRAFT:
            raise Conflict(
                f"Design study {study.pk} is {study.status}; a study starts once. Make a new one to run it again.",
                code=ErrorCode.STUDY_NOT_STARTABLE,
                status=study.status,
            )
        scenario = Scenario.objects.select_for_update().get(pk=study.base_scenario_id)
        build = base_build(scenario)
        fingerprint, parts = study_state(study=study)
        required = _approval_check(study, grant, fingerprint)
        members = list(study.members.order_by("id"))
        storms = study_storms(study=study)
        prices = _member_prices(scenario, members)
        runs = Run.objects.bulk_create(
            _member_run(build.run, member, price=prices[member.pk], user=user, grant=grant) for member in members
        )
        if grant is not None:
            agent_spend_charge_all(
                grant=grant,
                items=[
                    SpendItem(
                        amount=run.compute_cost or Decimal("0"),
                        reference=f"run:{run.pk}",
                        description=f"Design study {study.pk} member {member.aep} {member.duration_min} min "
                        f"pattern {member.pattern} (run {run.pk})",
                    )
                    for member, run in zip(members, runs, strict=True)
                ],
            )
        for member, run in zip(members, runs, strict=True):
            storm = storms[member.aep, member.duration_min, member.pattern]
            run.package_prefix = _write_member_package(study, build, member, storm, run)
            member.run = run
        Run.objects.bulk_update(runs, ["package_prefix", "package_sha256"])
        DesignMember.objects.bulk_update(members, ["run"])
        study.status, study.started_at = StudyStatus.RUNNING, timezone.now()
        # what it ran under, for an auditor once the study or its base changes: the sign-offs of this fingerprint
        study.started_fingerprint, study.started_state_parts = fingerprint, parts
        study.sign_off_required_at_start = required
        study.compute_cost = sum((run.compute_cost or Decimal("0") for run in runs), Decimal("0.00"))
        study.save()
        transaction.on_commit(lambda: _enqueue_members(study.pk, [run.pk for run in runs]))
    return study


def base_build(scenario: Scenario) -> BaseBuild:
    run = latest_run(scenario=scenario)
    current = (
        run is not None
        and run.package_prefix
        and scenario.latest_run_is_valid
        and run.state_digest == scenario_state_digest(scenario=scenario)
    )
    if not current or run is None:
        raise Conflict(
            f"The base scenario '{scenario.name}' is not built as it is now. Build it with build_scenario, then "
            "start the study: every member runs on that build's mesh.",
            code=ErrorCode.SCENARIO_NOT_BUILT,
            computed_status=run.status if run else RunStatus.CREATED,
        )
    return build_of(run)


def build_of(run: Run) -> BaseBuild:
    """A build's package as members read it: the run and its scenario.json."""
    with get_storage().open(key=f"{run.package_prefix}/scenario.json") as stream:
        return BaseBuild(run=run, manifest=json.load(stream))


def _member_prices(scenario: Scenario, members: list[DesignMember]) -> dict[int, Decimal]:
    """Each member priced as the study's estimate priced it (the base scenario's mesh estimate for its simulated
    time), so that what the engineer saw and signed off is what is charged."""
    prices = study_member_prices(scenario=scenario, simulated_s=[member.simulated_s for member in members])
    return {member.pk: price for member, price in zip(members, prices, strict=True)}


def _member_run(build: Run, member: DesignMember, *, price: Decimal, user: User, grant: AgentGrant | None) -> Run:
    """The member's run of the base build; its own package (written once it has an id) replaces the build's."""
    return run_from_build(
        build=build,
        study_member=True,
        status=RunStatus.QUEUED,
        phase=RunPhase.PREPARING_INPUTS,
        duration=member.simulated_s,
        compute_backend=ComputeBackend.LOCAL,
        queued_at=timezone.now(),
        compute_cost=price,
        created_by=user,
        launched_by=user,
        launched_by_grant_id=grant.pk if grant else None,
    )


def _write_member_package(
    study: DesignStudy, build: BaseBuild, member: DesignMember, storm_of: DesignStorm, run: Run
) -> str:
    """The member's own files: scenario.json naming its rain and storm, and the build's for the rest."""
    prefix = f"studies/{study.pk}/members/{member.pk}/package"
    storm = f"design storm {member.aep} {member.duration_min} min pattern {member.pattern}"
    soils = _soil_layer(study, build, member)
    manifest = {
        **build.manifest,
        "run_id": run.pk,
        "duration": member.simulated_s,
        "rainfall": RAIN_FILE,
        "time_series": {**build.manifest.get("time_series", {}), storm: STORM_FILE},
        "shared_prefix": build.run.package_prefix,
        "own_files": [RAIN_FILE, STORM_FILE],
        "design_storm": _storm_named(study, member),
    }
    storage = get_storage()
    if soils is not None:  # the soils take the storm's losses in the child: the member applies the rain itself
        manifest |= {"soil": SOIL_FILE, "own_files": [*manifest["own_files"], SOIL_FILE]}
    depths = storm_of.rain_mm if soils is not None else storm_of.excess_mm
    own = {
        STORM_FILE: json.dumps(_storm_series(storm, storm_of, depths)).encode(),
        RAIN_FILE: json.dumps(_rain_layer(study, build, storm)).encode(),
        "scenario.json": json.dumps(manifest, indent=2).encode(),
    }
    if soils is not None:
        own[SOIL_FILE] = json.dumps(soils).encode()
    for name, data in own.items():
        storage.save(key=f"{prefix}/{name}", data=data)
    # what the member runs: the build's files it shares, hashed when built, and its own, hashed as written
    run.package_sha256 = {**build.run.package_sha256, **{name: sha256(data).hexdigest() for name, data in own.items()}}
    return prefix


def _storm_named(study: DesignStudy, member: DesignMember) -> dict[str, Any]:
    """What the member's report says of its storm, from its own package: which storm, its depths, losses and
    factors."""
    return {
        "study": study.pk,
        "study_name": study.name,
        "aep": member.aep,
        "duration_min": member.duration_min,
        "pattern": member.pattern,
        "time_step_min": member.time_step_min,
        "rain_depth_mm": member.rain_depth_mm,
        "excess_depth_mm": member.excess_depth_mm,
        "peak_excess_mm_per_h": member.peak_excess_mm_per_h,
        "initial_loss_mm": study.initial_loss_mm,
        "burst_initial_loss_mm": member.burst_initial_loss_mm,
        "continuing_loss_mm_h": study.continuing_loss_mm_h,
        "areal_reduction_factor": study.areal_reduction_factor,
        "climate_factor": study.climate_factor,
    }


def _storm_series(name: str, storm: DesignStorm, depths: tuple[float, ...]) -> dict[str, Any]:
    """The member's rain as depths per time step (after the study's losses, or before them when the soils take
    them), each row closing its step, from model time 0."""
    step_s = storm.time_step_min * 60
    rows = [{"timestamp": 0, "value": 0.0}]
    rows += [{"timestamp": (k + 1) * step_s, "value": depth} for k, depth in enumerate(depths)]
    return {"name": name, "series_type": SeriesType.HYETOGRAPH, "units": MM_PER_INTERVAL, "rows": rows}


def _soil_layer(study: DesignStudy, build: BaseBuild, member: DesignMember) -> dict[str, Any] | None:
    """None when the base scenario has no soils (the member's rain is then the storm after the study's losses).
    Otherwise the base's soils, each with its own losses, then one polygon over the whole model with the study's
    (the burst's initial loss and the continuing loss), which the child applies where no soil of the base lies:
    the first polygon holding a triangle sets its losses (compute/simulation/losses.py)."""
    if not build.manifest.get("soil"):
        return None
    with get_storage().open(key=f"{build.run.package_prefix}/{build.manifest['soil']}") as stream:
        layer = json.load(stream)
    west, south, east, north = scenario_geometry(scenario=study.base_scenario).ring.polygon().bounds
    ring = [[west - 1, south - 1], [east + 1, south - 1], [east + 1, north + 1], [west - 1, north + 1]]
    losses = {
        "name": "the study's losses",
        "initial_loss_mm": member.burst_initial_loss_mm,
        "continuing_loss_mm_h": study.continuing_loss_mm_h,
    }
    everywhere = {
        "type": "Feature",
        "properties": losses,
        "geometry": {"type": "Polygon", "coordinates": [[*ring, ring[0]]]},
    }
    crs = {"type": "name", "properties": {"name": build.manifest["epsg"]}}
    return {"type": "FeatureCollection", "crs": crs, "features": [*(layer.get("features") or []), everywhere]}


def _rain_layer(study: DesignStudy, build: BaseBuild, storm: str) -> dict[str, Any]:
    """The base scenario's rainfall polygons with the storm for their rain, or one polygon over the whole model."""
    crs = build.manifest["epsg"]
    if study.rain_binding == RainBinding.RAINFALL_LAYER and build.manifest.get("rainfall"):
        with get_storage().open(key=f"{build.run.package_prefix}/{build.manifest['rainfall']}") as stream:
            layer = json.load(stream)
        features = [
            {**feature, "properties": {**(feature.get("properties") or {}), "data": storm}}
            for feature in layer.get("features") or []
        ]
    else:
        west, south, east, north = scenario_geometry(scenario=study.base_scenario).ring.polygon().bounds
        ring = [[west, south], [east, south], [east, north], [west, north], [west, south]]
        features = [
            {
                "type": "Feature",
                "properties": {"name": "design storm", "data": storm},
                "geometry": {"type": "Polygon", "coordinates": [ring]},
            }
        ]
    return {"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": crs}}, "features": features}


def _enqueue_members(study_id: int, run_ids: list[int]) -> None:
    for run_id in run_ids:
        _enqueue_member(study_id, run_id)


def _enqueue_member(study_id: int, run_id: int) -> None:
    """The run's own simulation task; its link tells the study when it has ended (a lost worker sends nothing:
    the sweep, design_studies_advance, sees those)."""
    from hydrata.studies.tasks import design_study_advance_task

    run_queue_member(run_id=run_id, when_ended=design_study_advance_task.si(study_id))


def design_study_cancel(*, study: DesignStudy) -> DesignStudy:
    """Cancel every member that has not ended (each costs only what it computed, as a cancelled run does), and the
    study with them."""
    with transaction.atomic():
        study = DesignStudy.objects.select_for_update().get(pk=study.pk)
        if study.status in STUDY_FINISHED_STATES:
            raise Conflict(
                f"Design study {study.pk} has already ended ({study.status}); there is nothing to cancel.",
                code=ErrorCode.STUDY_FINISHED,
                status=study.status,
            )
        for member in study.members.select_related("run").exclude(run=None):
            if member.run is not None and member.run.status not in TERMINAL_RUN_STATES:
                run_cancel(run=member.run)
        study.status, study.finished_at = StudyStatus.CANCELLED, timezone.now()
        study.status_message = "Cancelled; members that were computing are stopped by their workers."
        study.save()
    return study


def design_study_delete(*, study: DesignStudy) -> None:
    """Delete a study that is not computing: a draft, or one that has ended. One whose members are computing (running,
    or its envelopes being made) is refused 409 STUDY_RUNNING: cancel it first. Its members' runs stay, as runs of the
    base scenario with what they cost; its envelope rasters are deleted with it."""
    with transaction.atomic():
        study = DesignStudy.objects.select_for_update().get(pk=study.pk)
        if study.status in (StudyStatus.RUNNING, StudyStatus.POST_PROCESSING):
            raise Conflict(
                f"Design study {study.pk} is {study.status}; cancel it (cancel_design_study) and delete it then.",
                code=ErrorCode.STUDY_RUNNING,
                status=study.status,
            )
        stored = study_results(study=study)
        results = [layer.key for aep in (stored.aeps if stored else []) for layer in aep.layers]
        study.delete()
        transaction.on_commit(lambda: _delete_files(results))


def _delete_files(keys: list[str]) -> None:
    storage = get_storage()
    for key in keys:
        storage.delete(key=key)


def design_study_advance(*, study_id: int) -> DesignStudy:
    """Run once more each member whose worker was lost on its first run; once every member has settled, queue the
    envelopes (or end the study in error when no member completed)."""
    retried: list[int] = []
    with transaction.atomic():
        study = DesignStudy.objects.select_for_update().get(pk=study_id)
        if study.status != StudyStatus.RUNNING:
            return study
        members = list(study.members.select_related("run").order_by("id"))
        for member in members:
            if member.run is not None and member.run.retry_of_id is None and run_lost_its_worker(run=member.run):
                member.run = member_retry(member.run)
                member.save(update_fields=["run"])
                retried.append(member.run.pk)
        statuses = [member.run.status if member.run else RunStatus.ERROR for member in members]
        if all(status in TERMINAL_RUN_STATES for status in statuses):
            _settle(study, statuses)
        transaction.on_commit(lambda: _enqueue_members(study_id, retried))
    return study


def member_retry(lost: Run) -> Run:
    """A second run of a member whose worker was lost: the same package, no second charge (the loss was ours)."""
    retry = run_from_build(
        build=lost,
        study_member=True,
        retry_of=lost,
        status=RunStatus.QUEUED,
        phase=RunPhase.PREPARING_INPUTS,
        compute_backend=lost.compute_backend,
        queued_at=timezone.now(),
        created_by_id=lost.created_by_id,
        launched_by_id=lost.launched_by_id,
        launched_by_grant_id=lost.launched_by_grant_id,
    )
    retry.save()
    return retry


def _settle(study: DesignStudy, statuses: list[str]) -> None:
    if RunStatus.COMPLETE not in statuses:
        study.status, study.finished_at = StudyStatus.ERROR, timezone.now()
        study.status_message = "No member completed, so there is no envelope; each member's run says why."
        study.save()
        return
    study.status = StudyStatus.POST_PROCESSING
    study.save()
    transaction.on_commit(lambda: _enqueue_envelopes(study.pk))


def _send_again() -> None:
    queued = DesignMember.objects.filter(study__status=StudyStatus.RUNNING, run__status=RunStatus.QUEUED)
    for study_id, run_id in queued.values_list("study_id", "run_id"):
        _enqueue_member(study_id, run_id)
    for study_id in DesignStudy.objects.filter(status=StudyStatus.POST_PROCESSING).values_list("pk", flat=True):
        _enqueue_envelopes(study_id)


def _enqueue_envelopes(study_id: int) -> None:
    from hydrata.studies.tasks import design_study_envelopes_task

    design_study_envelopes_task.delay(study_id)


def design_studies_advance() -> int:
    """The sweep: advance every running study (one whose last member's worker was lost has no link to do it).
    When the broker has lost its messages (hydrata/core/broker.py), first send again what they asked for: each
    queued member's simulation and each post-processing study's envelopes."""
    if broker_lost_its_messages(sweep="studies"):
        _send_again()
    running = list(DesignStudy.objects.filter(status=StudyStatus.RUNNING).values_list("pk", flat=True))
    for study_id in running:
        design_study_advance(study_id=study_id)
    return len(running)
