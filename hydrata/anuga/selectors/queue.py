"""Where a build, a run and a terrain import stand on their Celery queue (hydrata/core/queues.py sums the rows).

A build waits while its run is `created` and runs while `building`; a simulation waits while `queued` and runs while
`computing` or `processing`, on the study queue when the run is a design study's member (config/celery.py routes
it by the same flag); a terrain import waits until its worker stamps `import_started_at`."""

from typing import Any

from hydrata.anuga.models import Run, Terrain
from hydrata.core.queues import QueuedWork, queue_place
from hydrata_contract.answers.queues import QueuePlace
from hydrata_contract.states import RunStatus, TerrainStatus, WorkQueue

SIMULATING = (RunStatus.COMPUTING, RunStatus.PROCESSING)


def _simulations(*, members: bool) -> QueuedWork:
    return QueuedWork(
        queue=WorkQueue.STUDIES if members else WorkQueue.INTERACTIVE,
        waiting=lambda: Run.objects.filter(status=RunStatus.QUEUED, study_member=members),
        running=lambda: Run.objects.filter(status__in=SIMULATING, study_member=members),
        queued_at="queued_at",
    )


QUEUED_WORK = (
    QueuedWork(
        queue=WorkQueue.INTERACTIVE,
        waiting=lambda: Run.objects.filter(status=RunStatus.CREATED),
        running=lambda: Run.objects.filter(status=RunStatus.BUILDING),
        queued_at="created_at",
    ),
    _simulations(members=False),
    _simulations(members=True),
    QueuedWork(
        queue=WorkQueue.INTERACTIVE,
        waiting=lambda: Terrain.objects.filter(status=TerrainStatus.CREATING, import_started_at=None),
        running=lambda: Terrain.objects.filter(status__in=(TerrainStatus.CREATING, TerrainStatus.STYLING)).exclude(
            import_started_at=None
        ),
        queued_at="created_at",
    ),
)


def run_queue_place(*, run: Run) -> QueuePlace | None:
    """The run's build or simulation on its queue; None when it is neither waiting nor being worked on."""
    queue = WorkQueue.STUDIES if run.study_member else WorkQueue.INTERACTIVE
    if run.status in (RunStatus.CREATED, RunStatus.BUILDING):
        place = queue_place(queue=queue, started=run.status == RunStatus.BUILDING, queued_at=run.created_at)
    elif run.status in (RunStatus.QUEUED, *SIMULATING):
        place = queue_place(queue=queue, started=run.status != RunStatus.QUEUED, queued_at=run.queued_at)
    else:
        return None
    return QueuePlace.model_validate(place)


def terrain_queue_place(*, terrain: Terrain) -> dict[str, Any] | None:
    if terrain.status not in (TerrainStatus.CREATING, TerrainStatus.STYLING):
        return None
    started = terrain.status == TerrainStatus.STYLING or terrain.import_started_at is not None
    return queue_place(queue=WorkQueue.INTERACTIVE, started=started, queued_at=terrain.created_at)
