"""A scenario's input features as mesh geometry: the CRS they are in, the boundary ring, internal lines and
mesh regions. Coordinates are assumed to be metres (a projected CRS) once `features_in_crs` has run."""

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import shapely
from pyproj import CRS
from pyproj.exceptions import CRSError
from shapely.geometry import mapping, shape

from hydrata.compute.errors import (
    BOUNDARY_EMPTY,
    BOUNDARY_INVALID,
    BOUNDARY_NO_EXTERNAL,
    CRS_UNKNOWN,
    MESH_REGION_INVALID,
    MESH_REGION_UNITS_UNMARKED,
    ModelGeometryError,
)
from hydrata.compute.inputs.geojson import DEFAULT_CRS, crs_member_name
from hydrata.compute.inputs.numbers import excerpt, finite_number_or_none
from hydrata.compute.inputs.transformers import transformer_between

Point = tuple[float, float]

LINE_TYPES = ("LineString", "MultiLineString")
POLYGON_TYPES = ("Polygon", "MultiPolygon")
RESOLUTION_UNITS = {"m": "m", "m2": "m2", "m²": "m2", "m^2": "m2"}


# --- coordinate reference systems ------------------------------------------------------------------------------


def features_in_crs(collection: dict, *, target_crs: str) -> list[dict]:
    """The collection's features with their geometries in `target_crs` (copies; the input is left alone).

    The collection's own CRS is its "crs" member ({"type": "name", "properties": {"name": ...}}, or a plain
    string); without one it is EPSG:4326, as GeoJSON says. Axis order is always x, y (longitude first).
    """
    source = _crs(_collection_crs_name(collection), what="the layer's crs member")
    target = _crs(target_crs, what="target_crs")
    features = [dict(feature) for feature in collection.get("features") or []]
    if source.equals(target, ignore_axis_order=True):
        return features
    transformer = transformer_between(source, target)
    for feature in features:
        if feature.get("geometry"):
            moved = shapely.transform(
                shape(feature["geometry"]), transformer.transform, include_z=None, interleaved=False
            )
            feature["geometry"] = mapping(moved)
            feature.pop("bbox", None)
    return features


def _collection_crs_name(collection: dict) -> str:
    """Lenient, unlike the import: layers reach here already checked, so an unreadable member means the default."""
    member = collection.get("crs")
    return (crs_member_name(member) if member else None) or DEFAULT_CRS


def _crs(name: str, *, what: str) -> CRS:
    try:
        return CRS.from_user_input(name)
    except CRSError as error:
        raise ModelGeometryError(
            CRS_UNKNOWN,
            f"{what} names the coordinate reference system {name!r}, which is not known ({error}).",
            crs=name,
        ) from None


# --- the boundary ring -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoundaryRing:
    """The closed outer boundary: counter-clockwise, last point not repeated, one tag per segment."""

    points: list[Point]
    segment_tags: list[str]  # segment i runs from points[i] to points[(i + 1) % n]
    segment_features: list[int]  # the index of the boundary feature each segment came from

    def boundary_tags(self) -> dict[str, list[int]]:
        """ANUGA's boundary_tags: each tag with the indices of its segments, tags in order of first use."""
        tags: dict[str, list[int]] = {}
        for index, tag in enumerate(self.segment_tags):
            tags.setdefault(tag, []).append(index)
        return tags

    def polygon(self) -> shapely.Polygon:
        return shapely.Polygon(self.points)

    @property
    def area(self) -> float:
        return float(self.polygon().area)


@dataclass
class _Edge:
    points: list[Point]
    tag: str
    feature: int


def boundary_ring(features: list[dict]) -> BoundaryRing:
    """Chain the External boundary edges into one closed ring, each edge keeping its tag.

    Edges may come in any order and direction; ends meet when within 1 mm (or 1e-6 of the boundary's extent,
    if that is larger). Raises BOUNDARY_EMPTY, BOUNDARY_NO_EXTERNAL or BOUNDARY_INVALID saying what to fix.
    """
    if not features:
        raise ModelGeometryError(
            BOUNDARY_EMPTY,
            "The boundary layer has no features. Draw the outer boundary as lines with location 'External' and a "
            "boundary type (Reflective, Transmissive, Dirichlet or NormalDepth) that together enclose the model "
            "area.",
        )
    edges = _external_edges(features)
    if not edges:
        internal = sum(1 for feature in features if _location(feature) == "internal")
        raise ModelGeometryError(
            BOUNDARY_NO_EXTERNAL,
            f"None of the {len(features)} boundary features has location 'External'"
            + (f" ({internal} are Internal)" if internal else "")
            + ". The outer boundary must be lines with location 'External' that together form one closed ring.",
            features=len(features),
        )
    tolerance = _tolerance(point for edge in edges for point in edge.points)
    nodes, ends = _join_ends(edges, tolerance)
    _check_ends(edges, nodes, ends)
    segments = _walk(edges, nodes, ends)
    return _ring_from_segments(segments, tolerance)


def _location(feature: dict) -> str:
    return str((feature.get("properties") or {}).get("location") or "").strip().casefold()


def feature_name(index: int, feature: dict) -> str:
    """How messages and breakdowns name a feature: "feature 0 (id 'dense')"."""
    return f"feature {index}" + (f" (id {feature['id']!r})" if feature.get("id") is not None else "")


def _line_parts(feature: dict) -> list[list[Point]]:
    geometry = feature.get("geometry") or {}
    coordinates = geometry.get("coordinates") or []
    parts = [coordinates] if geometry.get("type") == "LineString" else coordinates
    return [[(float(point[0]), float(point[1])) for point in part] for part in parts]


def _external_edges(features: list[dict]) -> list[_Edge]:
    edges = []
    for index, feature in enumerate(features):
        if _location(feature) != "external":
            continue
        geometry_type = (feature.get("geometry") or {}).get("type")
        if geometry_type not in LINE_TYPES:
            raise ModelGeometryError(
                BOUNDARY_INVALID,
                f"Boundary {feature_name(index, feature)} is a {geometry_type or 'feature without geometry'}; "
                "External boundary edges must be lines (LineString or MultiLineString).",
                feature_index=index,
                feature_id=feature.get("id"),
            )
        tag = str((feature.get("properties") or {}).get("boundary") or "").strip()
        if not tag:
            raise ModelGeometryError(
                BOUNDARY_INVALID,
                f"Boundary {feature_name(index, feature)} has no 'boundary' property; every External edge needs "
                "one (Reflective, Transmissive, Dirichlet or NormalDepth).",
                feature_index=index,
                feature_id=feature.get("id"),
            )
        for part in _line_parts(feature):
            points = _without_repeats(part, 0.0)
            if len(points) >= 2:
                edges.append(_Edge(points, tag, index))
    return edges


def _tolerance(points: Iterable[Point]) -> float:
    xs, ys = zip(*points, strict=True)
    extent = max(max(xs) - min(xs), max(ys) - min(ys))
    return max(1e-3, 1e-6 * extent)


def _without_repeats(points: list[Point], tolerance: float) -> list[Point]:
    kept: list[Point] = []
    for point in points:
        if not kept or math.dist(kept[-1], point) > tolerance:
            kept.append(point)
    return kept


def _join_ends(edges: list[_Edge], tolerance: float) -> tuple[list[Point], list[list[tuple[int, int]]]]:
    """Cluster edge ends closer than `tolerance` into nodes; returns node points and, per node, its (edge, end)
    pairs (end 0 is the edge's first point, end 1 its last)."""
    nodes: list[Point] = []
    ends: list[list[tuple[int, int]]] = []
    grid: dict[tuple[int, int], list[int]] = {}
    for edge_index, edge in enumerate(edges):
        for end, point in ((0, edge.points[0]), (1, edge.points[-1])):
            cell = (math.floor(point[0] / tolerance), math.floor(point[1] / tolerance))
            found = None
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    for node in grid.get((cell[0] + dx, cell[1] + dy), ()):
                        if math.dist(nodes[node], point) <= tolerance:
                            found = node
            if found is None:
                found = len(nodes)
                nodes.append(point)
                ends.append([])
                grid.setdefault(cell, []).append(found)
            ends[found].append((edge_index, end))
    return nodes, ends


def _at(point: Point) -> str:
    return f"({round(point[0], 3)}, {round(point[1], 3)})"


def _check_ends(edges: list[_Edge], nodes: list[Point], ends: list[list[tuple[int, int]]]) -> None:
    node_of = {pair: node for node, pairs in enumerate(ends) for pair in pairs}
    loose = []
    for edge_index in range(len(edges)):
        for end in (1, 0):
            node = node_of[(edge_index, end)]
            if len(ends[node]) == 1 and node not in loose:
                loose.append(node)
    if loose:
        first = nodes[loose[0]]
        message = (
            f"The External boundary edges do not close: the chain stops at {_at(first)} and no other "
            "External edge starts or ends there."
        )
        others = [nodes[node] for node in loose[1:]]
        if others:
            nearest = min(others, key=lambda point: math.dist(point, first))
            message += (
                f" The nearest other loose end is {_at(nearest)}, {math.dist(nearest, first):.3f} m away; "
                "join them so that the External edges form one closed ring."
            )
        else:
            message += " Add the missing edge so that the External edges form one closed ring."
        raise ModelGeometryError(BOUNDARY_NO_EXTERNAL, message, loose_ends=[list(nodes[node]) for node in loose])
    for node, pairs in enumerate(ends):
        if len(pairs) > 2:
            features = sorted({edges[edge_index].feature for edge_index, _ in pairs})
            raise ModelGeometryError(
                BOUNDARY_NO_EXTERNAL,
                f"{len(pairs)} External edge ends meet at {_at(nodes[node])} (features "
                f"{', '.join(map(str, features))}); the External edges must form one ring, with exactly two "
                "edges meeting at each point. Mark lines inside the model as Internal.",
                at=list(nodes[node]),
                features=features,
            )


def _walk(edges: list[_Edge], nodes: list[Point], ends: list[list[tuple[int, int]]]) -> list[tuple[Point, str, int]]:
    """Follow the edges from the first one round to where it started: (start point, tag, feature) per segment."""
    node_of = {pair: node for node, pairs in enumerate(ends) for pair in pairs}
    segments: list[tuple[Point, str, int]] = []
    visited = [False] * len(edges)
    edge_index, forward = 0, True
    start_node = node_of[(0, 0)]
    while not visited[edge_index]:
        visited[edge_index] = True
        edge = edges[edge_index]
        points = edge.points if forward else edge.points[::-1]
        first = node_of[(edge_index, 0 if forward else 1)]
        last = node_of[(edge_index, 1 if forward else 0)]
        inner = [nodes[first], *points[1:-1]]
        segments.extend((point, edge.tag, edge.feature) for point in inner)
        if last == start_node:
            break
        ((edge_index, end),) = [
            pair for pair in ends[last] if pair[0] != edge_index or pair[1] != (1 if forward else 0)
        ]
        forward = end == 0
    if not all(visited):
        left = [index for index, seen in enumerate(visited) if not seen]
        rings = _count_rings(left, edges, node_of)
        raise ModelGeometryError(
            BOUNDARY_NO_EXTERNAL,
            f"The External boundary edges form {rings + 1} separate closed rings (one through "
            f"{_at(segments[0][0])}, another through {_at(edges[left[0]].points[0])}); the boundary must be one "
            "ring. Remove or join the extra ring, or mark lines inside the model as Internal.",
            rings=rings + 1,
        )
    return segments


def _count_rings(left: list[int], edges: list[_Edge], node_of: dict[tuple[int, int], int]) -> int:
    parent = {index: index for index in left}

    def root(index: int) -> int:
        while parent[index] != index:
            index = parent[index]
        return index

    by_node: dict[int, int] = {}
    for index in left:
        for end in (0, 1):
            node = node_of[(index, end)]
            if node in by_node:
                parent[root(index)] = root(by_node[node])
            else:
                by_node[node] = index
    return len({root(index) for index in left})


def _ring_from_segments(segments: list[tuple[Point, str, int]], tolerance: float) -> BoundaryRing:
    kept: list[tuple[Point, str, int]] = []
    for segment in segments:  # drop points repeated within the tolerance, the later one's segment goes
        if kept and math.dist(kept[-1][0], segment[0]) <= tolerance:
            kept[-1] = (kept[-1][0], segment[1], segment[2])
            continue
        kept.append(segment)
    while len(kept) > 1 and math.dist(kept[-1][0], kept[0][0]) <= tolerance:
        kept.pop()
    points = [segment[0] for segment in kept]
    if len(points) < 3 or shapely.MultiPoint(points).convex_hull.area <= tolerance**2:
        raise ModelGeometryError(
            BOUNDARY_INVALID,
            "The External boundary edges close but enclose no area; draw them round the model.",
        )
    polygon = shapely.Polygon(points)
    if not polygon.is_valid:
        reason = shapely.is_valid_reason(polygon)
        where = reason[reason.find("[") + 1 : reason.find("]")].split() if "[" in reason else []
        at = f" near ({', '.join(str(round(float(value), 3)) for value in where)})" if where else ""
        raise ModelGeometryError(
            BOUNDARY_INVALID,
            f"The External boundary crosses or touches itself{at}; the edges must enclose the model area "
            "without crossing.",
            reason=reason,
        )
    tags = [segment[1] for segment in kept]
    owners = [segment[2] for segment in kept]
    if not polygon.exterior.is_ccw:
        # reversing the points: segment k of the new order is segment n - 2 - k of the old one
        n = len(points)
        points = points[::-1]
        tags = [tags[(n - 2 - k) % n] for k in range(n)]
        owners = [owners[(n - 2 - k) % n] for k in range(n)]
    return BoundaryRing(points=points, segment_tags=tags, segment_features=owners)


def internal_lines(features: list[dict]) -> list[list[Point]]:
    """The Internal boundary lines (location 'Internal'), each as a list of points, to keep as breaklines."""
    lines = []
    for feature in features:
        if _location(feature) != "internal" or (feature.get("geometry") or {}).get("type") not in LINE_TYPES:
            continue
        for part in _line_parts(feature):
            points = _without_repeats(part, 0.0)
            if len(points) >= 2:
                lines.append(points)
    return lines


# --- mesh regions ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MeshRegion:
    """A polygon meshed at its own resolution, clipped to the boundary."""

    name: str  # e.g. "feature 0 (id 'dense')", with " part 2" when clipping leaves several pieces
    polygon: shapely.Polygon
    resolution_m: float  # the equivalent triangle edge length: sqrt(2 * max_triangle_area)
    max_triangle_area: float  # m²


def resolution_to_max_area(value: float, units: str) -> float:
    """The maximum triangle area (m²) of a resolution: 'm' is a length (value² / 2), 'm2' is the area itself."""
    unit = RESOLUTION_UNITS.get(str(units).strip().casefold())
    if unit == "m":
        return float(value) * float(value) / 2  # inf, not ** 's OverflowError, for a resolution past 1e154
    if unit == "m2":
        return float(value)
    raise ModelGeometryError(
        MESH_REGION_UNITS_UNMARKED,
        f"Resolution units {units!r} are not 'm' (a length) or 'm2' (an area).",
        units=units,
    )


def mesh_regions(features: list[dict], *, within: shapely.Polygon) -> list[MeshRegion]:
    """The mesh-region polygons, each clipped to `within` (pieces left empty are dropped).

    Each feature needs `resolution` (a positive number) and `resolution_units`: 'm' when the resolution is a
    triangle edge length, 'm2' when it is a maximum triangle area.
    """
    regions = []
    for index, feature in enumerate(features):
        name = feature_name(index, feature)
        properties = feature.get("properties") or {}
        geometry_type = (feature.get("geometry") or {}).get("type")
        if geometry_type not in POLYGON_TYPES:
            raise ModelGeometryError(
                MESH_REGION_INVALID,
                f"Mesh region {name} is a {geometry_type or 'feature without geometry'}; mesh regions must be "
                "polygons (Polygon or MultiPolygon).",
                feature_index=index,
                feature_id=feature.get("id"),
            )
        value = _positive(properties.get("resolution"))
        if value is None:
            raise ModelGeometryError(
                MESH_REGION_INVALID,
                f"Mesh region {name} has resolution={excerpt(properties.get('resolution'))}; it must be a positive "
                "number.",
                feature_index=index,
                feature_id=feature.get("id"),
            )
        units = RESOLUTION_UNITS.get(str(properties.get("resolution_units") or "").strip().casefold())
        if units is None:
            raise ModelGeometryError(
                MESH_REGION_UNITS_UNMARKED,
                f"Mesh region {name} has resolution={excerpt(properties.get('resolution'))} but resolution_units="
                f"{excerpt(properties.get('resolution_units'))}. Set resolution_units to 'm' if the resolution is a "
                "triangle edge length in metres, or 'm2' if it is a maximum triangle area in square metres.",
                feature_index=index,
                feature_id=feature.get("id"),
            )
        max_area = resolution_to_max_area(value, units)
        if not math.isfinite(max_area):
            raise ModelGeometryError(
                MESH_REGION_INVALID,
                f"Mesh region {name} has resolution={excerpt(value)}, too coarse to mesh; give a resolution in "
                "metres (or square metres) that fits the model.",
                feature_index=index,
                feature_id=feature.get("id"),
            )
        pieces = _polygons(shapely.make_valid(shapely.force_2d(shape(feature["geometry"]))).intersection(within))
        pieces = [piece for piece in pieces if piece.area > 1e-6]
        for number, piece in enumerate(pieces, start=1):
            regions.append(
                MeshRegion(
                    name=name + (f" part {number}" if len(pieces) > 1 else ""),
                    polygon=piece,
                    resolution_m=math.sqrt(2 * max_area),
                    max_triangle_area=max_area,
                )
            )
    return regions


def _positive(value: Any) -> float | None:
    number = finite_number_or_none(value)
    return number if number is not None and number > 0 else None


def _polygons(geometry: shapely.Geometry) -> list[shapely.Polygon]:
    return [part for part in shapely.get_parts(geometry) if isinstance(part, shapely.Polygon) and not part.is_empty]
