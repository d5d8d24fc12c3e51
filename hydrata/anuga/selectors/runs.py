from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from hydrata.anuga.models import Project, Run
from hydrata.anuga.selectors.projects import projects_visible_to
from hydrata.anuga.selectors.scenarios import scenario_finest_resolution
from hydrata.compute.costs.pricing import vcpu_hours_estimate
from hydrata.core.errors import NotFound
from hydrata_contract.answers.runs import RunStatistics
from hydrata_contract.compute import RunOutputs
from hydrata_contract.errors import ErrorCode
from hydrata_contract.states import WORKER_REPORTING, RunPhase, RunStatus

PHASE_BY_STATUS = {
    RunStatus.CREATED: RunPhase.MESHING,
    RunStatus.BUILDING: RunPhase.MESHING,
    RunStatus.BUILT: RunPhase.PREPARING_INPUTS,
    RunStatus.QUEUED: RunPhase.PREPARING_INPUTS,
    RunStatus.COMPUTING: RunPhase.COMPUTING,
    RunStatus.PROCESSING: RunPhase.POST_PROCESSING,
}


def run_get(*, user: User, run_id: int) -> Run:
    """A run of a project the caller may see (one query); anything else is 404."""
    run = (
        Run.objects.filter(pk=run_id, scenario__project__in=projects_visible_to(user=user))
        .select_related("scenario__project")
        .first()
    )
    if run is None:
        raise NotFound(f"Run {run_id} does not exist or is not visible to this caller.", code=ErrorCode.RUN_NOT_FOUND)
    return run


def runs_of(*, project: Project, status: str | None = None) -> QuerySet[Run]:
    runs = Run.objects.filter(scenario__project=project).select_related("scenario__project")
    return runs.filter(status=status) if status else runs


def phase_of(run: Run) -> str:
    """Never empty: done once complete; before that the child's own phase while it reports one, else what the
    status implies."""
    if run.status == RunStatus.COMPLETE:
        return RunPhase.DONE
    return run.phase or PHASE_BY_STATUS.get(RunStatus(run.status), RunPhase.PREPARING_INPUTS)


def worker_silent_seconds(*, run: Run, now: datetime | None = None) -> int | None:
    """How long ago the worker of a computing run stopped reporting, once that is past the heartbeat timeout; None
    while it reports or once the run has ended. Only a read: ending the run is the sweep's (runs_reap_stale)."""
    if run.status not in WORKER_REPORTING or run.heartbeat_at is None:
        return None
    silent = ((now or timezone.now()) - run.heartbeat_at).total_seconds()
    return int(silent) if silent > settings.HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS else None


def run_statistics(*, run: Run) -> RunStatistics | None:
    """The run's `statistics` column read through its contract model (the one reader of it); None before the run
    completes. Keys of a run's own time pass through as written."""
    return None if run.statistics is None else RunStatistics.model_validate(run.statistics)


def run_outputs(*, run: Run) -> RunOutputs:
    """What the run keeps once complete: a design study's member only what the study's envelopes read."""
    return RunOutputs.ENVELOPE if run.study_member else RunOutputs.FULL


def run_vcpu_hours(*, run: Run) -> float:
    """The run's estimated CPU time: its mesh (built, else estimated) stepping at the finest resolution's step, on
    its ranks."""
    triangles = run.mesh_triangle_count or run.mesh_triangle_count_estimate or 0
    finest = scenario_finest_resolution(scenario=run.scenario, resolution=run.resolution)
    return vcpu_hours_estimate(triangles=triangles, duration=run.duration, finest_resolution=finest, ranks=run.ranks)
