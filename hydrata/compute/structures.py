"""Buildings and the lines the mesh follows, as the mesh and the solver honour them (the site as built, issue 46).

A `structure` polygon is modelled by its `method`:
  Reflective  a hole in the mesh whose outline is a wall (compute/mesh.py: no triangle inside, edges tagged
              Reflective, ANUGA's Reflective_boundary);
  Raised      the ground of every triangle whose centroid is inside raised by `height` m (default 3);
  Mannings    Manning's n of those triangles set to `mannings` (over the friction layer).
`breakline` and `weir` lines are edges of the mesh (weirs are then ANUGA riverwalls, compute/weirs.py).
Nothing here imports Django; the platform's build and the simulation child read the same functions."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry import shape

from hydrata.compute.errors import ModelGeometryError
from hydrata.compute.geometry import Point, feature_name
from hydrata.compute.site_rules import DEFAULT_RAISED_HEIGHT_M
from hydrata_contract.errors import ErrorCode
from hydrata_contract.inputs import StructureMethod

Log = Callable[[str], None]


def _polygon(feature: dict) -> shapely.Geometry:
    geometry = shapely.force_2d(shape(feature["geometry"]))
    return geometry if geometry.is_valid else shapely.make_valid(geometry)


def _method(feature: dict) -> str:
    return str((feature.get("properties") or {}).get("method") or "")


def mesh_holes(structures: list[dict]) -> list[shapely.Polygon]:
    """The Reflective structures' polygons, the holes of the mesh."""
    holes: list[shapely.Polygon] = []
    for feature in structures:
        if _method(feature) == StructureMethod.REFLECTIVE:
            holes += [part for part in shapely.get_parts(_polygon(feature)) if isinstance(part, shapely.Polygon)]
    return holes


def _line_parts(feature: dict) -> list[list[Point]]:
    geometry = shapely.force_2d(shape(feature["geometry"]))
    return [[(float(x), float(y)) for x, y in part.coords] for part in shapely.get_parts(geometry) if part.length > 0]


def site_breaklines(*, breaklines: list[dict], weirs: list[dict]) -> list[list[Point]]:
    """The lines the mesh must follow: the breaklines and the weirs (a riverwall lies on mesh edges)."""
    return [line for feature in [*breaklines, *weirs] for line in _line_parts(feature)]


@dataclass(frozen=True)
class Obstacle:
    """Something a hole must leave in the model: a gauge, an inflow line, a culvert's end, a flow line."""

    what: str
    geometry: shapely.Geometry


def holes_problem(*, holes_of: list[dict], model: shapely.Polygon, obstacles: list[Obstacle]) -> None:
    """Refuse (STRUCTURE_INVALID) a Reflective structure that cuts the model's boundary or swallows something the
    run needs: the hole would take it out of the mesh."""
    for index, feature in enumerate(holes_of):
        if _method(feature) != StructureMethod.REFLECTIVE:
            continue
        polygon = _polygon(feature)
        name = f"Structure {feature_name(index, feature)}"
        if not model.contains(polygon) or polygon.boundary.intersects(model.exterior):
            raise ModelGeometryError(
                ErrorCode.SITE_FEATURE_INVALID,
                f"{name} is Reflective (a hole in the mesh) but is not wholly inside the model boundary; move it "
                "inside, or clip it, or model it as Raised.",
                feature_index=index,
                feature_id=feature.get("id"),
            )
        for obstacle in obstacles:
            if polygon.intersects(obstacle.geometry):
                raise ModelGeometryError(
                    ErrorCode.SITE_FEATURE_INVALID,
                    f"{name} is Reflective (a hole in the mesh) and swallows {obstacle.what}; move one of them.",
                    feature_index=index,
                    feature_id=feature.get("id"),
                )


def apply_structures(domain: Any, structures: list[dict], *, xy: np.ndarray, log: Log) -> None:
    """Raise the ground under Raised structures and set Manning's n under Mannings ones (centroid values, after
    the terrain and friction layer are set); check that the mesh has no triangle inside a Reflective one."""
    from hydrata.compute.forcing import polygon_mask
    from hydrata.compute.package import PackageError

    elevation = domain.quantities["elevation"].centroid_values.copy()
    friction = domain.quantities["friction"].centroid_values.copy()
    counts = dict.fromkeys(StructureMethod.values(), 0)
    for index, feature in enumerate(structures):
        properties = feature.get("properties") or {}
        method = _method(feature)
        inside = polygon_mask(_polygon(feature), xy)
        if method == StructureMethod.REFLECTIVE:
            if inside.any():
                raise PackageError(
                    f"Structure {feature_name(index, feature)} is Reflective but the mesh has {int(inside.sum())} "
                    "triangles inside it: the mesh was not built with its hole. Build the scenario again."
                )
        elif method == StructureMethod.RAISED:
            height = properties.get("height")
            elevation[inside] += DEFAULT_RAISED_HEIGHT_M if height in (None, "") else float(height)
        elif method == StructureMethod.MANNINGS:
            friction[inside] = float(properties["mannings"])
        else:
            raise PackageError(
                f"Structure {feature_name(index, feature)} has method={method!r}; it must be one of "
                f"{', '.join(StructureMethod.values())}."
            )
        counts[method] += 1
    if structures:
        domain.set_quantity("elevation", elevation, location="centroids")
        domain.set_quantity("friction", friction, location="centroids")
        log("Structures: " + ", ".join(f"{count} {method}" for method, count in counts.items()) + ".")
