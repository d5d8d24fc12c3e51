"""Launching, cancelling and retrying simulations. The compute itself is in services/simulation.py."""

from datetime import timedelta
from decimal import Decimal
from typing import Any

from celery.canvas import Signature
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from hydrata.agents.models import AgentGrant
from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.selectors.approvals import (
    build_state,
    scenario_state_parts,
    state_digest_of,
)
from hydrata.anuga.selectors.runs import run_vcpu_hours
from hydrata.anuga.selectors.scenarios import latest_run
from hydrata.anuga.services.approvals import run_approval_check
from hydrata.anuga.services.build import scenario_build_request
from hydrata.anuga.services.charges import refund_sentence, run_charge, run_cost_of_computed
from hydrata.anuga.services.simulation_cluster import cancel_cluster_job
from hydrata.backends.aws_batch import configured as aws_batch_configured
from hydrata.compute.costs.pricing import compute_cost_estimate
from hydrata.core.broker import broker_lost_its_messages
from hydrata.core.errors import Conflict, ValidationFailed
from hydrata_contract.compute import ComputeBackend
from hydrata_contract.errors import ErrorCode
from hydrata_contract.states import (
    BUILD_IN_FLIGHT,
    TERMINAL_RUN_STATES,
    WORKER_REPORTING,
    RunPhase,
    RunStatus,
    changes_in_words,
)

NOT_STARTED = (RunStatus.CREATED, RunStatus.BUILDING, RunStatus.BUILT, RunStatus.QUEUED)
SIMULATING = (RunStatus.QUEUED, RunStatus.COMPUTING, RunStatus.PROCESSING)


def _check_backend(compute_backend: str) -> None:
    if compute_backend not in ComputeBackend.values():
        raise Conflict(
            f"compute_backend must be one of {', '.join(ComputeBackend.values())}.",
            code=ErrorCode.UNKNOWN_COMPUTE_BACKEND,
        )
    available = compute_backends_available()
    if compute_backend not in available:
        raise Conflict(
            f"The {compute_backend!r} compute target is not configured on this platform; use one of: "
            f"{', '.join(available)}.",
            code=ErrorCode.COMPUTE_TARGET_UNAVAILABLE,
            available=available,
        )


def compute_backends_available() -> list[str]:
    """The targets listed in HYDRATA_COMPUTE_BACKENDS that can run: ec2 never does; batch needs its queue and job
    definition."""
    listed = [backend for backend in settings.HYDRATA_COMPUTE_BACKENDS if backend != ComputeBackend.EC2]
    return [backend for backend in listed if backend != ComputeBackend.BATCH or aws_batch_configured()]


def _check_ranks(ranks: int) -> None:
    if not 1 <= ranks <= settings.HYDRATA_MAX_RANKS:
        raise ValidationFailed(
            f"ranks must be between 1 and {settings.HYDRATA_MAX_RANKS} on this platform; {ranks} was asked for.",
            code=ErrorCode.INVALID_RANKS,
            field="ranks",
            maximum=settings.HYDRATA_MAX_RANKS,
        )


def run_price(*, run: Run) -> Decimal:
    return compute_cost_estimate(
        vcpu_hours=run_vcpu_hours(run=run), usd_per_vcpu_hour=settings.HYDRATA_COMPUTE_USD_PER_VCPU_HOUR
    )


def run_start(
    *,
    scenario: Scenario,
    user: User,
    grant: AgentGrant | None,
    compute_backend: str = ComputeBackend.LOCAL,
    ranks: int = 1,
) -> Run:
    """Queue a simulation of the scenario as it is now on `ranks` MPI processes, charging its price to the agent's
    monthly spend."""
    _check_backend(compute_backend)
    _check_ranks(ranks)
    with transaction.atomic():
        scenario = Scenario.objects.select_for_update().get(pk=scenario.pk)
        build = _current_build(scenario)
        run_approval_check(scenario=scenario, grant=grant)
        run = build if build.status == RunStatus.BUILT else _run_of_package(build, user=user)
        run.ranks = ranks
        price = run_price(run=run)
        run_charge(run=run, grant=grant, price=price)
        _queue(run, compute_backend=compute_backend, price=price, user=user, grant=grant)
    return run


def _current_build(scenario: Scenario) -> Run:
    """The newest run whose package holds the scenario as it is now (its state digest): what an approval of the
    current state signs off is what runs. A run that has computed leaves its package, so the same scenario runs
    again without a build; only a change since the build needs one."""
    latest = latest_run(scenario=scenario)
    if latest is not None and latest.status in SIMULATING:
        raise Conflict(
            f"Run {latest.pk} of this scenario is already {latest.status}. Follow it with get_run_status, or stop "
            "it with cancel_run before starting another.",
            code=ErrorCode.RUN_IN_PROGRESS,
            run_id=latest.pk,
            status=latest.status,
        )
    if latest is not None and latest.status in BUILD_IN_FLIGHT:
        raise _not_built(
            scenario, latest, f"Run {latest.pk} is still building it: wait for the build with build_scenario"
        )
    state = build_state(scenario=scenario)
    if state.current is None:
        if latest is None:
            raise _not_built(scenario, latest, "It has never been built: build it with build_scenario")
        since = f" ({changes_in_words(state.changes)} changed)" if state.changes else ""
        raise _not_built(
            scenario,
            latest,
            f"It changed since its last build{since}, so it must be built again: call build_scenario with "
            "rebuild: true",
        )
    return state.current


def _not_built(scenario: Scenario, latest: Run | None, what_to_do: str) -> Conflict:
    return Conflict(
        f"Scenario {scenario.pk} has no build of its current state. {what_to_do} (project_id "
        f"{scenario.project_id}, scenario_id {scenario.pk}), then start the simulation.",
        code=ErrorCode.SCENARIO_NOT_BUILT,
        computed_status=latest.status if latest else RunStatus.CREATED,
    )


BUILD_FIELDS = (
    "scenario_id",
    "resolution",
    "duration",
    "mesh_triangle_count_estimate",
    "mesh_triangle_count",
    "package_prefix",
    "package_sha256",
    "state_digest",
    "state_parts",
    "build_started_at",
    "build_finished_at",
)


def run_from_build(*, build: Run, **overrides: Any) -> Run:
    """A new, unsaved run of what `build` built (its scenario, mesh and package), with `overrides` for what differs:
    a second run of the same package, a design study's member or a member's retry. The caller saves it."""
    return Run(**({name: getattr(build, name) for name in BUILD_FIELDS} | overrides))


def _run_of_package(build: Run, *, user: User) -> Run:
    """A new run of a package an earlier run computed (each run keeps its own results and charge)."""
    Scenario.objects.filter(pk=build.scenario_id).update(latest_run_is_valid=True)
    run = run_from_build(build=build, status=RunStatus.BUILT, created_by=user)
    run.save()
    return run


def _queue(
    run: Run, *, compute_backend: str, price: Decimal | None, user: User | None, grant: AgentGrant | None
) -> None:
    run.status, run.phase, run.compute_backend = RunStatus.QUEUED, RunPhase.PREPARING_INPUTS, compute_backend
    run.queued_at, run.progress_pct = timezone.now(), 0
    if price is not None:
        run.compute_cost = price
    if user is not None:
        run.launched_by, run.launched_by_grant_id = user, grant.pk if grant else None
    run.save()
    transaction.on_commit(lambda: _enqueue_simulation(run.pk))


def run_queue_after_build(*, run: Run) -> None:
    """A retry's build has finished (the build task calls this): its simulation was paid for at the retry."""
    with transaction.atomic():
        _queue(run, compute_backend=run.compute_backend or ComputeBackend.LOCAL, price=None, user=None, grant=None)


def _enqueue_simulation(run_id: int) -> None:
    from hydrata.anuga.tasks import run_simulation_task

    run_simulation_task.delay(run_id)


def run_queue_member(*, run_id: int, when_ended: Signature) -> None:
    """Queue a study's member run (a design or calibration study's) on its own simulation task, `when_ended` (the
    study's task that hears of it) linked to run when the run has ended. A lost worker sends nothing: the study's
    sweep sees those."""
    from hydrata.anuga.tasks import run_simulation_task

    run_simulation_task.apply_async((run_id,), link=when_ended)


def run_cancel(*, run: Run) -> Run:
    """A run that has not started computing ends at once, its charge given back; a computing one is stopped by
    its worker, which charges only what it computed."""
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run.pk)
        if run.status in TERMINAL_RUN_STATES:
            raise Conflict(
                f"Run {run.pk} has already ended ({run.status}); there is nothing to cancel.",
                code=ErrorCode.RUN_FINISHED,
                status=run.status,
            )
        if run.status in NOT_STARTED:
            run.compute_cost, refund = run_cost_of_computed(run=run, computed_share=0.0)
            run.status, run.finished_at = RunStatus.CANCELLED, timezone.now()
            run.user_message = "Cancelled before it started computing." + refund_sentence(refund)
        run.cancel_requested = True
        run.save()
    return run


def run_retry(*, run: Run, user: User, grant: AgentGrant | None) -> Run:
    """An errored run is built again from its scenario as a new run, which then computes."""
    if run.status != RunStatus.ERROR:
        raise Conflict(
            f"Only a run that ended in error can be retried; run {run.pk} is {run.status}.",
            code=ErrorCode.RUN_NOT_RETRYABLE,
            status=run.status,
        )
    backend = run.compute_backend or ComputeBackend.LOCAL
    _check_backend(backend)
    run_approval_check(scenario=run.scenario, grant=grant)
    with transaction.atomic():
        retry = scenario_build_request(scenario=run.scenario, user=user)
        retry.start_after_build, retry.retry_of, retry.compute_backend = True, run, backend
        retry.ranks = min(run.ranks, settings.HYDRATA_MAX_RANKS)
        parts = scenario_state_parts(scenario=run.scenario)  # the state the approval check saw
        retry.state_digest, retry.state_parts = state_digest_of(parts=parts), parts
        retry.launched_by, retry.launched_by_grant_id = user, grant.pk if grant else None
        retry.compute_cost = run_price(run=retry)
        retry.save()
        run_charge(run=retry, grant=grant, price=retry.compute_cost)
    return retry


WORKER_STOPPED_REPORTING = (
    "The worker running this simulation stopped reporting (it was killed or its machine was lost) before the run "
    "finished."
)
WORKER_RESTARTED = " restarted while this simulation was running."


def run_lost_its_worker(*, run: Run) -> bool:
    """Ended in error by the reaper or by its worker's restart, not by its own simulation."""
    message = run.error_message
    return run.status == RunStatus.ERROR and (message == WORKER_STOPPED_REPORTING or message.endswith(WORKER_RESTARTED))


BUILD_LOST = {
    "error_message": "The worker building this scenario was lost (killed, restarted or its machine gone) before "
    "the build finished.",
    "user_message": "Building the scenario was interrupted on our side. Build it again with build_scenario.",
}


def runs_reap_stale(*, now=None) -> int:
    """End in error every run whose worker was lost: a computing run that stopped reporting, and a build still
    going after its task's hard time limit (by then Celery has killed it, or its machine is gone)."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS)
    stale = Run.objects.filter(status__in=WORKER_REPORTING, heartbeat_at__lt=cutoff)
    _cancel_cluster_jobs(stale)
    computing = stale.update(
        status=RunStatus.ERROR,
        finished_at=now,
        updated_at=now,
        error_message=WORKER_STOPPED_REPORTING,
        user_message="The simulation was interrupted on our side. Retry it with retry_run.",
    )
    build_limit = settings.HYDRATA_TASK_TIME_LIMITS["run_build"] + settings.HYDRATA_TASK_HARD_LIMIT_GRACE_SECONDS
    building = Run.objects.filter(
        status=RunStatus.BUILDING, build_started_at__lt=now - timedelta(seconds=build_limit)
    ).update(status=RunStatus.ERROR, phase="", finished_at=now, updated_at=now, **BUILD_LOST)
    return computing + building


def runs_fail_for_worker(*, hostname: str) -> int:
    """A worker (re)started: nothing it was building or computing before can still be going."""
    now = timezone.now()
    mine = Run.objects.filter(worker_hostname=hostname)
    _cancel_cluster_jobs(mine.filter(status__in=WORKER_REPORTING))
    computing = mine.filter(status__in=WORKER_REPORTING).update(
        status=RunStatus.ERROR,
        finished_at=now,
        updated_at=now,
        error_message=f"The worker {hostname}{WORKER_RESTARTED}",
        user_message="The simulation was interrupted by a restart on our side. Retry it with retry_run.",
    )
    building = mine.filter(status=RunStatus.BUILDING).update(
        status=RunStatus.ERROR, phase="", finished_at=now, updated_at=now, **BUILD_LOST
    )
    return computing + building


def runs_send_again_after_broker_loss() -> int:
    """When the broker has lost its messages (hydrata/core/broker.py), the simulation of every queued run is sent
    again: it was paid for and is waiting in the database, and its message is gone. A design study's members are
    sent again by their study's sweep, with the link that tells the study they ended."""
    if not broker_lost_its_messages(sweep="runs"):
        return 0
    queued = list(Run.objects.filter(status=RunStatus.QUEUED, study_member=False).values_list("pk", flat=True))
    for run_id in queued:
        _enqueue_simulation(run_id)
    return len(queued)


def _cancel_cluster_jobs(runs: QuerySet[Run]) -> None:
    """A run ended because its worker was lost: its cluster job, which outlives the worker, is cancelled too."""
    for backend, job_id in runs.exclude(external_job_id="").values_list("compute_backend", "external_job_id"):
        cancel_cluster_job(compute_backend=backend, job_id=job_id)
