"""The Celery app. Embedded default: kombu's filesystem broker under var/ (no server); production: Redis.

Two queues (docs/queues.md). `interactive` carries what a person waits on: imports, builds, single runs, and the
short periodic sweeps; `studies` carries a design study's members and its envelopes, so that a study of hundreds
of members never holds up a build. The routing is here and nowhere else: a task's queue is its name's in
TASK_QUEUES, and a simulation's is the studies queue when its run is a study's member. `make run` starts a worker
for each queue, so interactive work always finds a free slot; any other worker takes both.
"""

import os
import sys
from typing import Any

from celery import Celery
from celery.signals import celeryd_after_setup, worker_init, worker_process_shutdown
from kombu import Queue

from hydrata_contract.states import WorkQueue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("hydrata")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

SIMULATION_TASK = "anuga.run_simulation"
TASK_QUEUES: dict[str, WorkQueue] = {
    "anuga.terrain_import": WorkQueue.INTERACTIVE,
    "anuga.run_build": WorkQueue.INTERACTIVE,
    SIMULATION_TASK: WorkQueue.INTERACTIVE,  # a study member's: WorkQueue.STUDIES (route_task)
    "hydrata.uploads.tasks.dataset_import_task": WorkQueue.INTERACTIVE,
    # Sweeps every half minute or hour, each short: behind a study's members they would expire unrun.
    "anuga.runs_reap_stale": WorkQueue.INTERACTIVE,
    "anuga.storage_cleanup": WorkQueue.INTERACTIVE,
    "studies.design_studies_advance": WorkQueue.INTERACTIVE,
    "calibration.calibration_studies_advance": WorkQueue.INTERACTIVE,
    # A report's PDF: a reader waits on it (HYDRATA_REPORT_WAIT_SECONDS), never behind a study's members.
    "reports.render_pdf": WorkQueue.INTERACTIVE,
    # A study's own work: the advance each member's end sends, and the envelopes over all members.
    "studies.design_study_advance": WorkQueue.STUDIES,
    "studies.design_study_envelopes": WorkQueue.STUDIES,
    # A calibration's advance: reads the ended member and proposes the next.
    "calibration.calibration_study_advance": WorkQueue.STUDIES,
}


def run_is_study_member(run_id: Any) -> bool:
    from hydrata.anuga.models import Run

    return Run.objects.filter(pk=run_id, study_member=True).exists()


def route_task(name: str, args: Any, kwargs: Any, options: dict[str, Any], task: Any = None, **_: Any) -> dict:
    """The queue of one message (Celery's task_routes calls it as each is sent). An unknown task goes to the
    interactive queue; tests/config/test_celery.py holds every task of the platform to a line above."""
    queue = TASK_QUEUES.get(name, WorkQueue.INTERACTIVE)
    if name == SIMULATION_TASK:
        run_id = args[0] if args else (kwargs or {}).get("run_id")
        if run_is_study_member(run_id):
            queue = WorkQueue.STUDIES
    return {"queue": str(queue)}


app.conf.task_routes = (route_task,)
# A worker started without -Q takes every queue (`make worker`, the Procfile's, the tests' own workers).
app.conf.task_queues = [Queue(str(queue)) for queue in WorkQueue]
app.conf.task_default_queue = str(WorkQueue.INTERACTIVE)


@celeryd_after_setup.connect
def pool_size_record(sender: str, instance: Any, **kwargs: Any) -> None:
    """The worker's pool size, once Celery has settled it (-c, else the machine's cores), before the pool starts:
    a simulation's OpenMP threads are the cores shared out between the pool's slots (simulation_threads)."""
    app.conf.hydrata_pool_size = instance.concurrency


@worker_init.connect
def no_mpi_in_the_worker(**_: Any) -> None:
    """The worker builds meshes with ANUGA, which imports mpi4py, and mpi4py's import initialises MPI: the worker
    then kept an MPI listener on the machine's address for the rest of its life. With mpi4py's MPI module barred,
    ANUGA takes its serial interface; only the simulation child, a process of its own, runs under MPI."""
    keep_mpi_out()


@worker_process_shutdown.connect
def end_the_fork_server(**_: Any) -> None:
    """A pool process that shuts down ends the simulation fork server it started
    (hydrata/compute/processes/fork_server.py)."""
    from hydrata.backends.fork_server import close_fork_server

    close_fork_server()


def keep_mpi_out() -> None:
    if "mpi4py.MPI" not in sys.modules:
        sys.modules["mpi4py.MPI"] = None  # type: ignore[assignment]  # `from mpi4py import MPI` is an ImportError
