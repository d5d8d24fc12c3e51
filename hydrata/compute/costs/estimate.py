"""How many triangles ANUGA's mesh generator (Triangle, minimum angle 28°) will make, before it is run.

The bulk is area / maximum triangle area times a constant. Three edge effects are added, each the excess
triangles Triangle puts beside a kind of edge, with its own constant:

- the boundary: a little refinement along the outer ring (`BOUNDARY_TRIANGLES`, per resolution length);
- a change of resolution across a mesh-region outline: the coarse side grades down to the fine size over a band
  whose triangles number `TRANSITION_TRIANGLES` × L / h_fine × (1 − h_fine / h_coarse)² for an outline of
  length L (a size that grows linearly with distance from the edge gives this form);
- edges shorter than the resolution beside them (densely digitised boundaries or outlines): each forces
  triangles of its own size, `SHORT_EDGE_TRIANGLES` × (1 − length / h)² per edge and side.

Calibration (this machine, anuga 4.2; rerun with `.venv/bin/python benchmarks/estimate.py --calibrate`):
125 meshes built with `mesh_build`: rectangles of 20-400 m, a 64-vertex circle, an L shape and the small_test
and merewether boundaries at 1-10 m; rectangles and both data sets with a central region (a quarter or a
sixteenth of the area) at 1/2, 1/4 and 1/10 of the resolution; a region clipped by the boundary, a circular
region, nested regions, a coarser region and two crossing regions; boundaries digitised every 1-3 m meshed at
5-10 m. TRIANGLES_PER_MAX_AREA is the mean count / (area / max area) of the plain meshes of 100 k+ triangles
(1.538, each within 0.3%); the three edge constants are then a least-squares fit of the relative error of the
meshes of 100+ triangles (fitted 0.145, 5.05 and 3.97). With the rounded values below the worst of those 120
meshes is 5.1% off. Below about 100 triangles a mesh is a handful of triangles and the ratio means little (a
20 m square at 10 m has 8).
"""

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hydrata.compute.spatial.geometry import BoundaryRing, MeshRegion
from hydrata.compute.spatial.planar import planar_graph

if TYPE_CHECKING:
    import shapely

TRIANGLES_PER_MAX_AREA: float = 1.54
BOUNDARY_TRIANGLES: float = 0.15
TRANSITION_TRIANGLES: float = 5.0
SHORT_EDGE_TRIANGLES: float = 4.0

BASE = "base"


@dataclass(frozen=True)
class MeshEstimate:
    triangles: int
    # one row per part: {"region": "base" | region.name, "area_m2", "resolution_m", "max_triangle_area_m2",
    # "triangles"}; the triangles add up to the total
    breakdown: list[dict]

    @property
    def finest_resolution_m(self) -> float:
        """The resolution of the smallest triangles: ANUGA's one time step, which every triangle takes, follows it."""
        meshed = [row["resolution_m"] for row in self.breakdown if row["triangles"] > 0]
        return min(meshed, default=self.breakdown[0]["resolution_m"])


def mesh_estimate(
    *, ring: BoundaryRing, regions: list[MeshRegion], resolution: float, holes: Sequence["shapely.Polygon"] = ()
) -> MeshEstimate:
    """The triangle count of `mesh_build` with the same arguments (within ±10% where measured); the holes of
    Reflective structures hold none, their walls count as a boundary."""
    terms = estimate_terms(ring=ring, regions=regions, resolution=resolution, holes=holes)
    weights = {
        "area": TRIANGLES_PER_MAX_AREA,
        "boundary": BOUNDARY_TRIANGLES,
        "transition": TRANSITION_TRIANGLES,
        "short_edge": SHORT_EDGE_TRIANGLES,
    }
    base_max_area = resolution**2 / 2
    breakdown: list[dict[str, Any]] = []
    for zone in [-1, *range(len(regions))]:
        part = terms[zone]
        max_area = base_max_area if zone < 0 else regions[zone].max_triangle_area
        breakdown.append(
            {
                "region": BASE if zone < 0 else regions[zone].name,
                "area_m2": round(part["area_m2"], 3),
                "resolution_m": resolution if zone < 0 else regions[zone].resolution_m,
                "max_triangle_area_m2": max_area,
                "triangles": round(sum(weight * part[name] for name, weight in weights.items())),
            }
        )
    # A polygon of n vertices needs n - 2 triangles however coarse the resolution.
    shortfall = len(ring.points) - 2 - sum(row["triangles"] for row in breakdown)
    if shortfall > 0:
        breakdown[0]["triangles"] += shortfall
    return MeshEstimate(triangles=sum(row["triangles"] for row in breakdown), breakdown=breakdown)


def estimate_terms(
    *, ring: BoundaryRing, regions: list[MeshRegion], resolution: float, holes: Sequence["shapely.Polygon"] = ()
) -> dict[int, dict[str, float]]:
    """Per zone (-1 is the base, else the region's index), the area in m² and each term with a constant of 1:
    what `mesh_estimate` weighs, and what the calibration fits the constants to."""
    graph = planar_graph(ring=ring, regions=regions, base_max_area=resolution**2 / 2, holes=holes)
    in_hole = [graph.in_hole(face) for face in graph.faces]
    terms: dict[int, dict[str, float]] = defaultdict(
        lambda: {"area_m2": 0.0, "area": 0.0, "boundary": 0.0, "transition": 0.0, "short_edge": 0.0}
    )
    for face in (face for face, hole in zip(graph.faces, in_hole, strict=True) if not hole):
        area = float(face.polygon.area)
        terms[face.zone]["area_m2"] += area
        terms[face.zone]["area"] += area / face.max_triangle_area
    for segment in graph.segments:
        length = segment.length
        sides = [graph.faces[index] for index in segment.faces if not in_hole[index]]
        for face in sides:
            if length < face.resolution_m:
                terms[face.zone]["short_edge"] += (1 - length / face.resolution_m) ** 2
        if len(sides) == 1:
            terms[sides[0].zone]["boundary"] += length / sides[0].resolution_m
        elif len(sides) == 2 and not math.isclose(sides[0].max_triangle_area, sides[1].max_triangle_area):
            fine, coarse = sorted(sides, key=lambda face: face.max_triangle_area)
            terms[coarse.zone]["transition"] += (
                length / fine.resolution_m * (1 - fine.resolution_m / coarse.resolution_m) ** 2
            )
    return {zone: terms[zone] for zone in [-1, *range(len(regions))]}
