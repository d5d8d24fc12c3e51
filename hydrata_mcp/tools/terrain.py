from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from hydrata_contract import paths
from hydrata_contract.answers.terrain import Terrain, TerrainPage, TerrainPresign
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
from hydrata_mcp.tools.projections import Projection, argument
from hydrata_mcp.tools.registry import tool

TERMINAL = (TerrainStatus.READY, TerrainStatus.ERROR)


class TerrainRecord(
    Projection,
    of=Terrain,
    fields=(
        *("id", "title", "status", "error_message", "native_crs", "crs", "reprojected", "width", "height"),
        *("resolution", "bbox_wgs84", "elevation_min", "elevation_max", "nodata_fraction", "created_at"),
        "updated_at",
    ),
):
    """The contract's terrain without its links, queue and native bbox."""


class PresignedUpload(Projection, of=TerrainPresign, fields=("upload_url", "staging_key", "process_id", "expires_in")):
    content_type: str = Field(description="The exact Content-Type header the PUT must send.")
    next_step: str


class FinalizedTerrain(HandBack, Projection, of=Terrain, fields=("id", "status")):
    """The terrain whose import started; get_terrain waits for it."""


class TerrainWait(HandBack):
    outcome: str = Field(description="ready, error, timed_out (call again with the same arguments) or not_found.")
    status: TerrainStatus | None
    terrain: TerrainRecord | None
    polls: int
    elapsed_seconds: float


@tool(title="Get a terrain upload URL", relied_on=("upload_url", "staging_key", "process_id", "expires_in"))
async def presign_terrain_upload(
    ctx: Context,
    project_id: ProjectId,
    filename: Annotated[str, argument(TerrainUploadPresign, "filename", "The DEM's file name, e.g. dem.tif.")],
    content_type: Annotated[
        str, argument(TerrainUploadPresign, "content_type", "The PUT's Content-Type.")
    ] = "image/tiff",
    size: Annotated[int | None, argument(TerrainUploadPresign, "size", "Bytes; over 5 GiB is refused.")] = None,
) -> PresignedUpload:
    """A signed URL to PUT a terrain GeoTIFF (DEM) to, with exactly the returned content_type; then
    finalize_terrain_upload."""
    api = PlatformClient.for_context(ctx)
    response = await api.post(
        paths.TERRAIN_PRESIGN.url(project_id=project_id),
        json=body(TerrainUploadPresign, filename=filename, content_type=content_type, size=size),
    )
    slot = TerrainPresign.model_validate(response.data)
    content_type = slot.headers["Content-Type"]
    return PresignedUpload.from_answer(
        slot,
        content_type=content_type,
        next_step=f"PUT the file to upload_url with header 'Content-Type: {content_type}', "
        "then call finalize_terrain_upload with staging_key and process_id.",
    )


@tool(title="Finish a terrain upload", relied_on=("id", "status"))
async def finalize_terrain_upload(
    ctx: Context,
    project_id: ProjectId,
    staging_key: Annotated[str, argument(TerrainUploadFinalize, "staging_key", "From presign_terrain_upload.")],
    process_id: Annotated[str, argument(TerrainUploadFinalize, "process_id", "From presign_terrain_upload.")] = "",
    title: Annotated[str, argument(TerrainUploadFinalize, "title", "Default: the file name.")] = "",
) -> FinalizedTerrain:
    """Start importing the terrain file you PUT; get_terrain waits for it. Once ready, the project has its default
    input rows."""
    api = PlatformClient.for_context(ctx)
    response = await api.post(
        paths.TERRAIN_FINALIZE.url(project_id=project_id),
        json=body(TerrainUploadFinalize, staging_key=staging_key, process_id=process_id, title=title),
    )
    terrain = Terrain.model_validate(response.data)
    return FinalizedTerrain.from_answer(
        terrain,
        summary={"terrain_id": terrain.id, "title": terrain.title, "status": terrain.status},
        say_to_user=f"The terrain '{terrain.title}' is uploaded and importing; it will appear here: {terrain.ui_url}",
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
    """Read a project's terrain, waiting while it imports; outcome ready, error, timed_out or not_found. Summary:
    WGS84 bbox, elevation range, nodata fraction, native CRS."""
    api = PlatformClient.for_context(ctx)
    # Where the terrain panel is, from the platform's last answer: a page of terrain, or its refusal of a terrain
    # the project does not have, carries that link even when there is no terrain to describe.
    panel = {"ui_url": ""}

    async def read() -> Terrain | None:
        if terrain_id is None:
            page = TerrainPage.model_validate((await api.get(paths.TERRAIN_LIST.url(project_id=project_id))).data)
            panel["ui_url"] = page.ui_url
            return page.results[0] if page.results else None
        response = await api.get(paths.TERRAIN_DETAIL.url(project_id=project_id, terrain_id=terrain_id), allow=(404,))
        if response.status == 404 and response.data.get("code") != ErrorCode.TERRAIN_NOT_FOUND:
            raise refusal_error(response.status, response.data)
        if response.status == 404:
            panel["ui_url"] = response.data["ui_url"]
            return None
        return Terrain.model_validate(response.data)

    waited = await wait_for(
        ctx,
        read=read,
        finished=lambda t: t is None or t.status in TERMINAL,
        describe=lambda t: queue_in_words("terrain's import", _queue(t)) or f"terrain {t.status if t else 'missing'}",
        timeout_seconds=timeout_seconds,
        poll_interval_seconds=poll_interval_seconds,
    )
    return _terrain_wait(waited.value, waited.polls, waited.elapsed_seconds, panel["ui_url"])


def _queue(terrain: Terrain | None) -> dict[str, Any] | None:
    return terrain.queue.model_dump() if terrain is not None and terrain.queue is not None else None


def _terrain_wait(terrain: Terrain | None, polls: int, elapsed: float, panel_url: str) -> TerrainWait:
    if terrain is None:
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
    link = terrain.ui_url
    says: dict[str, str] = {
        TerrainStatus.READY: f"The terrain is ready: elevations {terrain.elevation_min} to {terrain.elevation_max} m, "
        f"{(terrain.nodata_fraction or 0) * 100:.1f}% without data. Check it in the map: {link}",
        TerrainStatus.ERROR: f"The terrain import failed: {terrain.error_message}",
    }
    queued = queue_in_words("terrain's import", _queue(terrain))
    say = says.get(outcome, queued or f"The terrain is still importing ({terrain.status}).")
    return TerrainWait(
        outcome=outcome,
        status=terrain.status,
        terrain=TerrainRecord.from_answer(terrain),
        polls=polls,
        elapsed_seconds=elapsed,
        ui_url=link,
        summary=summary,
        say_to_user=say,
    )
