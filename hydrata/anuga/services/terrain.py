"""Terrain: a presigned staging slot, finalize, and the import that turns a GeoTIFF into model terrain."""

import logging
import re
import shutil
import tempfile
import uuid
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.utils import timezone

from hydrata.anuga.models import Project, Terrain, TerrainUpload
from hydrata.anuga.services.inputs import default_inputs_seed
from hydrata.compute.errors import TerrainFileError
from hydrata.compute.rasters.terrain_raster import RasterLimits, write_dem, write_hillshade
from hydrata.core.errors import ValidationFailed
from hydrata.core.records import record_update
from hydrata.storage import get_storage
from hydrata_contract.errors import ErrorCode
from hydrata_contract.states import TerrainStatus

logger = logging.getLogger(__name__)

TERRAIN_CONTENT_TYPES = {"image/tiff", "image/geotiff", "image/tiff; application=geotiff", "application/octet-stream"}
SAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]+")
MAX_DECLARED_SIZE = 2**63 - 1  # what TerrainUpload.declared_size (a BigIntegerField) holds; no file is larger


def _safe_filename(filename: str) -> str:
    name = SAFE_FILENAME.sub("_", Path(filename).name).strip("._") or "dem.tif"
    return name[:120]


def _check_size(size: int | None) -> None:
    if size is None:
        return
    # First, so that the message below divides only sizes a float holds (a 400-digit size overflowed it).
    if not 0 < size <= MAX_DECLARED_SIZE:
        raise ValidationFailed(
            "size must be the file's size in bytes: a whole number above 0.", code=ErrorCode.INVALID_SIZE, field="size"
        )
    limit = settings.HYDRATA_TERRAIN_MAX_BYTES
    if size > limit:
        raise ValidationFailed(
            f"The file is {size / 1024**3:.2f} GiB; terrain uploads are limited to {limit / 1024**3:.0f} GiB. "
            "Clip the DEM to the area of interest or coarsen it.",
            code=ErrorCode.UPLOAD_TOO_LARGE,
            size=size,
            limit=limit,
        )


def terrain_upload_presign(
    *, project: Project, user: User, filename: str, content_type: str, size: int | None
) -> tuple[TerrainUpload, str]:
    """Reserve a staging key for one PUT and return it with the signed URL."""
    _check_size(size)
    content_type = content_type.strip()
    if content_type not in TERRAIN_CONTENT_TYPES:
        raise ValidationFailed(
            f"content_type {content_type!r} is not accepted for terrain; use 'image/tiff' for a GeoTIFF.",
            code=ErrorCode.INVALID_CONTENT_TYPE,
        )
    expires_in = settings.HYDRATA_UPLOAD_URL_EXPIRY_SECONDS
    process_id = uuid.uuid4()
    upload = TerrainUpload.objects.create(
        project=project,
        user=user,
        staging_key=f"staging/terrain/{project.pk}/{process_id.hex}/{_safe_filename(filename)}",
        process_id=process_id,
        filename=_safe_filename(filename),
        content_type=content_type,
        declared_size=size,
        # A PUT started just before its URL expires may take a while to finish: finalize has a grace period.
        expires_at=timezone.now() + timedelta(seconds=expires_in + settings.HYDRATA_UPLOAD_FINALIZE_GRACE_SECONDS),
    )
    url = get_storage().presign_upload(key=upload.staging_key, content_type=content_type, expires_in=expires_in)
    return upload, url


def terrain_upload_finalize(
    *, project: Project, user: User, staging_key: str, process_id: str = "", title: str = ""
) -> Terrain:
    """Turn a completed PUT into a terrain record and start its import."""
    # The slot is bound to the project and to the caller who reserved it (the model's promise).
    uploads = TerrainUpload.objects.filter(project=project, user=user, staging_key=staging_key).select_related(
        "terrain"
    )
    if process_id:
        parsed = _uuid_or_none(process_id)
        uploads = uploads.filter(process_id=parsed) if parsed else uploads.none()
    upload = uploads.first()
    if upload is None:
        raise ValidationFailed(
            "No terrain upload was reserved by this caller for this project with that staging_key (and "
            "process_id). Call presign_terrain_upload first and pass back the staging_key it returned.",
            code=ErrorCode.UPLOAD_NOT_FOUND,
        )
    if getattr(upload, "terrain", None) is not None:
        return upload.terrain
    if upload.expires_at <= timezone.now():
        raise ValidationFailed(
            "This upload slot has expired (and its file is cleaned up). Call "
            "presign_terrain_upload again and upload the file anew.",
            code=ErrorCode.UPLOAD_EXPIRED,
        )
    storage = get_storage()
    if not storage.exists(key=staging_key):
        raise ValidationFailed(
            "Nothing has been uploaded to this staging key yet. PUT the file to the upload_url (with the same "
            "Content-Type) and finalize again.",
            code=ErrorCode.UPLOAD_NOT_FOUND,
        )
    _check_size(storage.size(key=staging_key))
    return _terrain_create(
        project=project, user=user, source_key=staging_key, filename=upload.filename, title=title, upload=upload
    )


def terrain_upload_direct(*, project: Project, user: User, uploaded_file: UploadedFile, title: str = "") -> Terrain:
    """The one-step multipart fallback: store the file, then the same import as a finalized upload."""
    _check_size(uploaded_file.size)
    filename = _safe_filename(uploaded_file.name or "dem.tif")
    key = f"staging/terrain/{project.pk}/{uuid.uuid4().hex}/{filename}"
    get_storage().save(key=key, data=uploaded_file, content_type="image/tiff")
    return _terrain_create(project=project, user=user, source_key=key, filename=filename, title=title)


def _terrain_create(
    *, project: Project, user: User, source_key: str, filename: str, title: str, upload: TerrainUpload | None = None
) -> Terrain:
    from hydrata.anuga.tasks import terrain_import_task

    try:
        with transaction.atomic():
            terrain = Terrain.objects.create(
                project=project,
                upload=upload,
                title=(title.strip() or Path(filename).stem)[:200],
                source_filename=filename,
                source_key=source_key,
                created_by=user,
            )
            transaction.on_commit(lambda: terrain_import_task.delay(terrain.pk))
    except IntegrityError:  # two finalizes of one upload raced: the first one's terrain is the answer
        return Terrain.objects.get(upload=upload)
    return terrain


def _uuid_or_none(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def terrain_import(*, terrain_id: int) -> Terrain:
    """Read the GeoTIFF, reproject to the project CRS, measure it, draw a hillshade; ready or error."""
    terrain = Terrain.objects.select_related("project").get(pk=terrain_id)
    if terrain.status in (TerrainStatus.READY, TerrainStatus.ERROR):
        return terrain  # a redelivered task: the import already ended
    record_update(terrain, import_started_at=timezone.now())  # no longer waiting on its queue
    storage = get_storage()
    try:
        with (
            tempfile.TemporaryDirectory(prefix="terrain-") as workdir,
            storage.local_path(key=terrain.source_key) as source,
        ):
            dem_path, hillshade_path = Path(workdir) / "dem.tif", Path(workdir) / "hillshade.png"
            limits = RasterLimits(
                max_pixels=settings.HYDRATA_TERRAIN_MAX_PIXELS, free_bytes=shutil.disk_usage(workdir).free
            )
            reading = write_dem(source, dem_path, project_crs=terrain.project.projection, limits=limits)
            record_update(terrain, status=TerrainStatus.STYLING, **reading.__dict__)
            write_hillshade(dem_path, hillshade_path)
            terrain.dem_key = f"terrain/{terrain.project_id}/{terrain.pk}/dem.tif"
            terrain.hillshade_key = f"terrain/{terrain.project_id}/{terrain.pk}/hillshade.png"
            with dem_path.open("rb") as dem, hillshade_path.open("rb") as hillshade:
                storage.save(key=terrain.dem_key, data=dem, content_type="image/tiff")
                storage.save(key=terrain.hillshade_key, data=hillshade, content_type="image/png")
    except TerrainFileError as refusal:
        return record_update(terrain, status=TerrainStatus.ERROR, error_message=str(refusal))
    except Exception:
        logger.exception("Terrain %s failed to import", terrain.pk)
        return record_update(
            terrain,
            status=TerrainStatus.ERROR,
            error_message="The import failed with an internal error; it has been logged. "
            "Try the upload again, or contact support if it repeats.",
        )
    with transaction.atomic():
        record_update(terrain, status=TerrainStatus.READY, error_message="")
        default_inputs_seed(project=terrain.project)
    return terrain
