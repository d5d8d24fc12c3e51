"""Background work for uploads. Tasks only hand over to services."""

from celery import shared_task

from hydrata.core.task_limits import time_limits
from hydrata.uploads.services import dataset_import


@shared_task(ignore_result=True, **time_limits("dataset_import"))
def dataset_import_task(execution_id: str) -> None:
    """Import one uploaded GeoJSON file. A bad file ends as a failed execution, not as a task error."""
    dataset_import(execution_id=execution_id)
