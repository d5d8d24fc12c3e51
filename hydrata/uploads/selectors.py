"""Reads, always scoped through what the caller may see: anything else is a 404."""

import json
import uuid
from collections.abc import Iterable
from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.db.models import Q, QuerySet

from hydrata.core.errors import NotFound
from hydrata.core.queues import QueuedWork, queue_place
from hydrata.core.rows import from_row
from hydrata.storage import get_storage
from hydrata.uploads.models import Dataset, UploadExecution
from hydrata_contract.answers import uploads as answers
from hydrata_contract.errors import ErrorCode
from hydrata_contract.states import UploadStatus, WorkQueue


def execution_get(*, user: User, execution_id: UUID | str) -> UploadExecution:
    """Only the uploader sees an execution; a malformed id is as unknown as anyone else's."""
    try:
        execution_uuid = execution_id if isinstance(execution_id, UUID) else uuid.UUID(str(execution_id))
    except ValueError:
        execution_uuid = None
    execution = (
        UploadExecution.objects.filter(pk=execution_uuid, user=user).first() if execution_uuid is not None else None
    )
    if execution is None:
        raise NotFound(
            f"Upload execution {str(execution_id)[:64]!r} does not exist or is not visible to this caller.",
            code=ErrorCode.EXECUTION_NOT_FOUND,
        )
    return execution


def datasets_visible(*, owner: User, shared_ids: Iterable[int]) -> QuerySet[Dataset]:
    """The caller's own datasets and those shared with them. What is shared with whom is decided by the caller
    (projects attach datasets, above this app), and passed in as dataset ids (a subquery, or a list)."""
    return Dataset.objects.filter(Q(owner=owner) | Q(pk__in=shared_ids)).select_related("owner")


def dataset_get(*, owner: User, shared_ids: Iterable[int], dataset_id: int) -> Dataset:
    dataset = datasets_visible(owner=owner, shared_ids=shared_ids).filter(pk=dataset_id).first()
    if dataset is None:
        raise NotFound(
            f"Dataset {dataset_id} does not exist or is not visible to this caller.", code=ErrorCode.DATASET_NOT_FOUND
        )
    return dataset


def dataset_features(*, dataset: Dataset) -> dict[str, Any]:
    """The dataset's normalised FeatureCollection, as stored at import (with a "crs" member naming its CRS)."""
    with get_storage().open(key=dataset.storage_key) as stream:
        return json.load(stream)


def execution_queue_place(*, execution: UploadExecution) -> dict[str, Any] | None:
    """The import on the interactive queue (hydrata/core/queues.py); None once it has ended."""
    if execution.status not in (UploadStatus.READY, UploadStatus.RUNNING):
        return None
    started = execution.status == UploadStatus.RUNNING
    return queue_place(queue=WorkQueue.INTERACTIVE, started=started, queued_at=execution.created_at)


def upload_started(*, execution: UploadExecution) -> answers.UploadStarted:
    return answers.UploadStarted(execution_id=execution.id)


def execution_status(*, execution: UploadExecution) -> answers.ExecutionStatus:
    """GeoNode's execution-status shape; `output_params` is empty until the import finished, then names the dataset
    it made, if any."""
    output = answers.ExecutionOutput()
    if execution.status == UploadStatus.FINISHED:
        made = [answers.UploadedResource(id=execution.dataset_id)] if execution.dataset_id is not None else []
        output = answers.ExecutionOutput(resources=made)
    return from_row(
        answers.ExecutionStatus,
        execution,
        exec_id=execution.id,
        func_name="upload",
        created=execution.created_at,
        last_updated=execution.updated_at,
        output_params=output,
        queue=execution_queue_place(execution=execution),
    )


def dataset_answer(*, dataset: Dataset) -> answers.UploadedDataset:
    return from_row(answers.UploadedDataset, dataset, owner=dataset.owner.username, created=dataset.created_at)


def dataset_detail(*, dataset: Dataset) -> answers.DatasetDetail:
    """GeoNode's dataset read: the dataset under `dataset`."""
    return answers.DatasetDetail(dataset=dataset_answer(dataset=dataset))


QUEUED_WORK = (
    QueuedWork(
        queue=WorkQueue.INTERACTIVE,
        waiting=lambda: UploadExecution.objects.filter(status=UploadStatus.READY),
        running=lambda: UploadExecution.objects.filter(status=UploadStatus.RUNNING),
        queued_at="created_at",
    ),
)
