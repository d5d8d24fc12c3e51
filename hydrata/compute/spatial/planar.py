"""The planar straight-line graph both the estimate and the mesh use: the boundary ring, the mesh-region
outlines and the breaklines, noded together on a 1 mm grid, and the faces they enclose.

Noding first matters: Triangle ends the whole process ("Topological inconsistency after splitting a segment")
when a region edge runs along the boundary a rounding error away from it, which is exactly what clipping a
region to a slanted boundary gives. Snap-rounding everything to one grid makes coincident edges identical and
every crossing a shared vertex, so Triangle only ever sees a clean graph.

Each face takes the resolution of the smallest mesh region containing it (so a region nested in another wins
inside it, and where regions overlap the smaller one wins), or the base resolution outside every region.
"""

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import shapely

from hydrata.compute.spatial.geometry import BoundaryRing, MeshRegion, Point

GRID_M = 0.001

Key = tuple[int, int]


@dataclass(frozen=True)
class Face:
    polygon: shapely.Polygon
    seed: Point  # a point inside the face, where its maximum triangle area is set
    zone: int  # index into the regions, or -1 for the base
    max_triangle_area: float

    @property
    def resolution_m(self) -> float:
        return math.sqrt(2 * self.max_triangle_area)


@dataclass(frozen=True)
class Segment:
    start: Point
    end: Point
    faces: tuple[int, ...]  # the faces on its sides: one on the boundary, two inside, none for a loose breakline

    @property
    def length(self) -> float:
        return math.dist(self.start, self.end)


@dataclass(frozen=True)
class PlanarGraph:
    ring_points: list[Point]  # the boundary as noded: counter-clockwise, last point not repeated
    ring_tags: list[str]
    faces: list[Face]
    segments: list[Segment]
    holes: shapely.Geometry | None = None  # the union of the mesh's holes (walled buildings), None without any

    def interior_lines(self, *, walls: bool = False) -> list[list[Point]]:
        """The segments that are not on the boundary, merged into polylines: those on a hole's outline when
        `walls`, the others otherwise."""
        inside = [
            shapely.LineString([s.start, s.end])
            for s in self.segments
            if len(s.faces) != 1 and self.on_hole_outline(s) == walls
        ]
        if not inside:
            return []
        merged = shapely.line_merge(shapely.MultiLineString(inside))
        return [[(x, y) for x, y in part.coords] for part in shapely.get_parts(merged)]

    def on_hole_outline(self, segment: Segment) -> bool:
        if self.holes is None:
            return False
        middle = shapely.Point((segment.start[0] + segment.end[0]) / 2, (segment.start[1] + segment.end[1]) / 2)
        return bool(self.holes.boundary.distance(middle) <= 2 * GRID_M)

    def in_hole(self, face: Face) -> bool:
        return self.holes is not None and bool(self.holes.contains(shapely.Point(face.seed)))


def planar_graph(
    *,
    ring: BoundaryRing,
    regions: list[MeshRegion],
    base_max_area: float,
    breaklines: Sequence[list[Point]] = (),
    holes: Sequence[shapely.Polygon] = (),
) -> PlanarGraph:
    """`holes` (inside the ring; see compute/simulation/structures.py) are cut out of every other line, and their
    outlines become segments of the graph: the faces inside them are the mesh's holes."""
    boundary = ring.polygon()
    cut = shapely.union_all(shapely.set_precision(list(holes), GRID_M)) if holes else None
    lines = [shapely.LineString([*ring.points, ring.points[0]])]
    for region in regions:
        lines += [shapely.LineString(region.polygon.exterior.coords)]
        lines += [shapely.LineString(interior.coords) for interior in region.polygon.interiors]
    for line in breaklines:
        clipped = shapely.LineString(line).intersection(boundary)
        lines += [part for part in shapely.get_parts(clipped) if isinstance(part, shapely.LineString)]
    if cut is not None:
        lines = [lines[0]] + [
            part
            for line in lines[1:]
            for part in shapely.get_parts(line.difference(cut))
            if isinstance(part, shapely.LineString)
        ]
        lines += [part for part in shapely.get_parts(shapely.line_merge(cut.boundary)) if not part.is_empty]
    noded = shapely.unary_union(shapely.set_precision(lines, GRID_M, mode="pointwise"), grid_size=GRID_M)

    ends: dict[tuple[Key, Key], tuple[Point, Point]] = {}
    for part in shapely.get_parts(noded):
        if not isinstance(part, shapely.LineString):
            continue
        coords = [(float(x), float(y)) for x, y in part.coords]
        for a, b in itertools.pairwise(coords):
            ka, kb = _key(a), _key(b)
            if ka != kb:
                ends.setdefault((min(ka, kb), max(ka, kb)), (a, b))

    by_area = sorted(range(len(regions)), key=lambda index: (regions[index].polygon.area, index))
    faces: list[Face] = []
    sides: dict[tuple[Key, Key], list[int]] = defaultdict(list)
    segment_lines = [shapely.LineString(pair) for pair in ends.values()]
    for polygon in shapely.get_parts(shapely.polygonize(segment_lines)):
        seed = polygon.representative_point()
        zone = next((index for index in by_area if regions[index].polygon.contains(seed)), -1)
        max_area = base_max_area if zone < 0 else regions[zone].max_triangle_area
        for ring_coords in (polygon.exterior, *polygon.interiors):
            coords = list(ring_coords.coords)
            for a, b in itertools.pairwise(coords):
                ka, kb = _key(a), _key(b)
                sides[(min(ka, kb), max(ka, kb))].append(len(faces))
        faces.append(Face(polygon=polygon, seed=(seed.x, seed.y), zone=zone, max_triangle_area=max_area))

    segments = [Segment(start=a, end=b, faces=tuple(sides.get(key, ()))) for key, (a, b) in ends.items()]
    ring_points, ring_tags = _noded_ring(ring, [s for s in segments if len(s.faces) == 1])
    return PlanarGraph(ring_points=ring_points, ring_tags=ring_tags, faces=faces, segments=segments, holes=cut)


def _key(point: tuple[float, float]) -> Key:
    return round(point[0] / GRID_M), round(point[1] / GRID_M)


def _noded_ring(ring: BoundaryRing, on_ring: list[Segment]) -> tuple[list[Point], list[str]]:
    """Walk the boundary segments of the noded graph once round, counter-clockwise, each with the tag of the
    original boundary segment it lies on."""
    originals = [
        shapely.LineString([ring.points[i], ring.points[(i + 1) % len(ring.points)]]) for i in range(len(ring.points))
    ]
    tree = shapely.STRtree(originals)
    middles = [shapely.Point((s.start[0] + s.end[0]) / 2, (s.start[1] + s.end[1]) / 2) for s in on_ring]
    _, nearest = tree.query_nearest(middles, all_matches=False)
    tag_of: dict[tuple[Key, Key], str] = {}
    neighbours: dict[Key, list[Key]] = defaultdict(list)
    points: dict[Key, Point] = {}
    for segment, original in zip(on_ring, nearest, strict=True):
        ka, kb = _key(segment.start), _key(segment.end)
        points[ka], points[kb] = segment.start, segment.end
        tag_of[(ka, kb)] = tag_of[(kb, ka)] = ring.segment_tags[int(original)]
        neighbours[ka].append(kb)
        neighbours[kb].append(ka)
    if any(len(next_keys) != 2 for next_keys in neighbours.values()):
        raise RuntimeError("the noded boundary is not a simple ring; this is a bug in hydrata.compute.spatial.planar")
    start = min(points, key=lambda key: math.dist(points[key], ring.points[0]))
    order, previous, current = [start], None, start
    while True:
        following = neighbours[current][0] if neighbours[current][0] != previous else neighbours[current][1]
        if following == start:
            break
        order.append(following)
        previous, current = current, following
    if len(order) != len(points):
        raise RuntimeError(
            "the noded boundary falls into several rings; this is a bug in hydrata.compute.spatial.planar"
        )
    if not shapely.LinearRing([points[key] for key in order]).is_ccw:
        order = [order[0], *order[:0:-1]]
    tags = [tag_of[(order[i], order[(i + 1) % len(order)])] for i in range(len(order))]
    return [points[key] for key in order], tags
