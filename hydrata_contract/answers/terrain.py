"""A terrain's answers: the upload slot presign hands out, the terrain, and a page of a project's terrains."""

from datetime import datetime
from typing import Literal
from uuid import UUID

from pydantic import Field

from hydrata_contract.answers.base import Answer, Page, Sparse, map_link
from hydrata_contract.answers.queues import QueuePlace
from hydrata_contract.states import TerrainStatus


class TerrainPresign(Answer):
    """TerrainPresignView: PUT the file to upload_url with these headers, then finalize with staging_key."""

    upload_url: str
    staging_key: str
    process_id: UUID
    expires_in: int = Field(description="Seconds the upload URL stays valid.")
    method: Literal["PUT"]
    headers: dict[str, str]


class Terrain(Sparse):
    """A terrain; a browser session's answer leaves out the signed hillshade link."""

    id: int
    project: int
    title: str
    status: TerrainStatus
    error_message: str
    source_filename: str
    native_crs: str
    crs: str
    reprojected: bool
    width: int | None
    height: int | None
    resolution: list[float] | None = Field(description="[x, y] in the terrain's CRS units.")
    bbox_wgs84: list[float] | None
    bbox_native: list[float] | None
    elevation_min: float | None
    elevation_max: float | None
    nodata_fraction: float | None
    s3_hillshade_url: str | None = Field(
        default=None, description="A signed download link of the hillshade once ready; absent in a browser's answer."
    )
    ui_url: str = map_link()
    created_at: datetime
    updated_at: datetime
    queue: QueuePlace | None = Field(
        description="While the import has not ended: queued (with the work ahead of it) or running. Null once it ended."
    )


class TerrainPage(Page):
    results: list[Terrain]
    ui_url: str = Field(description="The map's Terrain panel.")
