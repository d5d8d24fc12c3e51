from celery import shared_task
from celery.signals import worker_ready

from hydrata.anuga.services.terrain import terrain_import
from hydrata.core.task_limits import time_limits


@shared_task(name="anuga.terrain_import", **time_limits("terrain_import"))
def terrain_import_task(terrain_id: int) -> None:
    terrain_import(terrain_id=terrain_id)


@shared_task(name="anuga.run_build", **time_limits("run_build"))
def run_build_task(run_id: int) -> None:
    from hydrata.anuga.services.build import run_build

    run_build(run_id=run_id)


# Not acks_late: a simulation whose worker died is ended by the reaper, never silently started again.
@shared_task(name="anuga.run_simulation", bind=True, acks_late=False, **time_limits("run_simulation"))
def run_simulation_task(self, run_id: int) -> None:
    from hydrata.anuga.services.simulation import run_simulate

    run_simulate(run_id=run_id, worker=self.request.hostname or "")


@shared_task(name="anuga.storage_cleanup", **time_limits("storage_cleanup"))
def storage_cleanup_task() -> None:
    from hydrata.anuga.services.cleanup import storage_cleanup

    storage_cleanup()


@worker_ready.connect
def fail_runs_of_a_restarted_worker(sender, **kwargs) -> None:
    from hydrata.anuga.services.runs import runs_fail_for_worker

    runs_fail_for_worker(hostname=sender.hostname)
