"""Background work for the ANUGA app. A task hands over to its service; the one thing decided here is what
follows a build that was asked to start its run (a retry): the simulation is queued, so that the build service
need not know about launching runs (runs sit above builds: services/runs.py calls services/build.py, never the
reverse).

The import cycle between this module and the services is of Celery's kind, and deliberate: this module imports
the services at load, as each task wraps one, while a service that queues work imports its task inside the
function that calls `.delay` (on commit), when both modules are loaded. No service reaches another through
here, so tests/test_import_direction.py looks for cycles among the services themselves, not through tasks.
"""

from celery import shared_task
from celery.signals import worker_ready

from hydrata.anuga.services.build import run_build
from hydrata.anuga.services.runs import (
    run_queue_after_build,
    runs_fail_for_worker,
    runs_reap_stale,
    runs_send_again_after_broker_loss,
)
from hydrata.anuga.services.simulation import run_simulate
from hydrata.anuga.services.terrain import terrain_import
from hydrata.core.database import DATABASE_UNREACHABLE, database_pools_close
from hydrata.core.task_limits import time_limits
from hydrata_contract.states import RunStatus


@shared_task(name="anuga.terrain_import", **time_limits("terrain_import"))
def terrain_import_task(terrain_id: int) -> None:
    terrain_import(terrain_id=terrain_id)


@shared_task(name="anuga.run_build", bind=True, **time_limits("run_build"))
def run_build_task(self, run_id: int) -> None:
    run = run_build(run_id=run_id, worker=self.request.hostname or "")
    if run.status == RunStatus.BUILT and run.start_after_build:
        run_queue_after_build(run=run)


# Not acks_late: a simulation whose worker died is ended by the reaper, never silently started again. A database
# out of reach for longer than the claim waits (run_simulate) sends the task again later: the run is still queued.
@shared_task(
    name="anuga.run_simulation",
    bind=True,
    acks_late=False,
    autoretry_for=DATABASE_UNREACHABLE,
    retry_backoff=5,
    retry_backoff_max=120,
    max_retries=30,
    **time_limits("run_simulation"),
)
def run_simulation_task(self, run_id: int) -> None:
    run_simulate(run_id=run_id, worker=self.request.hostname or "")


@shared_task(name="anuga.storage_cleanup", **time_limits("storage_cleanup"))
def storage_cleanup_task() -> None:
    from hydrata.anuga.services.cleanup import storage_cleanup

    storage_cleanup()


# Sent by celery beat every HYDRATA_RUN_REAP_INTERVAL_SECONDS (config/settings.py CELERY_BEAT_SCHEDULE).
@shared_task(name="anuga.runs_reap_stale", **time_limits("runs_reap_stale"))
def runs_reap_stale_task() -> int:
    runs_send_again_after_broker_loss()
    return runs_reap_stale()


@worker_ready.connect
def fail_runs_of_a_restarted_worker(sender, **kwargs) -> None:
    runs_fail_for_worker(hostname=sender.hostname)
    # This runs in the worker's main process, which forks a new pool process whenever one ends: leave none of
    # them a connection pool (its sockets and threads) to inherit.
    database_pools_close()
