"""A normal-depth outflow boundary (HEC-RAS "Normal Depth", TUFLOW's HQ boundary): each of its edges lets water out
at the rate Manning's equation gives for the depth just inside the edge, the edge's Manning's n and a friction
slope, so a uniform channel stays at normal depth to its end instead of backing up behind the boundary.

Per unit width, Manning's equation for a wide channel (hydraulic radius = depth, which is exact for ANUGA's
frictionless side walls) is the rating curve q = h^(5/3) S^(1/2) / n. The boundary state handed to ANUGA's flux
solver keeps the interior stage and carries that discharge per metre along the outward normal, never inwards.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
import shapely

MANNINGS_FLOOR = 1e-6  # a zero Manning's n would mean an infinite velocity


def rating_discharge(*, depth: np.ndarray, mannings: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """Manning's discharge per metre width (m²/s) for each depth (m), Manning's n and friction slope (m/m)."""
    depth = np.maximum(np.asarray(depth, dtype=float), 0.0)
    return depth ** (5.0 / 3.0) * np.sqrt(slope) / np.maximum(mannings, MANNINGS_FLOOR)


def edge_slopes(*, midpoints: np.ndarray, lines: Sequence[shapely.Geometry], slopes: Sequence[float]) -> np.ndarray:
    """The slope of the nearest NormalDepth line for each boundary edge midpoint (edges of one tag may come from
    several features, each with its own slope)."""
    if len(lines) == 1:
        return np.full(len(midpoints), float(slopes[0]))
    points = shapely.points(midpoints[:, 0], midpoints[:, 1])
    distances = np.stack([shapely.distance(points, line) for line in lines])
    return np.asarray(slopes, dtype=float)[np.argmin(distances, axis=0)]


class NormalDepthBoundary:
    """An ANUGA boundary object (ANUGA calls `evaluate_segment` each step with the indices of this tag's edges).

    The edge's Manning's n is its triangle's; `slopes` holds the friction slope of every boundary edge of the
    domain by its boundary index (NaN on the edges of other tags)."""

    limiter_prescribes = (False, False)  # everything here is computed from the interior, as for a transmissive edge

    def __init__(self, domain: Any, *, slopes: np.ndarray) -> None:
        self.domain = domain
        self.slopes = slopes

    def __repr__(self) -> str:
        return f"NormalDepthBoundary({int(np.isfinite(self.slopes).sum())} edges)"

    def evaluate(self, vol_id: int | None = None, edge_id: int | None = None) -> list[float]:
        raise NotImplementedError("NormalDepthBoundary is evaluated a segment at a time")

    def evaluate_segment(self, domain: Any, segment_edges: np.ndarray | None) -> None:
        if segment_edges is None or len(segment_edges) == 0:
            return
        quantities = domain.quantities
        ids = np.asarray(segment_edges)
        cells, edges = domain.boundary_cells[ids], domain.boundary_edges[ids]
        normal_x, normal_y = domain.normals[cells, 2 * edges], domain.normals[cells, 2 * edges + 1]
        stage = quantities["stage"].edge_values[cells, edges]
        depth = np.maximum(stage - quantities["elevation"].edge_values[cells, edges], 0.0)
        discharge = rating_discharge(
            depth=depth, mannings=quantities["friction"].centroid_values[cells], slope=self.slopes[ids]
        )
        quantities["stage"].boundary_values[ids] = stage
        quantities["xmomentum"].boundary_values[ids] = discharge * normal_x
        quantities["ymomentum"].boundary_values[ids] = discharge * normal_y


def normal_depth_boundary(
    domain: Any, *, tag: str, lines: Sequence[shapely.Geometry], slopes: Sequence[float]
) -> NormalDepthBoundary:
    """The boundary for the mesh edges tagged `tag`, each edge given the slope of the nearest of `lines`."""
    indices = np.asarray(domain.tag_boundary_cells.get(tag, []), dtype=int)
    midpoints = edge_midpoints(
        np.asarray(domain.get_vertex_coordinates(absolute=True)).reshape(-1, 3, 2),
        cells=domain.boundary_cells[indices],
        edges=domain.boundary_edges[indices],
    )
    by_edge = np.full(len(domain.boundary_cells), np.nan)
    if len(indices):
        by_edge[indices] = edge_slopes(midpoints=midpoints, lines=lines, slopes=slopes)
    return NormalDepthBoundary(domain, slopes=by_edge)


def edge_midpoints(triangles: np.ndarray, *, cells: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Midpoints of edge `edges[i]` of triangle `cells[i]` (ANUGA's edge k is the one opposite vertex k), given
    each triangle's three vertices as an (n, 3, 2) array."""
    first = triangles[cells, (edges + 1) % 3]
    second = triangles[cells, (edges + 2) % 3]
    return (first + second) / 2.0
