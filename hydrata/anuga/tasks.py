from celery import shared_task

from hydrata.anuga.services.terrain import terrain_import


@shared_task(name="anuga.terrain_import")
def terrain_import_task(terrain_id: int) -> None:
    terrain_import(terrain_id=terrain_id)


@shared_task(name="anuga.run_build")
def run_build_task(run_id: int) -> None:
    from hydrata.anuga.services.build import run_build

    run_build(run_id=run_id)
