from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from hydrata_contract import paths
from hydrata_contract.errors import ErrorCode
from hydrata_contract.requests.terrain import TerrainUploadFinalize, TerrainUploadPresign
from hydrata_contract.states import TerrainStatus
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient, refusal_error
from hydrata_mcp.handback import HandBack
from hydrata_mcp.polling import (
    DEFAULT_POLL_INTERVAL_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
    PollIntervalSeconds,
    TimeoutSeconds,
    queue_in_words,
    wait_for,
)
from hydrata_mcp.tools.arguments import ProjectId
from hydrata_mcp.tools.registry import tool

TERMINAL = (TerrainStatus.READY, TerrainStatus.ERROR)


class TerrainRecord(BaseModel):
    id: int
    title: str
    status: str = Field(description="creating -> styling -> ready | error")
    error_message: str = Field(description="Why the import failed, when status is error.")
    native_crs: str = Field(description="The CRS the uploaded file was in.")
    crs: str = Field(description="The project CRS the terrain is stored in.")
    reprojected: bool
    width: int | None
    height: int | None
    resolution: list[float] | None = Field(description="Cell size [x, y] in metres.")
    bbox_wgs84: list[float] | None = Field(description="[west, south, east, north] in degrees.")
    elevation_min: float | None = Field(description="Lowest elevation, metres.")
    elevation_max: float | None = Field(description="Highest elevation, metres.")
    nodata_fraction: float | None = Field(description="Share of cells without data, 0 to 1.")
    created_at: datetime
    updated_at: datetime


class PresignedUpload(BaseModel):
    upload_url: str = Field(description="PUT the file's bytes here, with the Content-Type below.")
    staging_key: str = Field(description="Pass to finalize_terrain_upload.")
    process_id: str = Field(description="Pass to finalize_terrain_upload.")
    expires_in: int = Field(description="Seconds the upload_url stays valid.")
    content_type: str = Field(description="The exact Content-Type header the PUT must send.")
    next_step: str


class FinalizedTerrain(HandBack):
    id: int = Field(description="The terrain's id; get_terrain waits for its import.")
    status: str


class TerrainWait(HandBack):
    outcome: str = Field(description="ready, error, timed_out (call again with the same arguments) or not_found.")
    status: str | None
    terrain: TerrainRecord | None
    polls: int
    elapsed_seconds: float


def terrain_record(data: dict[str, Any]) -> TerrainRecord:
    return TerrainRecord.model_validate({name: data.get(name) for name in TerrainRecord.model_fields})


@tool(title="Get a terrain upload URL", relied_on=("upload_url", "staging_key", "process_id", "expires_in"))
async def presign_terrain_upload(
    ctx: Context,
    project_id: ProjectId,
    filename: Annotated[str, Field(min_length=1, max_length=200, description="The DEM's file name, e.g. dem.tif.")],
    content_type: Annotated[str, Field(description="The Content-Type the PUT will send.")] = "image/tiff",
    size: Annotated[int | None, Field(ge=1, description="Bytes; over 5 GiB is refused.")] = None,
) -> PresignedUpload:
    """A signed URL to PUT a terrain GeoTIFF (DEM) to, with exactly the returned content_type; then
    finalize_terrain_upload."""
    api = PlatformClient.for_context(ctx)
    response = await api.post(
        paths.TERRAIN_PRESIGN.url(project_id=project_id),
        json=body(TerrainUploadPresign, filename=filename, content_type=content_type, size=size),
    )
    data = response.data
    return PresignedUpload(
        upload_url=data["upload_url"],
        staging_key=data["staging_key"],
        process_id=data["process_id"],
        expires_in=data["expires_in"],
        content_type=data["headers"]["Content-Type"],
        next_step=f"PUT the file to upload_url with header 'Content-Type: {data['headers']['Content-Type']}', "
        "then call finalize_terrain_upload with staging_key and process_id.",
    )


@tool(title="Finish a terrain upload", relied_on=("id", "status"))
async def finalize_terrain_upload(
    ctx: Context,
    project_id: ProjectId,
    staging_key: Annotated[str, Field(min_length=1, description="From presign_terrain_upload.")],
    process_id: Annotated[str, Field(description="From presign_terrain_upload.")] = "",
    title: Annotated[str, Field(max_length=200, description="Default: the file name.")] = "",
) -> FinalizedTerrain:
    """Start importing the terrain file you PUT; get_terrain waits for it. Once ready, the project has its default
    input rows."""
    api = PlatformClient.for_context(ctx)
    response = await api.post(
        paths.TERRAIN_FINALIZE.url(project_id=project_id),
        json=body(TerrainUploadFinalize, staging_key=staging_key, process_id=process_id, title=title),
    )
    terrain = response.data
    link = terrain["ui_url"]
    return FinalizedTerrain(
        id=terrain["id"],
        status=terrain["status"],
        ui_url=link,
        summary={"terrain_id": terrain["id"], "title": terrain["title"], "status": terrain["status"]},
        say_to_user=f"The terrain '{terrain['title']}' is uploaded and importing; it will appear here: {link}",
    )


@tool(
    title="Get terrain",
    read_only=True,
    idempotent=True,
    relied_on=("outcome", "status", "terrain.id", "polls", "elapsed_seconds"),
)
async def get_terrain(
    ctx: Context,
    project_id: ProjectId,
    terrain_id: Annotated[int | None, Field(ge=1, description="Default: the project's newest terrain.")] = None,
    timeout_seconds: TimeoutSeconds = DEFAULT_TIMEOUT_SECONDS,
    poll_interval_seconds: PollIntervalSeconds = DEFAULT_POLL_INTERVAL_SECONDS,
) -> TerrainWait:
    """Read a project's terrain, waiting while it imports; outcome ready, error, timed_out or not_found. The
    summary: WGS84 bbox, elevation range, nodata fraction, native CRS."""
    api = PlatformClient.for_context(ctx)
    # Where the terrain panel is, from the platform's last answer: a page of terrain, or its refusal of a terrain
    # the project does not have, carries that link even when there is no terrain to describe.
    panel = {"ui_url": ""}

    async def read() -> dict[str, Any] | None:
        if terrain_id is None:
            page = (await api.get(paths.TERRAIN_LIST.url(project_id=project_id))).data
            panel["ui_url"] = page["ui_url"]
            return page["results"][0] if page["results"] else None
        response = await api.get(paths.TERRAIN_DETAIL.url(project_id=project_id, terrain_id=terrain_id), allow=(404,))
        if response.status == 404 and response.data.get("code") != ErrorCode.TERRAIN_NOT_FOUND:
            raise refusal_error(response.status, response.data)
        if response.status == 404:
            panel["ui_url"] = response.data["ui_url"]
            return None
        return response.data

    waited = await wait_for(
        ctx,
        read=read,
        finished=lambda t: t is None or t["status"] in TERMINAL,
        describe=lambda t: (
            queue_in_words("terrain's import", t and t.get("queue")) or f"terrain {t['status'] if t else 'missing'}"
        ),
        timeout_seconds=timeout_seconds,
        poll_interval_seconds=poll_interval_seconds,
    )
    return _terrain_wait(waited.value, waited.polls, waited.elapsed_seconds, panel["ui_url"])


def _terrain_wait(data: dict[str, Any] | None, polls: int, elapsed: float, panel_url: str) -> TerrainWait:
    if data is None:
        return TerrainWait(
            outcome="not_found",
            status=None,
            terrain=None,
            polls=polls,
            elapsed_seconds=elapsed,
            ui_url=panel_url,
            summary={},
            say_to_user="This project has no such terrain yet; upload a DEM first.",
        )
    terrain = terrain_record(data)
    outcome = terrain.status if terrain.status in TERMINAL else "timed_out"
    summary = {
        "bbox_wgs84": terrain.bbox_wgs84,
        "elevation_min": terrain.elevation_min,
        "elevation_max": terrain.elevation_max,
        "nodata_fraction": terrain.nodata_fraction,
        "native_crs": terrain.native_crs,
        "crs": terrain.crs,
        "resolution_m": terrain.resolution,
    }
    link = data["ui_url"]
    says: dict[str, str] = {
        TerrainStatus.READY: f"The terrain is ready: elevations {terrain.elevation_min} to {terrain.elevation_max} m, "
        f"{(terrain.nodata_fraction or 0) * 100:.1f}% without data. Check it in the map: {link}",
        TerrainStatus.ERROR: f"The terrain import failed: {terrain.error_message}",
    }
    queued = queue_in_words("terrain's import", data.get("queue"))
    say = says.get(outcome, queued or f"The terrain is still importing ({terrain.status}).")
    return TerrainWait(
        outcome=outcome,
        status=terrain.status,
        terrain=terrain,
        polls=polls,
        elapsed_seconds=elapsed,
        ui_url=link,
        summary=summary,
        say_to_user=say,
    )
