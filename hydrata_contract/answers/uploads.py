"""The uploads' answers, in GeoNode's shapes: an upload started, its execution status, and the dataset a finished
import made."""

from datetime import datetime
from typing import Literal
from uuid import UUID

from pydantic import Field

from hydrata_contract.answers.base import Answer, Sparse
from hydrata_contract.answers.queues import QueuePlace
from hydrata_contract.states import UploadStatus


class UploadStarted(Answer):
    """UploadCreateView: the import runs in the background; read its execution status with this id."""

    execution_id: UUID


class UploadedResource(Answer):
    id: int = Field(description="The dataset's id (datasets/<id>/).")


class ExecutionOutput(Sparse):
    """Empty until the import finished; then the dataset it made, if any."""

    resources: list[UploadedResource] = Field(default_factory=list, description="Absent until the import finished.")


class ExecutionStatus(Answer):
    """GeoNode's execution-status shape."""

    exec_id: UUID
    status: UploadStatus
    func_name: Literal["upload"]
    created: datetime
    last_updated: datetime
    log: str = Field(description="What happened, for a person to read.")
    output_params: ExecutionOutput
    queue: QueuePlace | None = Field(
        description="While the import has not ended: queued (with the work ahead of it) or running. Null once it ended."
    )


class UploadedDataset(Answer):
    """A dataset an upload's import made."""

    pk: int
    title: str
    name: str
    owner: str = Field(description="The owner's username.")
    crs: str = Field(description="Authority code of the features' CRS, e.g. EPSG:28356.")
    feature_count: int
    geometry_types: list[str] = Field(description='Distinct geometry types, e.g. ["LineString"].')
    property_names: list[str] = Field(description="Union of the features' property keys.")
    bbox_wgs84: list[float] = Field(description="[minx, miny, maxx, maxy] in longitude/latitude.")
    created: datetime


class DatasetDetail(Answer):
    """DatasetDetailView (hydrata/anuga/api/datasets.py): GeoNode's dataset read."""

    dataset: UploadedDataset
