"""Background work of calibration studies: each a thin call into its service. The members' simulations are the
runs' own task (hydrata/anuga/tasks.py), linked to the advance here."""

from celery import shared_task

from hydrata.calibration.services.runs import calibration_studies_advance, calibration_study_advance
from hydrata.core.task_limits import time_limits


@shared_task(name="calibration.calibration_study_advance", **time_limits("study_advance"))
def calibration_study_advance_task(study_id: int) -> None:
    calibration_study_advance(study_id=study_id)


# Sent by celery beat every HYDRATA_RUN_REAP_INTERVAL_SECONDS (config/settings.py CELERY_BEAT_SCHEDULE).
@shared_task(name="calibration.calibration_studies_advance", **time_limits("study_advance"))
def calibration_studies_advance_task() -> int:
    return calibration_studies_advance()
