"""Storage that would otherwise only grow: staged terrain uploads, and the largest output of old runs.

Run by `manage.py cleanup_storage` and by the worker every HYDRATA_CLEANUP_INTERVAL_SECONDS (Celery beat).
Every step is idempotent, so two cleanups at once, or one interrupted, do no harm.
"""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from hydrata.anuga.models import Run, Terrain, TerrainUpload
from hydrata.storage import get_storage
from hydrata_contract.states import RunStatus, TerrainStatus

logger = logging.getLogger(__name__)

STAGING_PREFIX = "staging/"
SWW_NAME = "run.sww"
# Finalize refuses a slot once it has expired; waiting a little longer keeps the cleanup clear of a finalize
# that passed that check a moment before the deadline.
EXPIRED_SLOT_MARGIN = timedelta(minutes=5)


@dataclass(frozen=True)
class CleanupReport:
    expired_uploads: int
    terrain_sources: int
    run_outputs: int


def storage_cleanup(*, now: datetime | None = None) -> CleanupReport:
    now = now or timezone.now()
    report = CleanupReport(
        expired_uploads=_expired_uploads_delete(now),
        terrain_sources=_terrain_sources_delete(now),
        run_outputs=_run_outputs_delete(now),
    )
    logger.info("Storage cleanup: %s", report)
    return report


def _expired_uploads_delete(now: datetime) -> int:
    """Slots never finalized before their deadline: the slot and whatever was PUT to its staging key."""
    storage, deleted = get_storage(), 0
    expired = TerrainUpload.objects.filter(expires_at__lt=now - EXPIRED_SLOT_MARGIN, terrain__isnull=True)
    for upload in expired.iterator():
        storage.delete(key=upload.staging_key)
        upload.delete()
        deleted += 1
    return deleted


def _terrain_sources_delete(now: datetime) -> int:
    """The uploaded GeoTIFF of a terrain whose import ended (ready or error) a retention period ago: the ready
    terrain keeps its own reprojected DEM, and an import never runs twice."""
    cutoff = now - timedelta(hours=settings.HYDRATA_STAGING_RETENTION_HOURS)
    storage, deleted = get_storage(), 0
    ended = Terrain.objects.filter(
        status__in=(TerrainStatus.READY, TerrainStatus.ERROR),
        updated_at__lt=cutoff,
        source_key__startswith=STAGING_PREFIX,
    )
    for terrain in ended.iterator():
        storage.delete(key=terrain.source_key)
        Terrain.objects.filter(pk=terrain.pk).update(source_key="")  # blank: nothing left to clean
        deleted += 1
    return deleted


def _run_outputs_delete(now: datetime) -> int:
    """A complete run's .sww (the full time history, by far its largest file) once the retention has passed; the
    result rasters, statistics, preview and log stay."""
    days = settings.HYDRATA_RUN_SWW_RETENTION_DAYS
    if days <= 0:
        return 0
    storage, deleted = get_storage(), 0
    old = Run.objects.filter(status=RunStatus.COMPLETE, finished_at__lt=now - timedelta(days=days)).exclude(
        results_prefix=""
    )
    for run in old.iterator():
        key = f"{run.results_prefix}/{SWW_NAME}"
        if storage.exists(key=key):
            storage.delete(key=key)
            deleted += 1
    return deleted
