"""Reading and checking an uploaded GeoJSON FeatureCollection, without Django: what it holds, the CRS it is in,
and, when it cannot be imported, a `GeoJSONRejected` saying what is wrong and where, for the person who made it.

The one reader of a GeoJSON "crs" member (`crs_member_name`) and of the default CRS lives here too; the strict
import below and the lenient `geometry.features_in_crs` both use it.
"""

import json
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy
import shapely
from pyproj import CRS
from pyproj.exceptions import CRSError, ProjError
from shapely.errors import ShapelyError
from shapely.geometry import shape
from shapely.geometry.base import BaseGeometry

from hydrata.compute.errors import GeoJSONRejected
from hydrata.compute.inputs.numbers import JSONRefused, json_read
from hydrata.compute.inputs.transformers import transformer_between

DEFAULT_CRS = "EPSG:4326"  # GeoJSON without a "crs" member is longitude/latitude
MAX_LISTED_PROBLEMS = 10

# How deep each geometry type nests its positions: a Point's coordinates are one position (depth 0).
POSITION_DEPTH = {"Point": 0, "MultiPoint": 1, "LineString": 1, "MultiLineString": 2, "Polygon": 2, "MultiPolygon": 3}
GEOMETRY_TYPES = (*POSITION_DEPTH, "GeometryCollection")
GEOMETRY_TYPE_NAMES = {  # shapely.get_type_id -> GeoJSON type
    0: "Point",
    1: "LineString",
    3: "Polygon",
    4: "MultiPoint",
    5: "MultiLineString",
    6: "MultiPolygon",
    7: "GeometryCollection",
}
NUMBER_TYPES = (int, float)

# The ways a legacy GeoJSON "crs" member names a CRS by authority and code; nothing else reaches pyproj.
CRS_NAME_PATTERNS = (
    re.compile(r"(?P<authority>[A-Za-z]+):(?P<code>[A-Za-z0-9]+)"),  # EPSG:28356, OGC:CRS84
    re.compile(r"urn:ogc:def:crs:(?P<authority>[A-Za-z]+):[0-9.]*:(?P<code>[A-Za-z0-9]+)", re.IGNORECASE),
    re.compile(r"https?://www\.opengis\.net/def/crs/(?P<authority>[A-Za-z]+)/[0-9.]+/(?P<code>[A-Za-z0-9]+)"),
)


@dataclass(frozen=True)
class InspectedCollection:
    features: list[dict[str, Any]]
    crs: str  # authority code, e.g. "EPSG:28356"
    geometry_types: list[str]
    property_names: list[str]
    bbox_native: list[float]
    bbox_wgs84: list[float]


def geojson_inspect(*, data: bytes, max_features: int, max_edge_tests: int) -> InspectedCollection:
    """Parse and check a GeoJSON FeatureCollection, or raise GeoJSONRejected saying what is wrong and where.
    `max_edge_tests` bounds the work of GEOS's validity check over all the features (see `edge_tests_count`)."""
    document = _json_parse(data)
    if not isinstance(document, dict):
        raise GeoJSONRejected(
            f"The file is JSON but not GeoJSON: its top level is {_json_kind(document)}, "
            'not an object with "type": "FeatureCollection".'
        )
    kind = document.get("type")
    if kind != "FeatureCollection":
        got = f'"type": {_json_excerpt(kind)}' if "type" in document else 'no "type" member'
        hint = ""
        if kind == "Feature":
            hint = ' Wrap the feature in a collection: {"type": "FeatureCollection", "features": [<the feature>]}.'
        elif kind in GEOMETRY_TYPES:
            hint = " Wrap the geometry in a Feature, inside a FeatureCollection."
        raise GeoJSONRejected(f"Expected a GeoJSON FeatureCollection, but the file has {got}.{hint}")

    features = document.get("features")
    if not isinstance(features, list):
        got = _json_kind(features) if "features" in document else "missing"
        raise GeoJSONRejected(f'The FeatureCollection\'s "features" member is {got}; it must be a list of Features.')
    if not features:
        raise GeoJSONRejected("The FeatureCollection has no features; there is nothing to import.")
    if len(features) > max_features:
        raise GeoJSONRejected(
            f"The FeatureCollection has {len(features):,} features; at most {max_features:,} can be imported "
            "from one file. Split it into smaller files."
        )

    crs_code, crs = _crs_read(document)
    geometries, geometry_types, property_names = _features_check(features, max_edge_tests=max_edge_tests)
    bbox_native = [float(value) for value in shapely.total_bounds(geometries)]
    bbox_wgs84 = _bbox_to_wgs84(bbox_native, crs=crs, crs_code=crs_code, declared="crs" in document)
    return InspectedCollection(
        features=features,
        crs=crs_code,
        geometry_types=geometry_types,
        property_names=property_names,
        bbox_native=bbox_native,
        bbox_wgs84=bbox_wgs84,
    )


def _json_parse(data: bytes) -> Any:
    if not data.strip():
        raise GeoJSONRejected("The file is empty.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise GeoJSONRejected(
            f"The file is not UTF-8 text: the byte at line {line}, column {column} cannot be read as UTF-8 "
            f"({error.reason}). Save the file as UTF-8 and upload it again."
        ) from None
    try:
        return json_read(text)
    except json.JSONDecodeError as error:
        raise GeoJSONRejected(
            f"The file is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}."
        ) from None
    except JSONRefused as refused:  # NaN, 1e400, a 400-digit integer, a lone surrogate, nesting too deep
        where = f" at {refused.where}" if refused.where else ""
        raise GeoJSONRejected(f"The file is not usable JSON{where}: {refused.reason}.") from None


def crs_member_name(member: Any) -> str | None:
    """The name a legacy (GeoJSON 2008) "crs" member gives its CRS: a plain string, {"type": "name",
    "properties": {"name": ...}} or {"type": "EPSG", "properties": {"code": ...}}; None for any other form.
    A collection without the member is in DEFAULT_CRS; what to do with an unreadable one is the caller's choice."""
    if isinstance(member, str):
        return member
    if isinstance(member, dict) and isinstance(member.get("properties"), dict):
        properties = member["properties"]
        if member.get("type") == "name" and isinstance(properties.get("name"), str):
            return properties["name"]
        if member.get("type") == "EPSG" and isinstance(properties.get("code"), int | str):
            return f"EPSG:{properties['code']}"
    return None


def _crs_read(document: dict[str, Any]) -> tuple[str, CRS]:
    """The "crs" member names the CRS by authority code; without one, coordinates are longitude/latitude."""
    member = document.get("crs")
    if member is None:
        return DEFAULT_CRS, CRS.from_user_input(DEFAULT_CRS)
    name = crs_member_name(member)
    if name is None:
        raise GeoJSONRejected(
            'The "crs" member is not in a form this importer reads. Name the CRS like '
            '{"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::28356"}}, or leave "crs" out if '
            "the coordinates are longitude/latitude (EPSG:4326)."
        )
    name = name.strip()
    match = next((m for pattern in CRS_NAME_PATTERNS if (m := pattern.fullmatch(name))), None)
    if match is None:
        raise GeoJSONRejected(
            f'The "crs" member names {name[:80]!r}, which is not an authority code. Name the CRS by its EPSG code, '
            'e.g. "EPSG:28356" or "urn:ogc:def:crs:EPSG::28356".'
        )
    authority, code = match["authority"].upper(), match["code"].upper()
    try:
        crs = CRS.from_authority(authority, code)
    except CRSError:
        raise GeoJSONRejected(
            f'The "crs" member names {authority}:{code}, which is not a known coordinate reference system. '
            'Check the code (e.g. "EPSG:28356" for GDA94 / MGA zone 56).'
        ) from None
    if not (crs.is_geographic or crs.is_projected):
        raise GeoJSONRejected(
            f'The "crs" member names {authority}:{code} ({crs.name}), which is not a horizontal (geographic or '
            "projected) coordinate reference system."
        )
    return f"{authority}:{code}", crs


def crs_urn(crs_code: str) -> str:
    """The OGC URN of an authority code, as a normalised "crs" member names it (EPSG:28356 ->
    urn:ogc:def:crs:EPSG::28356)."""
    authority, code = crs_code.split(":", 1)
    if (authority, code) == ("OGC", "CRS84"):
        return "urn:ogc:def:crs:OGC:1.3:CRS84"
    return f"urn:ogc:def:crs:{authority}::{code}"


def _features_check(features: list[Any], *, max_edge_tests: int) -> tuple[list[BaseGeometry], list[str], list[str]]:
    """Every feature must be a Feature with a non-empty, valid geometry. Lists the first problems found."""
    problems: list[tuple[int, str]] = []
    built: list[BaseGeometry] = []
    built_at: list[int] = []
    property_names: dict[str, None] = {}
    for index, feature in enumerate(features):
        problem, geometry = _feature_build(feature)
        if problem:
            problems.append((index, problem))
            continue
        built.append(geometry)
        built_at.append(index)
        property_names.update(dict.fromkeys(feature.get("properties") or {}))
    geometries = numpy.asarray(built, dtype=object)
    _edge_tests_check(geometries, built_at=built_at, features=features, max_edge_tests=max_edge_tests)
    # Emptiness and validity are checked for all geometries at once (vectorised in GEOS); only the invalid ones that
    # can be listed are explained (an explanation is a second validity check).
    empty = shapely.is_empty(geometries)
    invalid = ~empty & ~shapely.is_valid(geometries)
    explained = numpy.flatnonzero(invalid)[:MAX_LISTED_PROBLEMS]
    reasons = dict(zip(explained.tolist(), shapely.is_valid_reason(geometries[explained]).tolist(), strict=True))
    for position in numpy.flatnonzero(empty | invalid):
        geometry = geometries[position]
        if empty[position]:
            problem = f"has an empty {geometry.geom_type} geometry."
        elif position in reasons:
            problem = f"has an invalid {geometry.geom_type} geometry: {_validity_reason(reasons[position])}."
        else:  # after the first MAX_LISTED_PROBLEMS invalid features, so never listed
            problem = f"has an invalid {geometry.geom_type} geometry."
        problems.append((built_at[position], problem))
    if problems:
        problems.sort(key=lambda item: item[0])
        listed = [
            f"- {_feature_label(index, features[index])} {problem}" for index, problem in problems[:MAX_LISTED_PROBLEMS]
        ]
        more = len(problems) - len(listed)
        header = (
            f"{len(problems):,} of {len(features):,} feature(s) cannot be imported "
            "(features are numbered from 0, in file order):"
        )
        raise GeoJSONRejected("\n".join([header, *listed, *([f"... and {more:,} more."] if more else [])]))
    geometry_types = sorted(set(shapely.get_type_id(geometries).tolist()))
    return built, [GEOMETRY_TYPE_NAMES[type_id] for type_id in geometry_types], list(property_names)


def _edge_tests_check(
    geometries: numpy.ndarray, *, built_at: list[int], features: list[Any], max_edge_tests: int
) -> None:
    """Refuse, before GEOS checks their validity, features whose edges GEOS would test against each other too often."""
    pairs = edge_tests_count(geometries, limit=max_edge_tests)
    total = int(pairs.sum())
    if total <= max_edge_tests:
        return
    most = numpy.argsort(-pairs, kind="stable")[:3]
    named = ", ".join(
        f"{_feature_label(built_at[position], features[built_at[position]])} ({int(pairs[position]):,} or more)"
        for position in most
        if pairs[position]
    )
    raise GeoJSONRejected(
        f"The features' edges lie across or along one another too much to be checked: finding where they cross "
        f"takes {total:,} or more tests of edges against edges, and at most {max_edge_tests:,} can be made for one "
        f"file (a detailed boundary of a million vertices takes a few million). Most are in: {named}. A ring whose "
        "edges span its whole width, back and forth, does this: check those features' coordinates are in order, or "
        "simplify or split them."
    )


def edge_tests_count(geometries: numpy.ndarray, *, limit: int) -> numpy.ndarray:
    """For each geometry, the work of GEOS's intersection search over its edges, which its validity check (and
    noding, overlay and repair) runs: GEOS splits the edges into monotone chains, tests every two chains whose
    extents overlap, and for each such pair halves both chains in step, down to edge against edge, where the halves
    overlap. Two monotone chains of a and b edges take O(a + b) such steps (their halves' extents are sorted along
    both axes), so the count is the sum of a + b over the pairs of chains whose extents overlap. It grows with the
    square of the vertices when long edges or long runs of them lie across or along one another, crossing or not.

    Counted in O(n log n + limit). Quick bounds come first (`_overlap_bounds`); where they do not settle whether the
    sum is within `limit`, the geometries are counted exactly, the largest first, each stopping once the sum must
    pass `limit`. Within the limit, every count is exact or an upper bound; past it, exact or a lower bound."""
    low, high, length, group = _chains(geometries)
    upper, lower = _overlap_bounds(low, high, length, group, len(geometries))
    counts = upper.copy()
    settled = numpy.zeros(len(geometries), dtype=bool)
    known, upper_rest, lower_rest = 0, int(upper.sum()), int(lower.sum())
    order = numpy.argsort(group, kind="stable")
    span = numpy.searchsorted(group[order], numpy.arange(len(geometries) + 1))
    for position in numpy.argsort(-upper, kind="stable").tolist():
        if known + upper_rest <= limit or known + lower_rest > limit:
            break
        upper_rest -= int(upper[position])
        lower_rest -= int(lower[position])
        stop = limit - known - lower_rest  # past this, the sum is past the limit whatever the rest hold
        mine = order[span[position] : span[position + 1]]
        counts[position] = counted = _overlaps_counted(low[mine], high[mine], length[mine], stop=stop)
        settled[position] = True
        known += counted
        if counted > stop:
            break
    if known + upper_rest <= limit:
        return counts
    return numpy.where(settled, counts, lower)


def edge_tests_bound(geometries: numpy.ndarray) -> numpy.ndarray:
    """For each geometry, at least what `edge_tests_count` counts, in O(n log n): the smaller of the sums over the
    pairs of chains overlapping in x and over those overlapping in y. Tight for edges lying across one another;
    loose for rings nested in one another (their chains share x or y ranges, rarely both)."""
    low, high, length, group = _chains(geometries)
    return _overlap_bounds(low, high, length, group, len(geometries))[0]


def _chains(geometries: numpy.ndarray) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """The geometries' monotone chains: lower and upper corners of their extents, their edges, their geometry. A
    chain is a run of edges heading into one quadrant (GEOS's `MonotoneChainBuilder` and `Quadrant`: east and north
    are NE; zero-length edges skipped)."""
    parts, owner = shapely.get_parts(geometries, return_index=True)
    types = shapely.get_type_id(parts)
    while (nested := types >= 4).any():  # members of multi-geometries and collections, however deep
        inner, at = shapely.get_parts(parts[nested], return_index=True)
        parts, owner = (
            numpy.concatenate([parts[~nested], inner]),
            numpy.concatenate([owner[~nested], owner[nested][at]]),
        )
        types = shapely.get_type_id(parts)
    linear = (types == 1) | (types == 2)
    rings, ring_of = shapely.get_rings(parts[types == 3], return_index=True)
    lines = numpy.concatenate([parts[linear], rings])
    line_owner = numpy.concatenate([owner[linear], owner[types == 3][ring_of]]).astype(numpy.int64)
    points, line = shapely.get_coordinates(lines, return_index=True)
    step = points[1:] - points[:-1]
    edge = (line[1:] == line[:-1]) & ((step[:, 0] != 0) | (step[:, 1] != 0))
    starts, ends, step, edge_line = points[:-1][edge], points[1:][edge], step[edge], line[:-1][edge]
    if not len(edge_line):
        return numpy.zeros((0, 2)), numpy.zeros((0, 2)), numpy.zeros(0, dtype=numpy.int64), numpy.zeros(0, dtype=int)
    quadrant = (step[:, 0] < 0) * 2 + (step[:, 1] < 0)
    first = numpy.ones(len(edge_line), dtype=bool)
    first[1:] = (edge_line[1:] != edge_line[:-1]) | (quadrant[1:] != quadrant[:-1])
    chain_at = numpy.flatnonzero(first)
    return (
        numpy.minimum.reduceat(numpy.minimum(starts, ends), chain_at),
        numpy.maximum.reduceat(numpy.maximum(starts, ends), chain_at),
        numpy.diff(numpy.append(chain_at, len(edge_line))).astype(numpy.int64),
        line_owner[edge_line[chain_at]],
    )


def _overlap_bounds(
    low: numpy.ndarray, high: numpy.ndarray, length: numpy.ndarray, group: numpy.ndarray, count: int
) -> tuple[numpy.ndarray, numpy.ndarray]:
    """Per group, bounds on the sum of a + b over the pairs of chains (of a and b edges) whose extents overlap, from
    the sums over the pairs overlapping in x and over those in y (over all pairs, less the pairs disjoint on the
    axis: for each chain, the chains of its group starting after it ends, found by sorting): at most the smaller,
    and at least the two less the sum over all pairs."""
    chains = numpy.bincount(group, minlength=count).astype(numpy.int64)
    edges = numpy.bincount(group, weights=length, minlength=count).astype(numpy.int64)
    every = numpy.maximum(chains - 1, 0) * edges  # each chain is in (chains - 1) pairs
    overlapping = []
    for axis in (0, 1):
        # Ranks keep the comparison exact; a group's ranks sit in a band of their own, so one sort serves all.
        values, rank = numpy.unique(numpy.concatenate([low[:, axis], high[:, axis]]), return_inverse=True)
        band = len(values) + 1
        low_key = group * band + rank[: len(group)]
        high_key = group * band + rank[len(group) :]
        by_low = numpy.argsort(low_key, kind="stable")
        ordered = low_key[by_low]
        edges_before = numpy.concatenate([[0], numpy.cumsum(length[by_low])])
        first_after = numpy.searchsorted(ordered, high_key, side="right")
        group_end = numpy.searchsorted(ordered, (group + 1) * band)
        after = group_end - first_after  # the chains of the group disjoint from this one, after it
        disjoint = after * length + (edges_before[group_end] - edges_before[first_after])
        overlapping.append(every - numpy.bincount(group, weights=disjoint, minlength=count).astype(numpy.int64))
    return numpy.minimum(*overlapping), numpy.maximum(overlapping[0] + overlapping[1] - every, 0)


EXACT_CHUNK_PAIRS = 4_000_000  # pairs of chains an exact count may hold at once (64 MB of indices)


def _overlaps_counted(low: numpy.ndarray, high: numpy.ndarray, length: numpy.ndarray, *, stop: int) -> int:
    """The sum of a + b over the pairs of chains whose extents overlap (touching counts, as in GEOS), found with an
    STR tree a chunk of chains at a time; counting ends once past `stop`, so the work is O(n log n + stop)."""
    boxes = shapely.linestrings(numpy.stack([low, high], axis=1))  # a diagonal's extent is its box
    tree = shapely.STRtree(boxes)
    # A chain overlaps at most the chains overlapping it in x (or in y): chunks are cut so their pairs fit in memory.
    most = numpy.minimum(
        *(
            numpy.searchsorted(numpy.sort(low[:, axis]), high[:, axis], side="right")
            - numpy.searchsorted(numpy.sort(high[:, axis]), low[:, axis])
            for axis in (0, 1)
        )
    )
    reach = numpy.cumsum(most)
    counted = start = 0
    while start < len(boxes) and counted <= stop:
        already = int(reach[start - 1]) if start else 0
        end = max(start + 1, int(numpy.searchsorted(reach, already + EXACT_CHUNK_PAIRS, side="right")))
        asked, found = tree.query(boxes[start:end])
        asked += start
        pair = found > asked  # each pair once, a chain not with itself
        counted += int(length[asked[pair]].sum() + length[found[pair]].sum())
        start = end
    return counted


def _feature_label(index: int, feature: Any) -> str:
    if isinstance(feature, dict) and isinstance(feature.get("id"), str | int) and not isinstance(feature["id"], bool):
        return f"Feature {index} (id {_json_excerpt(feature['id'])})"
    return f"Feature {index}"


def _feature_build(feature: Any) -> tuple[str | None, BaseGeometry | None]:
    if not isinstance(feature, dict) or feature.get("type") != "Feature":
        got = f'"type": {_json_excerpt(feature.get("type"))}' if isinstance(feature, dict) else _json_kind(feature)
        return f'is not a GeoJSON Feature (it is {got}; expected an object with "type": "Feature").', None
    properties = feature.get("properties")
    if properties is not None and not isinstance(properties, dict):
        return f'has "properties" that are {_json_kind(properties)}, not an object or null.', None
    geometry = feature.get("geometry")
    if geometry is None:
        return "has no geometry; every feature needs one.", None
    problem = _geometry_structure_problem(geometry)
    if problem:
        return f"has {problem}.", None
    geometry_type = geometry["type"]
    try:
        return None, shape(geometry)
    except (ShapelyError, ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as error:
        return f"has a {geometry_type} geometry that cannot be built: {error}.", None


def _geometry_structure_problem(geometry: Any) -> str | None:
    """Say clearly what is malformed before shapely sees it (shapely's own messages are hard to act on)."""
    if not isinstance(geometry, dict):
        return f"a geometry that is {_json_kind(geometry)}, not an object"
    geometry_type = geometry.get("type")
    if geometry_type == "GeometryCollection":
        members = geometry.get("geometries")
        if not isinstance(members, list):
            return 'a GeometryCollection without a "geometries" list'
        for index, member in enumerate(members):
            problem = _geometry_structure_problem(member)
            if problem:
                return f"{problem} (member {index} of its GeometryCollection)"
        return None
    if geometry_type not in POSITION_DEPTH:
        expected = ", ".join(GEOMETRY_TYPES)
        return f"a geometry of unknown type {_json_excerpt(geometry_type)} (expected one of {expected})"
    if "coordinates" not in geometry:
        return f'a {geometry_type} geometry without "coordinates"'
    problem = _positions_problem(geometry["coordinates"], depth=POSITION_DEPTH[geometry_type])
    return f"a {geometry_type} geometry with {problem}" if problem else None


def _positions_problem(value: Any, *, depth: int) -> str | None:
    if depth == 0:
        # type() rather than isinstance() keeps booleans out; JSON floats were checked finite when parsed.
        if type(value) is list and 2 <= len(value) <= 3 and all(type(n) in NUMBER_TYPES for n in value):
            return None
        return f"a position that is not 2 or 3 numbers: {_json_excerpt(value)}"
    if type(value) is not list:
        return f"coordinates nested wrongly: expected a list, found {_json_excerpt(value)}"
    for item in value:
        problem = _positions_problem(item, depth=depth - 1)
        if problem:
            return problem
    return None


def _validity_reason(reason: str) -> str:
    """GEOS says e.g. 'Self-intersection[251100 6271900]'; say 'Self-intersection at (251100, 6271900)'."""
    match = re.fullmatch(r"(?P<what>.*?)\s*\[(?P<where>[^\]]*)\]", reason)
    if match is None:
        return reason
    return f"{match['what']} at ({', '.join(match['where'].split())})"


def _bbox_to_wgs84(bbox: list[float], *, crs: CRS, crs_code: str, declared: bool) -> list[float]:
    minx, miny, maxx, maxy = bbox
    if crs.is_geographic and not (-180 <= minx <= maxx <= 180 and -90 <= miny <= maxy <= 90):
        where = f"x {minx:g} to {maxx:g}, y {miny:g} to {maxy:g}"
        if not declared:
            raise GeoJSONRejected(
                "The file names no CRS, so its coordinates are read as longitude/latitude (EPSG:4326), but they "
                f"span {where}, outside -180..180 and -90..90. If they are projected coordinates (e.g. metres in "
                'MGA zone 56), add a "crs" member naming the CRS: '
                '{"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::28356"}}.'
            )
        raise GeoJSONRejected(
            f"The coordinates span {where}, outside the longitude/latitude range of {crs_code}. "
            'Check that the "crs" member names the CRS the coordinates are in.'
        )
    try:
        transformer = transformer_between(crs, "EPSG:4326")
        corners = transformer.transform_bounds(minx, miny, maxx, maxy, densify_pts=21)
    except ProjError as error:
        raise GeoJSONRejected(
            f"The features' extent cannot be converted from {crs_code} to longitude/latitude ({error}). "
            'Check that the "crs" member names the CRS the coordinates are in.'
        ) from None
    west, south, east, north = (float(value) for value in corners)
    if not all(math.isfinite(v) for v in (west, south, east, north)) or not (-90 <= south <= north <= 90):
        raise GeoJSONRejected(
            f"The features' extent cannot be converted from {crs_code} to longitude/latitude: the coordinates "
            f'are outside the area {crs_code} covers. Check that the "crs" member names the CRS they are in.'
        )
    return [west, south, east, north]


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _json_excerpt(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else f"{text[:limit]}..."
