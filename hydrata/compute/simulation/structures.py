"""Buildings and the lines the mesh follows, as the mesh and the solver honour them (the site as built, issue 46).

A `structure` polygon is modelled by its `method`:
  Reflective  a hole in the mesh whose outline is a wall (compute/simulation/mesh.py: no triangle inside, edges tagged
              Reflective, ANUGA's Reflective_boundary);
  Raised      the ground of every triangle whose centroid is inside raised by `height` m (default 3);
  Mannings    Manning's n of those triangles set to `mannings` (over the friction layer).
`breakline` and `weir` lines are edges of the mesh (weirs are then ANUGA riverwalls, compute/simulation/weirs.py).
Nothing here imports Django; the platform's build and the simulation child read the same functions."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry import shape

from hydrata.compute.errors import ModelGeometryError
from hydrata.compute.inputs.site_rules import DEFAULT_RAISED_HEIGHT_M
from hydrata.compute.spatial.geometry import Point, feature_name
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
    from hydrata.compute.scenario.package import PackageError
    from hydrata.compute.simulation.forcing import polygon_mask

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


def site_problem_check(
    *,
    model: shapely.Polygon,
    structures: list[dict],
    culverts: list[dict],
    gauges: list[dict],
    inflows: list[dict],
    flow_lines: list[dict],
) -> None:
    """What the site's layers ask that the model cannot hold, refused before a build (SITE_FEATURE_INVALID): a
    culvert end outside the model, a culvert named as a flow line (their series share names), a hole that cuts the
    boundary or swallows a gauge, an inflow line, a flow line or a culvert's end."""
    from hydrata.compute.inputs.site_rules import culvert_of

    line_names = {str((feature.get("properties") or {}).get("name") or "").strip() for feature in flow_lines}
    ends: list[Obstacle] = []
    for index, feature in enumerate(culverts):
        culvert = culvert_of(feature)
        for end, point in (("inlet", culvert.inlet), ("outlet", culvert.outlet)):
            if not model.contains(shapely.Point(point)):
                raise ModelGeometryError(
                    ErrorCode.SITE_FEATURE_INVALID,
                    f"Culvert {culvert.name!r} ({feature_name(index, feature)}) has its {end} at "
                    f"({point[0]:.3f}, {point[1]:.3f}), outside the model boundary; draw it from inlet to outlet "
                    "inside the model.",
                    name=culvert.name,
                )
            ends.append(Obstacle(f"the {end} of culvert {culvert.name!r}", shapely.Point(point)))
        if culvert.name in line_names:
            raise ModelGeometryError(
                ErrorCode.SITE_FEATURE_INVALID,
                f"Culvert {culvert.name!r} ({feature_name(index, feature)}) has the name of a flow line; a culvert's "
                "discharge is a series by its name, so give it its own.",
                name=culvert.name,
            )
    obstacles = [
        *(Obstacle(f"gauge {_named(f)}", shape(f["geometry"])) for f in gauges),
        *(Obstacle(f"inflow line {index}", shape(f["geometry"])) for index, f in enumerate(inflows)),
        *(Obstacle(f"flow line {_named(f)}", shape(f["geometry"])) for f in flow_lines),
        *ends,
    ]
    holes_problem(holes_of=structures, model=model, obstacles=obstacles)


def _named(feature: dict) -> str:
    return repr(str((feature.get("properties") or {}).get("name") or ""))
