"""Geometry cut down to what a small map in a chat needs: bounded vertex counts, coordinates to ~10 cm."""

import math
from collections import defaultdict
from typing import Any

DECIMALS = 6
SHORT_RING = 8  # rings and lines this short are kept whole, so a polygon stays a polygon
MAX_PROPERTY_CHARS = 80


def _is_position(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and isinstance(value[0], int | float)


def _is_position_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and _is_position(value[0])


def vertex_count(coordinates: Any) -> int:
    if _is_position(coordinates):
        return 1
    if isinstance(coordinates, list):
        return sum(vertex_count(part) for part in coordinates)
    return 0


def _rounded(position: list[float]) -> list[float]:
    return [round(float(value), DECIMALS) for value in position[:2]]


def thinned(coordinates: Any, step: int) -> Any:
    """Every `step`-th vertex of each line or ring (its last always kept), rounded."""
    if _is_position(coordinates):
        return _rounded(coordinates)
    if _is_position_list(coordinates):
        if len(coordinates) <= SHORT_RING or step <= 1:
            return [_rounded(p) for p in coordinates]
        kept = coordinates[::step]
        if kept[-1] is not coordinates[-1]:
            kept.append(coordinates[-1])
        return [_rounded(p) for p in kept]
    return [thinned(part, step) for part in coordinates]


def simplified_features(collection: dict[str, Any], *, max_vertices: int, keep: frozenset[str]) -> dict[str, Any]:
    """The collection with at most about `max_vertices` vertices and only the `keep` properties."""
    features = collection.get("features") or []
    total = sum(vertex_count((f.get("geometry") or {}).get("coordinates")) for f in features)
    step = max(1, math.ceil(total / max(1, max_vertices)))
    return {"type": "FeatureCollection", "features": [_feature(f, step, keep) for f in features]}


def _feature(feature: dict[str, Any], step: int, keep: frozenset[str]) -> dict[str, Any]:
    geometry = feature.get("geometry") or {}
    properties = {key: _short(value) for key, value in (feature.get("properties") or {}).items() if key in keep}
    shape = {"type": geometry.get("type"), "coordinates": thinned(geometry.get("coordinates") or [], step)}
    return {"type": "Feature", "geometry": shape, "properties": properties}


def _short(value: Any) -> Any:
    if isinstance(value, str):
        return value[:MAX_PROPERTY_CHARS]
    if isinstance(value, int | float | bool) or value is None:
        return value
    return str(value)[:MAX_PROPERTY_CHARS]


def outline_rings(segments: list[list[list[float]]], *, max_vertices: int) -> list[list[list[float]]]:
    """A mesh outline given as loose edges, chained into lines and thinned to about `max_vertices` vertices."""
    lines = _chained(segments)
    total = sum(len(line) for line in lines)
    step = max(1, math.ceil(total / max(1, max_vertices)))
    return [thinned(line, step) for line in lines]


Node = tuple[float, float]


def _chained(segments: list[list[list[float]]]) -> list[list[list[float]]]:
    neighbours: dict[Node, list[Node]] = defaultdict(list)
    for start, end in segments:
        a, b = (start[0], start[1]), (end[0], end[1])
        neighbours[a].append(b)
        neighbours[b].append(a)
    used: set[frozenset[Node]] = set()
    lines = []
    for node in list(neighbours):
        for first in neighbours[node]:
            if frozenset((node, first)) not in used:
                lines.append(_walk(neighbours, used, node, first))
    return lines


def _walk(
    neighbours: dict[Node, list[Node]], used: set[frozenset[Node]], start: Node, first: Node
) -> list[list[float]]:
    """From `start` along unused edges until none is left: one closed ring for a simple outline."""
    line = [list(start)]
    here: Node = start
    ahead: Node | None = first
    while ahead is not None:
        used.add(frozenset((here, ahead)))
        line.append(list(ahead))
        here = ahead
        ahead = next((n for n in neighbours[here] if frozenset((here, n)) not in used), None)
    return line
