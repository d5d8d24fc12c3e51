from celery import shared_task

from hydrata.anuga.services.terrain import terrain_import


@shared_task(name="anuga.terrain_import")
def terrain_import_task(terrain_id: int) -> None:
    terrain_import(terrain_id=terrain_id)
