"""What makes an observation usable (its CRS is checked by hydrata.core.projections): a place in the project CRS
inside the terrain, a finite value and a positive tolerance. Each problem is a (code, message) pair; a single
write raises it, an import lists it per row."""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pyproj.exceptions import ProjError

from hydrata.anuga.models import Project, Terrain
from hydrata.compute.inputs.transformers import transformer_between
from hydrata.core.errors import ValidationFailed
from hydrata_contract.errors import ErrorCode
from hydrata_contract.observations import Quantity
from hydrata_contract.states import TerrainStatus

Problem = tuple[ErrorCode, str]


@dataclass(frozen=True)
class Extent:
    west: float
    south: float
    east: float
    north: float

    def contains(self, x: float, y: float) -> bool:
        return self.west <= x <= self.east and self.south <= y <= self.north

    def describe(self) -> str:
        return f"x {self.west:.1f} to {self.east:.1f}, y {self.south:.1f} to {self.north:.1f}"


def to_project_crs(*, project: Project, crs: str, points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The points (x, y; longitude first for geographic CRSs) in the project CRS; inf where they cannot go."""
    if not points:
        return []
    transformer = transformer_between(crs, project.projection)
    try:
        xs, ys = transformer.transform([p[0] for p in points], [p[1] for p in points], errcheck=False)
    except ProjError:
        return [(math.inf, math.inf)] * len(points)
    return list(zip((float(x) for x in xs), (float(y) for y in ys), strict=True))


def points_wgs84(*, project: Project, points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The points of the project CRS as (longitude, latitude), to 7 decimals (about a centimetre)."""
    if not points:
        return []
    transformer = transformer_between(project.projection, "EPSG:4326")
    lons, lats = transformer.transform([p[0] for p in points], [p[1] for p in points])
    return [(round(float(lon), 7), round(float(lat), 7)) for lon, lat in zip(lons, lats, strict=True)]


def bbox_wgs84(*, project: Project, points: Sequence[tuple[float, float]]) -> list[float] | None:
    """[west, south, east, north] in longitude/latitude of points in the project CRS; None for no points."""
    places = points_wgs84(project=project, points=points)
    if not places:
        return None
    lons, lats = [place[0] for place in places], [place[1] for place in places]
    return [min(lons), min(lats), max(lons), max(lats)]


def terrain_extent(*, project: Project) -> Extent | None:
    """The extent of the project's newest ready terrain (in the project CRS), None while it has none."""
    terrain = (
        Terrain.objects.filter(project=project, status=TerrainStatus.READY, bbox_native__isnull=False)
        .order_by("-created_at", "-id")
        .first()
    )
    if terrain is None or terrain.bbox_native is None:
        return None
    west, south, east, north = terrain.bbox_native
    return Extent(west=west, south=south, east=east, north=north)


def place_problem(x: float, y: float, *, crs: str, extent: Extent | None) -> Problem | None:
    if not (math.isfinite(x) and math.isfinite(y)):
        return (
            ErrorCode.POINT_NOT_IN_CRS,
            f"the point cannot be placed in the project CRS from {crs}: check that its "
            "coordinates are in that CRS (longitude first for EPSG:4326)",
        )
    if extent is not None and not extent.contains(x, y):
        return (
            ErrorCode.OUTSIDE_TERRAIN,
            f"the point ({x:.1f}, {y:.1f}) is outside the project's terrain "
            f"({extent.describe()}); check its coordinates and CRS",
        )
    return None


def value_problem(*, quantity: str, value: float | None, tolerance: float | None) -> Problem | None:
    if value is None or not math.isfinite(value):
        return (ErrorCode.VALUE_NOT_FINITE, f"the value must be a finite number of metres, not {value!r}")
    if quantity == Quantity.PEAK_DEPTH and value < 0:
        return (
            ErrorCode.NEGATIVE_DEPTH,
            f"a peak depth cannot be negative ({value} m); a water level belongs in peak_stage",
        )
    if tolerance is None or not math.isfinite(tolerance) or tolerance <= 0:
        return (
            ErrorCode.INVALID_TOLERANCE,
            f"the tolerance must be a positive number of metres (e.g. 0.3), not {tolerance!r}",
        )
    return None


def refuse(problem: Problem | None) -> None:
    if problem is not None:
        code, message = problem
        raise ValidationFailed(message[0].upper() + message[1:] + ".", code=code)
