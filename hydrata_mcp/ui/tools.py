"""App-only tools: the map view's data, asked for through the host with the caller's credential.

They are bound to `ui://hydrata/map` with visibility ["app"], so they stay out of the model's catalog. Their
results are small (a PNG of a few hundred pixels, geometry cut to a vertex budget), hold no signed links and no
resource links (a resource link in a result is known to break some hosts' app delivery).
"""

import base64
import functools
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ContentBlock, ImageContent, TextContent
from pydantic import BaseModel, Field
from pyproj import Transformer

from hydrata_contract import paths
from hydrata_contract.answers import tiles
from hydrata_contract.inputs import InputKind
from hydrata_contract.layers import FIRST_SHOWN
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.tools.arguments import ProjectId
from hydrata_mcp.tools.comparisons import ComparisonId
from hydrata_mcp.tools.projections import Projection
from hydrata_mcp.tools.registry import tool
from hydrata_mcp.tools.runs import RunId
from hydrata_mcp.tools.scenarios import ScenarioId
from hydrata_mcp.ui.overlay import stitched_overlay
from hydrata_mcp.ui.shapes import outline_rings, simplified_features

DEPTH_LAYER = FIRST_SHOWN
# The input kinds the map view draws.
INPUT_KINDS = tuple(
    kind.value
    for kind in (
        InputKind.BOUNDARY,
        InputKind.FRICTION,
        InputKind.INFLOW,
        InputKind.RAINFALL,
        InputKind.STRUCTURE,
        InputKind.BREAKLINE,
        InputKind.CULVERT,
        InputKind.WEIR,
        InputKind.MESH_REGION,
        InputKind.INITIAL_CONDITION,
        InputKind.SOIL,
    )
)
LABEL_PROPERTIES = frozenset(
    {"boundary", "location", "mannings", "data", "method", "resolution", "resolution_units", "name", "shape"}
    | {"stage", "depth", "initial_loss_mm", "continuing_loss_mm_h", "impervious_fraction"}
    | {"crest_elevation", "height"}
)
FEATURE_VERTICES = 1500
OUTLINE_VERTICES = 800
MAX_POINTS = 400


class LegendStop(Projection, of=tiles.LegendStop, fields=("value", "colour")):
    pass


class DepthOverlay(BaseModel):
    run_id: int
    project_id: int
    scenario_id: int
    layer: str
    title: str
    units: str
    legend: list[LegendStop]
    empty: bool = Field(description="True when nothing got wet: then there is no image.")
    bounds_wgs84: list[float] | None = Field(description="[west, south, east, north] of the image.")
    width: int | None
    height: int | None
    ui_url: str


class InputShapes(BaseModel):
    kind: str
    row_id: int
    collection: dict[str, Any]


class ScenarioLayers(BaseModel):
    project_id: int
    scenario_id: int
    layers: list[InputShapes]
    mesh_outline: list[list[list[float]]] = Field(description="Lines of [lon, lat]; empty before a build.")
    mesh_triangle_count: int | None
    bbox_wgs84: list[float] | None
    ui_url: str


class MapPoint(BaseModel):
    observation_id: int
    lon: float
    lat: float
    observed: float
    modelled: float | None
    error: float | None
    within_tolerance: bool | None
    in_model: bool


class ComparisonPoints(BaseModel):
    comparison_id: int
    run_id: int
    project_id: int
    scenario_id: int
    metrics: dict[str, Any]
    points: list[MapPoint]
    truncated: bool = Field(description="True when more points were compared than the map is sent.")
    ui_url: str


@tool(title="Map view: run depth", read_only=True, idempotent=True, app_only=True)
async def get_map_depth_overlay(ctx: Context, run_id: RunId) -> Annotated[CallToolResult, DepthOverlay]:
    """For the map view only: the maximum depth of a complete run as one PNG over the mesh's extent, with its
    bounds in WGS84, units and legend."""
    api = PlatformClient.for_context(ctx)
    run = (await api.get(paths.RUN_DETAIL.url(run_id=run_id))).data
    tiled = (await api.get(paths.RUN_TILES.url(run_id=run_id))).data["results"]
    layer = next(item for item in tiled if item["name"] == DEPTH_LAYER)
    result = DepthOverlay(
        run_id=run_id,
        project_id=run["project"],
        scenario_id=run["scenario"],
        layer=DEPTH_LAYER,
        title=layer["title"],
        units=layer["units"],
        legend=[LegendStop(**stop) for stop in layer["legend"]],
        empty=True,
        bounds_wgs84=None,
        width=None,
        height=None,
        ui_url=run["ui_url"],
    )
    images: list[ContentBlock] = []
    if not layer["empty"]:
        mesh = (await api.get(paths.SCENARIO_MESH.url(project_id=run["project"], scenario_id=run["scenario"]))).data
        west, south, east, north = mesh["bbox_wgs84"]
        overlay = await stitched_overlay(api, tile_template=layer["tiles"], bbox=(west, south, east, north))
        result = result.model_copy(
            update={
                "empty": False,
                "bounds_wgs84": overlay.bounds_wgs84,
                "width": overlay.width,
                "height": overlay.height,
            }
        )
        images.append(ImageContent(type="image", data=base64.b64encode(overlay.png).decode(), mime_type="image/png"))
    return CallToolResult(
        content=[TextContent(type="text", text=result.model_dump_json()), *images],
        structured_content=result.model_dump(mode="json"),
    )


@tool(title="Map view: scenario layers", read_only=True, idempotent=True, app_only=True)
async def get_map_scenario_layers(ctx: Context, project_id: ProjectId, scenario_id: ScenarioId) -> ScenarioLayers:
    """For the map view only: the scenario's input layers as GeoJSON (WGS84, simplified to a bounded size) and
    its built mesh's outline."""
    api = PlatformClient.for_context(ctx)
    scenario = (await api.get(paths.SCENARIO_DETAIL.url(project_id=project_id, scenario_id=scenario_id))).data
    chosen = [(kind, scenario[kind]) for kind in INPUT_KINDS if scenario.get(kind)]
    budget = FEATURE_VERTICES // max(1, len(chosen))
    layers = []
    for kind, row_id in chosen:
        collection = (
            await api.get(paths.INPUT_LAYER_FEATURES[InputKind(kind)].url(project_id=project_id, layer_id=row_id))
        ).data
        layers.append(
            InputShapes(
                kind=kind,
                row_id=row_id,
                collection=simplified_features(collection, max_vertices=budget, keep=LABEL_PROPERTIES),
            )
        )
    mesh = await api.get(paths.SCENARIO_MESH.url(project_id=project_id, scenario_id=scenario_id), allow=(409,))
    built = mesh.status == 200
    return ScenarioLayers(
        project_id=project_id,
        scenario_id=scenario_id,
        layers=layers,
        mesh_outline=outline_rings(mesh.data["outline"], max_vertices=OUTLINE_VERTICES) if built else [],
        mesh_triangle_count=mesh.data["triangle_count"] if built else None,
        bbox_wgs84=mesh.data["bbox_wgs84"] if built else None,
        ui_url=scenario["ui_url"],
    )


# Making a Transformer costs about 37 ms of CPU, here on the event loop, so one is kept per CRS. (The platform's
# twin is hydrata/compute/inputs/transformers.py, which this wing may not import.)
@functools.lru_cache(maxsize=16)
def _to_wgs84(crs: str) -> Transformer:
    return Transformer.from_crs(crs, "EPSG:4326", always_xy=True)


@tool(title="Map view: comparison points", read_only=True, idempotent=True, app_only=True)
async def get_map_comparison_points(ctx: Context, comparison_id: ComparisonId) -> ComparisonPoints:
    """For the map view only: a comparison's observation points in WGS84 with observed, modelled and error."""
    api = PlatformClient.for_context(ctx)
    comparison = (await api.get(paths.COMPARISON_DETAIL.url(comparison_id=comparison_id))).data
    to_map = _to_wgs84(comparison["crs"])
    compared = comparison["points"]
    points = []
    for point in compared[:MAX_POINTS]:
        lon, lat = to_map.transform(point["x"], point["y"])
        points.append(
            MapPoint(
                lon=round(lon, 7),
                lat=round(lat, 7),
                **{key: point.get(key) for key in MapPoint.model_fields if key not in ("lon", "lat")},
            )
        )
    return ComparisonPoints(
        comparison_id=comparison_id,
        run_id=comparison["run"],
        project_id=comparison["project"],
        scenario_id=comparison["scenario"],
        metrics=comparison["metrics"],
        points=points,
        truncated=len(compared) > MAX_POINTS,
        ui_url=comparison["ui_url"],
    )
