"""Writes for uploads: accept a GeoJSON file, then import it into a Dataset in the background.

A file a person got wrong never raises out of the import: it ends as a failed execution whose log says what is
wrong and where. Only infrastructure failures (storage, database) raise, after marking the execution failed.
"""

import json
import logging
import uuid
from pathlib import PurePosixPath
from uuid import UUID

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from hydrata.compute.errors import GeoJSONRejected
from hydrata.compute.inputs.geojson import InspectedCollection, crs_urn, geojson_inspect
from hydrata.core.errors import ValidationFailed
from hydrata.storage import get_storage
from hydrata.uploads.models import Dataset, UploadExecution
from hydrata_contract.errors import ErrorCode
from hydrata_contract.states import UploadStatus

logger = logging.getLogger(__name__)

GEOJSON_EXTENSIONS = (".geojson", ".json")
GEOJSON_CONTENT_TYPE = "application/geo+json"
MAX_NAME_LENGTH = 100  # of the slug part of a stored file name and of a dataset's name
INTERNAL_FAILURE = "The import stopped because of an internal error; it has been logged. Try the upload again later."


# --- the upload ------------------------------------------------------------------------------------------------


def upload_create(*, user: User, uploaded_file: UploadedFile) -> UploadExecution:
    """Keep the file and queue its import. Refuses up front what cannot be GeoJSON or is too large."""
    original_name = PurePosixPath((uploaded_file.name or "").replace("\\", "/")).name
    stem, extension = _split_extension(original_name)
    if extension not in GEOJSON_EXTENSIONS:
        raise ValidationFailed(
            f"{original_name[:100]!r} is not a GeoJSON file: upload a file ending in .geojson or .json.",
            code=ErrorCode.NOT_GEOJSON,
        )
    limit = settings.HYDRATA_GEOJSON_MAX_BYTES
    if (uploaded_file.size or 0) > limit:
        raise ValidationFailed(
            f"The file is {uploaded_file.size:,} bytes; a GeoJSON upload may be at most {limit:,} bytes.",
            code=ErrorCode.UPLOAD_TOO_LARGE,
            size=uploaded_file.size,
            max_bytes=limit,
        )

    from hydrata.uploads.tasks import dataset_import_task  # the task module imports this one

    execution_id = uuid.uuid4()
    storage_key = f"uploads/{execution_id}/{_slug(stem)}{extension}"
    with transaction.atomic():
        execution = UploadExecution.objects.create(
            id=execution_id,
            user=user,
            filename=original_name[:255],
            storage_key=storage_key,
            status=UploadStatus.READY,
            log=f"Received {original_name} ({uploaded_file.size:,} bytes); the import is queued.\n",
        )
        uploaded_file.seek(0)
        get_storage().save(key=storage_key, data=uploaded_file, content_type=GEOJSON_CONTENT_TYPE)
        transaction.on_commit(lambda: dataset_import_task.delay(str(execution.id)))
    return execution


# --- the import ------------------------------------------------------------------------------------------------


def dataset_import(*, execution_id: UUID | str) -> UploadExecution | None:
    """Import an uploaded file: the execution ends finished (with its dataset) or failed (with the reason)."""
    claimed = UploadExecution.objects.filter(
        pk=execution_id, status__in=[UploadStatus.READY, UploadStatus.RUNNING]
    ).update(status=UploadStatus.RUNNING, updated_at=timezone.now())
    execution = UploadExecution.objects.filter(pk=execution_id).select_related("user").first()
    if execution is None:
        logger.warning("Upload execution %s no longer exists; nothing to import.", execution_id)
        return None
    if not claimed:
        logger.info("Upload execution %s is already %s; not importing it again.", execution_id, execution.status)
        return execution

    _log_append(execution, "Import started.")
    try:
        data = _upload_read(execution=execution)
        inspected = geojson_inspect(
            data=data,
            max_features=settings.HYDRATA_GEOJSON_MAX_FEATURES,
            max_edge_tests=settings.HYDRATA_GEOJSON_MAX_EDGE_TESTS,
        )
        dataset = _dataset_create(execution=execution, inspected=inspected)
    except GeoJSONRejected as rejected:
        return _execution_fail(execution=execution, reason=str(rejected))
    except Exception:
        logger.exception("Import of upload execution %s failed on an infrastructure error", execution_id)
        _execution_fail(execution=execution, reason=INTERNAL_FAILURE)
        raise
    logger.info("Upload execution %s imported as dataset %s", execution_id, dataset.pk)
    return execution


def _upload_read(*, execution: UploadExecution) -> bytes:
    storage = get_storage()
    limit = settings.HYDRATA_GEOJSON_MAX_BYTES
    size = storage.size(key=execution.storage_key)
    if size > limit:
        raise GeoJSONRejected(f"The file is {size:,} bytes; a GeoJSON upload may be at most {limit:,} bytes.")
    with storage.open(key=execution.storage_key) as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise GeoJSONRejected(f"The file is more than {limit:,} bytes; a GeoJSON upload may be at most that.")
    return data


def _dataset_create(*, execution: UploadExecution, inspected: InspectedCollection) -> Dataset:
    stem, _ = _split_extension(execution.filename)
    normalised = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": crs_urn(inspected.crs)}},
        "features": inspected.features,
    }
    payload = json.dumps(normalised, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    storage = get_storage()
    storage_key = f"datasets/{uuid.uuid4()}/features.geojson"
    storage.save(key=storage_key, data=payload, content_type=GEOJSON_CONTENT_TYPE)
    log_before = execution.log
    try:
        with transaction.atomic():
            dataset = Dataset.objects.create(
                owner=execution.user,
                title=(stem.strip() or "Untitled")[:255],
                name=_slug(stem),
                storage_key=storage_key,
                crs=inspected.crs,
                feature_count=len(inspected.features),
                geometry_types=inspected.geometry_types,
                property_names=inspected.property_names,
                bbox_wgs84=inspected.bbox_wgs84,
                bbox_native=inspected.bbox_native,
            )
            execution.dataset = dataset
            execution.status = UploadStatus.FINISHED
            _log_append(
                execution,
                f"Read a FeatureCollection of {dataset.feature_count:,} feature(s) "
                f"({', '.join(dataset.geometry_types)}) in {dataset.crs}.\n"
                f"Import finished: dataset {dataset.pk} ({dataset.name!r}).",
                save=False,
            )
            execution.save(update_fields=["dataset", "status", "log", "updated_at"])
    except Exception:
        execution.dataset, execution.status, execution.log = None, UploadStatus.RUNNING, log_before
        try:
            storage.delete(key=storage_key)
        except Exception:
            logger.exception("Could not remove %s after a failed import", storage_key)
        raise
    return dataset


def _execution_fail(*, execution: UploadExecution, reason: str) -> UploadExecution:
    execution.status = UploadStatus.FAILED
    _log_append(execution, f"Import failed. {reason}", save=False)
    execution.save(update_fields=["status", "log", "updated_at"])
    return execution


def _log_append(execution: UploadExecution, text: str, *, save: bool = True) -> None:
    execution.log = f"{execution.log.rstrip()}\n{text}\n".lstrip("\n")
    if save:
        execution.save(update_fields=["status", "log", "updated_at"])


# --- small helpers ---------------------------------------------------------------------------------------------


def _split_extension(filename: str) -> tuple[str, str]:
    path = PurePosixPath(filename)
    return (path.stem, path.suffix.lower()) if path.suffix else (path.name, "")


def _slug(text: str) -> str:
    return slugify(text)[:MAX_NAME_LENGTH].strip("-_") or "upload"
