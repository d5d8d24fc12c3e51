"""Map tiles (XYZ PNG) of terrain and run results, readable by whoever may read the terrain or the run."""

import re

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectScopedView, RunScopedView
from hydrata.anuga.api.runs import finished_run
from hydrata.anuga.models import Run, Terrain
from hydrata.anuga.selectors.model_inputs import terrain_get
from hydrata.anuga.selectors.runs import run_get
from hydrata.anuga.selectors.tiles import (
    impact_layers,
    impact_tile,
    run_layers,
    run_tile,
    terrain_layers,
    terrain_tile,
)
from hydrata.anuga.services.run_impact import FILES, comparable, impact_prefix
from hydrata.compute.tiles import tile_address_problem
from hydrata.core.answers import sent
from hydrata.core.errors import Conflict, ValidationFailed
from hydrata.core.requests import AuthenticatedRequest
from hydrata_contract.answers.tiles import TileLayers
from hydrata_contract.errors import ErrorCode
from hydrata_contract.layers import DEPTH_FRAMES_LAYER
from hydrata_contract.states import TerrainStatus

# Private: the tiles are scoped to the caller. The rasters behind a URL never change.
CACHE_CONTROL = "private, max-age=86400"


# A whole number as the path spells it: digits, a sign, and a zero fraction ("3.0") allowed, as they always were.
ZERO_FRACTION = re.compile(r"\.0*\s*$")
LONGEST_NUMBER = 1000


def whole_number(text: str) -> int:
    """`text` as a whole number; ValueError when it is none."""
    if len(text) > LONGEST_NUMBER:
        raise ValueError(text[:20])
    return int(ZERO_FRACTION.sub("", text))


def tile_address(z: str, x: str, y: str) -> tuple[int, int, int]:
    """z/x/y as integers of the Web Mercator pyramid; anything else is a 400 saying why."""
    try:
        zoom, column, row = whole_number(z), whole_number(x), whole_number(y)
    except ValueError:
        raise ValidationFailed(
            "A tile address is three whole numbers: /<z>/<x>/<y>.png.", code=ErrorCode.INVALID_TILE
        ) from None
    problem = tile_address_problem(z=zoom, x=column, y=row)
    if problem:
        raise ValidationFailed(problem, code=ErrorCode.INVALID_TILE)
    return zoom, column, row


def frame_number(request: AuthenticatedRequest) -> int | None:
    """The `frame` query parameter (an index into the depth frames' times), if given; not a whole number is a 400."""
    text = request.query_params.get("frame")
    if text is None:
        return None
    if not text.isdigit() or len(text) > 6:
        raise ValidationFailed(f"frame must be a whole number, not {text[:20]!r}.", code=ErrorCode.INVALID_FRAME)
    return int(text)


def png(content: bytes) -> HttpResponse:
    response = HttpResponse(content, content_type="image/png")
    response["Cache-Control"] = CACHE_CONTROL
    return response


class RunTileLayersView(RunScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: TileLayers})
    def get(self, request: AuthenticatedRequest) -> Response:
        return Response(sent(run_layers(run=finished_run(self.run))))


class RunTileView(RunScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(
        operation_id="anuga_runs_tile_retrieve",
        parameters=[
            OpenApiParameter(
                "frame",
                int,
                description=f"Layer {DEPTH_FRAMES_LAYER!r} only: the index of the saved time (frames.times).",
            )
        ],
        responses={(200, "image/png"): OpenApiTypes.BINARY},
    )
    def get(self, request: AuthenticatedRequest, layer: str, z: str, x: str, y: str) -> HttpResponse:
        run = finished_run(self.run)
        zoom, column, row = tile_address(z, x, y)
        frame = frame_number(request)
        return png(run_tile(run=run, layer=layer, z=zoom, x=column, y=row, frame=frame))


class ImpactScopedView(RunScopedView):
    """The impact map of another run against this one: both finished, both the caller's to read, in one project."""

    def runs(self, request: AuthenticatedRequest, other_run_id: int) -> tuple[Run, Run, str]:
        other = comparable(self.run, run_get(user=request.user, run_id=other_run_id))  # 404 before 409, as the impact
        run, other = finished_run(self.run), finished_run(other)
        return run, other, impact_prefix(run=run, other=other)


class RunImpactTileLayersView(ImpactScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: TileLayers})
    def get(self, request: AuthenticatedRequest, other_run_id: int) -> Response:
        run, other, prefix = self.runs(request, other_run_id)
        return Response(sent(impact_layers(run=run, other=other, prefix=prefix, files=FILES)))


class RunImpactTileView(ImpactScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(operation_id="anuga_runs_impact_tile_retrieve", responses={(200, "image/png"): OpenApiTypes.BINARY})
    def get(self, request: AuthenticatedRequest, other_run_id: int, layer: str, z: str, x: str, y: str) -> HttpResponse:
        zoom, column, row = tile_address(z, x, y)
        run, other, prefix = self.runs(request, other_run_id)
        return png(impact_tile(run=run, other=other, prefix=prefix, files=FILES, layer=layer, z=zoom, x=column, y=row))


class ReadyTerrainView(ProjectScopedView):
    def ready_terrain(self, terrain_id: int) -> Terrain:
        terrain = terrain_get(project=self.project, terrain_id=terrain_id)
        if terrain.status != TerrainStatus.READY or not terrain.dem_key:
            raise Conflict(
                f"Terrain {terrain.pk} is not ready yet (status {terrain.status}).",
                code=ErrorCode.TERRAIN_NOT_READY,
                status=terrain.status,
            )
        return terrain


class TerrainTileLayersView(ReadyTerrainView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: TileLayers})
    def get(self, request: AuthenticatedRequest, terrain_id: int) -> Response:
        terrain = self.ready_terrain(terrain_id)
        return Response(sent(terrain_layers(terrain=terrain)))


class TerrainTileView(ReadyTerrainView):
    grant_levels = {"GET": "read"}

    @extend_schema(
        operation_id="anuga_projects_terrain_tile_retrieve", responses={(200, "image/png"): OpenApiTypes.BINARY}
    )
    def get(self, request: AuthenticatedRequest, terrain_id: int, style: str, z: str, x: str, y: str) -> HttpResponse:
        terrain = self.ready_terrain(terrain_id)
        zoom, column, row = tile_address(z, x, y)
        return png(terrain_tile(terrain=terrain, style=style, z=zoom, x=column, y=row))
