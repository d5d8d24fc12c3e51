"""Background work of design studies: each a thin call into its service. The members' simulations are the runs'
own task (hydrata/anuga/tasks.py), linked to the advance here."""

from celery import shared_task

from hydrata.core.database import DATABASE_UNREACHABLE
from hydrata.core.task_limits import time_limits
from hydrata.studies.services.envelopes import design_study_envelopes
from hydrata.studies.services.runs import design_studies_advance, design_study_advance


@shared_task(name="studies.design_study_advance", **time_limits("study_advance"))
def design_study_advance_task(study_id: int) -> None:
    design_study_advance(study_id=study_id)


# Sent by celery beat every HYDRATA_RUN_REAP_INTERVAL_SECONDS (config/settings.py CELERY_BEAT_SCHEDULE).
@shared_task(name="studies.design_studies_advance", **time_limits("study_advance"))
def design_studies_advance_task() -> int:
    return design_studies_advance()


# A database out of reach sends it again later: the study is still post-processing, and the envelopes start over.
@shared_task(
    name="studies.design_study_envelopes",
    autoretry_for=DATABASE_UNREACHABLE,
    retry_backoff=5,
    retry_backoff_max=120,
    max_retries=30,
    **time_limits("study_envelopes"),
)
def design_study_envelopes_task(study_id: int) -> None:
    design_study_envelopes(study_id=study_id)
