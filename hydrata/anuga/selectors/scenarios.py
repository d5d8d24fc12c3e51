"""Reads of scenarios: their runs, their geometry, and the estimate of what building and running will cost."""

from dataclasses import dataclass, field
from typing import Any

import shapely
from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import QuerySet

from hydrata.anuga.models import InputLayer, Project, Run, Scenario, TimeSeries
from hydrata.anuga.selectors.projects import projects_visible_to
from hydrata.compute.costs.estimate import mesh_estimate
from hydrata.compute.costs.pricing import compute_cost_estimate, vcpu_hours_estimate
from hydrata.compute.errors import ModelGeometryError
from hydrata.compute.scenario.package import SeriesRecord
from hydrata.compute.simulation.forcing import forcing_applied, layer_forcing
from hydrata.compute.simulation.structures import mesh_holes
from hydrata.compute.spatial.geometry import BoundaryRing, MeshRegion, boundary_ring, features_in_crs, mesh_regions
from hydrata.core.errors import NotFound
from hydrata.uploads.selectors import dataset_features
from hydrata_contract.errors import ErrorCode
from hydrata_contract.states import RunStatus


def scenarios_of(*, project: Project) -> QuerySet[Scenario]:
    return project.scenarios.all()  # each scenario's .project is this one: no query per answer


def scenario_get(*, project: Project, scenario_id: int) -> Scenario:
    scenario = scenarios_of(project=project).filter(pk=scenario_id).first()
    if scenario is None:
        raise NotFound(f"Project {project.pk} has no scenario {scenario_id}.", code=ErrorCode.SCENARIO_NOT_FOUND)
    return scenario


def scenario_get_visible(*, user: User, scenario_id: int) -> Scenario:
    """A scenario of any project the caller may see (the route names no project); anything else is 404."""
    scenario = (
        Scenario.objects.filter(pk=scenario_id, project__in=projects_visible_to(user=user))
        .select_related("project")
        .first()
    )
    if scenario is None:
        raise NotFound(
            f"Scenario {scenario_id} does not exist or is not visible to this caller.",
            code=ErrorCode.SCENARIO_NOT_FOUND,
        )
    return scenario


def latest_run(*, scenario: Scenario) -> Run | None:
    return scenario.runs.filter(study_member=False).order_by("-created_at", "-id").first()


def computed_status(*, run: Run | None) -> str:
    return run.status if run is not None else RunStatus.CREATED


def layer_features(*, layer: InputLayer | None, crs: str) -> list[dict[str, Any]]:
    """A row's features in the project CRS; none for an empty row."""
    if layer is None or layer.dataset is None:
        return []
    return features_in_crs(dataset_features(dataset=layer.dataset), target_crs=crs)


@dataclass(frozen=True)
class ModelGeometry:
    ring: BoundaryRing
    regions: list[MeshRegion] = field(default_factory=list)
    holes: list[shapely.Polygon] = field(default_factory=list)  # Reflective structures: no triangle inside


def scenario_geometry(*, scenario: Scenario) -> ModelGeometry:
    """The boundary ring and mesh regions, read the same way by the estimate and the mesher."""
    crs = scenario.project.projection
    ring = boundary_ring(layer_features(layer=scenario.boundary, crs=crs))
    regions = mesh_regions(layer_features(layer=scenario.mesh_region, crs=crs), within=ring.polygon())
    holes = mesh_holes(layer_features(layer=scenario.structure, crs=crs))
    return ModelGeometry(ring=ring, regions=regions, holes=holes)


def scenario_finest_resolution(*, scenario: Scenario, resolution: float) -> float:
    """The resolution of the mesh's smallest triangles, which sets its time step; `resolution` (the base) when the
    geometry cannot be read."""
    try:
        geometry = scenario_geometry(scenario=scenario)
    except ModelGeometryError:
        return resolution
    return mesh_estimate(ring=geometry.ring, regions=geometry.regions, resolution=resolution).finest_resolution_m


def scenario_estimate(*, scenario: Scenario) -> dict[str, Any]:
    """Triangles, vCPU-hours and price; when the geometry cannot be read, nulls and the reason."""
    try:
        geometry = scenario_geometry(scenario=scenario)
    except ModelGeometryError as problem:
        return {
            "mesh_triangle_count_estimate": None,
            "mesh_estimate_breakdown": [],
            "mesh_estimate_problem": {"code": problem.code, "detail": problem.message},
            "mesh_estimate_warnings": [],
            "vcpu_hours_estimate": None,
            "compute_cost_estimate": None,
        }
    estimate = mesh_estimate(
        ring=geometry.ring, regions=geometry.regions, resolution=scenario.resolution, holes=geometry.holes
    )
    hours = vcpu_hours_estimate(
        triangles=estimate.triangles, duration=scenario.duration, finest_resolution=estimate.finest_resolution_m
    )
    return {
        "mesh_triangle_count_estimate": estimate.triangles,
        "mesh_estimate_breakdown": estimate.breakdown,
        "mesh_estimate_problem": None,
        "mesh_estimate_warnings": estimate_warnings(
            scenario=scenario, triangles=estimate.triangles, finest_resolution=estimate.finest_resolution_m
        ),
        "vcpu_hours_estimate": hours,
        "compute_cost_estimate": str(
            compute_cost_estimate(vcpu_hours=hours, usd_per_vcpu_hour=settings.HYDRATA_COMPUTE_USD_PER_VCPU_HOUR)
        ),
    }


def _series_named(*, project_id: int, features: list[dict[str, Any]]) -> dict[str, SeriesRecord]:
    """The project's time series that the features' `data` name, with their rows and units."""
    named = {str((feature.get("properties") or {}).get("data") or "").strip() for feature in features}
    return {
        row.name: SeriesRecord(rows=row.rows, units=row.units)
        for row in TimeSeries.objects.filter(project_id=project_id, name__in=named)
    }


def input_layer_forcing(*, layer: InputLayer) -> dict[str, Any] | None:
    """What a rainfall or inflow row's features apply on their own (compute/simulation/forcing.py `layer_forcing`); None
    for other kinds."""
    use = {"rainfall": "rain", "inflow": "flow"}.get(layer.kind)
    if use is None:
        return None
    features = layer_features(layer=layer, crs=layer.project.projection)
    return layer_forcing(features, series=_series_named(project_id=layer.project_id, features=features), use=use)


def scenario_forcing(*, scenario: Scenario) -> dict[str, Any]:
    """What the scenario's rainfall and inflow apply over its run, as the simulation will apply them (each series in
    its units, from the scenario's model_start or, without one, the series' first instant, to its duration): see
    compute/simulation/forcing.py `forcing_applied`."""
    crs = scenario.project.projection
    rainfall = layer_features(layer=scenario.rainfall, crs=crs)
    inflow = layer_features(layer=scenario.inflow, crs=crs)
    series = _series_named(project_id=scenario.project_id, features=[*rainfall, *inflow])
    return forcing_applied(
        rainfall=rainfall, inflow=inflow, series=series, start=scenario.model_start, duration=float(scenario.duration)
    )


def mesh_too_large(*, triangles: int) -> str | None:
    """Why a mesh of `triangles` cannot be built, or None: the one wording of the estimate and the build."""
    ceiling = settings.HYDRATA_MESH_MAX_TRIANGLES
    if triangles <= ceiling:
        return None
    return (
        f"The mesh would have about {triangles:,} triangles, above the limit of {ceiling:,}. Use a coarser "
        "resolution or smaller fine mesh regions."
    )


def estimate_warnings(*, scenario: Scenario, triangles: int, finest_resolution: float) -> list[dict[str, str]]:
    """What the engineer should hear before being asked to approve a price: a mesh the build will refuse, and
    triangles finer than the terrain's cells (they cost time, and the ground they sample has no more detail)."""
    warnings = []
    too_large = mesh_too_large(triangles=triangles)
    if too_large:
        warnings.append({"code": ErrorCode.MESH_TOO_LARGE, "detail": too_large + " It cannot be built as it is."})
    terrain = scenario.terrain
    cells = [size for size in (terrain.resolution_x, terrain.resolution_y) if size] if terrain else []
    if cells and finest_resolution < max(cells):
        warnings.append(
            {
                "code": ErrorCode.RESOLUTION_FINER_THAN_TERRAIN,
                "detail": f"The finest triangles (about {finest_resolution:.3g} m) are finer than the terrain's "
                f"{max(cells):.3g} m cells: they cost run time but sample no more detail of the ground. Use a "
                f"resolution of {max(cells):.3g} m or more, or a finer terrain.",
            }
        )
    return warnings
