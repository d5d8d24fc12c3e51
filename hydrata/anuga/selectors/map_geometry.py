"""What the map draws as vectors, in WGS84: an input row's features and a scenario's built mesh. The project was
resolved through the caller's visibility before these are called."""

from typing import Any

import numpy as np
from django.conf import settings

from hydrata.anuga.models import InputLayer, Run, Scenario
from hydrata.anuga.selectors.scenarios import latest_run, layer_features
from hydrata.compute.mesh import MeshGeometry, mesh_edges, mesh_outline, mesh_read, triangles_within
from hydrata.compute.transformers import transformer_between
from hydrata.core.errors import Conflict
from hydrata.storage import get_storage
from hydrata_contract.answers.inputs import LayerFeatures
from hydrata_contract.answers.scenarios import ScenarioMesh
from hydrata_contract.errors import ErrorCode
from hydrata_contract.inputs import InputKind

WGS84 = "EPSG:4326"
DECIMALS = 7  # about a centimetre


def input_layer_features(*, layer: InputLayer) -> LayerFeatures:
    return LayerFeatures(
        type="FeatureCollection",
        kind=InputKind(layer.kind),
        layer=layer.pk,
        feature_count=layer.feature_count,
        bbox_wgs84=layer.bbox_wgs84,
        features=layer_features(layer=layer, crs=WGS84),
    )


def built_run(*, scenario: Scenario) -> Run:
    """The scenario's latest run that has a built package; 409 when it was never built."""
    run = scenario.runs.filter(study_member=False).exclude(package_prefix="").order_by("-created_at", "-id").first()
    if run is None:
        raise Conflict(
            f"Scenario {scenario.pk} has not been built yet, so it has no mesh. Build it first.",
            code=ErrorCode.SCENARIO_NOT_BUILT,
        )
    return run


def scenario_mesh(*, scenario: Scenario, bounds_wgs84: tuple[float, float, float, float] | None) -> ScenarioMesh:
    """The mesh's outline, and with `bounds_wgs84` the triangles in that window as nodes and edges (none, and
    `truncated`, when more than HYDRATA_MESH_VIEW_MAX_TRIANGLES reach into it: the map asks again zoomed in)."""
    run = built_run(scenario=scenario)
    with get_storage().local_path(key=f"{run.package_prefix}/mesh.msh") as path:
        mesh = mesh_read(path)
    to_map = transformer_between(scenario.project.projection, WGS84)
    nodes = np.column_stack(to_map.transform(mesh.nodes[:, 0], mesh.nodes[:, 1])).round(DECIMALS)
    outline = mesh_outline(mesh.triangles)
    current = run == latest_run(scenario=scenario) and scenario.latest_run_is_valid
    answer: dict[str, Any] = {
        "scenario": scenario.pk,
        "run": run.pk,
        "current": current,
        "triangle_count": len(mesh.triangles),
        "bbox_wgs84": [*nodes.min(axis=0).tolist(), *nodes.max(axis=0).tolist()],
        "outline": nodes[outline].tolist(),
    }
    if bounds_wgs84 is not None:
        answer["view"] = _view(MeshGeometry(nodes=nodes, triangles=mesh.triangles), bounds_wgs84)
    return ScenarioMesh.model_validate(answer)


def _view(mesh: MeshGeometry, bounds: tuple[float, float, float, float]) -> dict[str, Any]:
    chosen = triangles_within(mesh, bounds=bounds)
    limit = settings.HYDRATA_MESH_VIEW_MAX_TRIANGLES
    if len(chosen) > limit:
        return {"triangle_count": len(chosen), "truncated": True, "limit": limit, "edges": []}
    edges, _ = mesh_edges(mesh.triangles[chosen])
    return {"triangle_count": len(chosen), "truncated": False, "limit": limit, "edges": mesh.nodes[edges].tolist()}
