"""Which mesh edges a flow line crosses, and the mass flux ANUGA's DE solver passes through an edge, so that a line's
discharge is read from the solver's own edge fluxes.

A line (a polyline walked from its first point to its last) separates the triangles on its left from those on its
right: an edge counts when the segment joining the centroids of its two triangles crosses the line (for an edge on
the mesh's boundary, the segment from the triangle's centroid to its mirror image across the edge). Each counted edge
is read from one of its triangles, the "near" one, and carries a sign: +1 when the near triangle lies left of the line,
so that water leaving it through the edge crosses left to right (towards the right-hand normal, which is positive),
-1 when it lies right. A line that follows mesh edges, crosses them, or runs along the boundary is handled alike.

Made for parallel runs too: each edge is weighted by how much of it this process owns (ANUGA's `tri_full_flag`):
1 between two full triangles or on the boundary of a full one, 1/2 between a full triangle and a ghost (its owner
counts the other half), 0 between ghosts, so that the discharges of all processes add up to the line's.

Pure numpy: no ANUGA, no Django."""

from dataclasses import dataclass
from itertools import pairwise

import numpy as np


@dataclass(frozen=True)
class MeshTopology:
    """What the edge search needs of a mesh, in ANUGA's layout: edge i of triangle k is slot 3k + i."""

    centroids: np.ndarray  # (n, 2)
    edge_midpoints: np.ndarray  # (n, 3, 2)
    neighbours: np.ndarray  # (n, 3): the triangle across each edge, negative on the boundary
    full: np.ndarray  # (n,): True for a triangle this process owns


@dataclass(frozen=True)
class CrossedEdges:
    """The edges a line crosses, each as the slot (3k + i) of its near triangle k, with its sign (+1 near triangle
    left of the line, -1 right) times the share of the edge this process owns."""

    slots: np.ndarray  # (m,) int
    weights: np.ndarray  # (m,) float


def crossed_edges(*, mesh: MeshTopology, parts: list[np.ndarray]) -> CrossedEdges:
    """The edges crossed by a line of one or more parts (each an (p, 2) array of at least two points)."""
    near, far, slots, owned = _edge_segments(mesh)
    crossings = np.zeros(len(slots), dtype=float)
    for part in parts:
        crossings += _signed_crossings(near, far, np.asarray(part, dtype=float))
    keep = (crossings != 0) & (owned > 0)
    return CrossedEdges(slots=slots[keep], weights=(crossings * owned)[keep])


def _edge_segments(mesh: MeshTopology) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For every edge once: the centroid of its near triangle, the point across the edge (the other centroid, or
    the mirror image of the near one on the boundary), its slot, and the share of it this process owns."""
    count = len(mesh.centroids)
    slot = np.arange(3 * count)
    triangle = slot // 3
    neighbour = np.asarray(mesh.neighbours, dtype=np.int64).reshape(-1)
    full = np.asarray(mesh.full, dtype=bool)
    boundary = neighbour < 0
    other = np.where(boundary, triangle, neighbour)
    # each interior edge once, read from a triangle this process owns when it owns only one of the two
    near_is_preferred = full[triangle] & ~full[other] | ((full[triangle] == full[other]) & (triangle < other))
    keep = boundary | near_is_preferred
    slot, triangle, other, boundary = slot[keep], triangle[keep], other[keep], boundary[keep]
    near = mesh.centroids[triangle]
    midpoint = np.asarray(mesh.edge_midpoints, dtype=float).reshape(-1, 2)[slot]
    far = np.where(boundary[:, None], 2.0 * midpoint - near, mesh.centroids[other])
    owned = np.where(boundary, full[triangle], 0.5 * (full[triangle].astype(float) + full[other]))
    return near, far, slot, owned.astype(float)


def _signed_crossings(near: np.ndarray, far: np.ndarray, part: np.ndarray) -> np.ndarray:
    """For each segment near -> far, the sum over the part's segments it crosses of +1 (near on the left) or -1.
    Sides are half-open (a point exactly on a line counts as left), so that a crossing through a vertex of the
    line, or along one of its segments, is counted once."""
    total = np.zeros(len(near), dtype=float)
    reach = float(np.max(np.linalg.norm(far - near, axis=1), initial=0.0))
    low, high = part.min(axis=0) - reach, part.max(axis=0) + reach
    candidates = np.flatnonzero(np.all((near >= low) & (near <= high), axis=1))
    a, b = near[candidates], far[candidates]
    for start, end in pairwise(part):
        a_left = _orientation(start, end, a) >= 0
        b_left = _orientation(start, end, b) >= 0
        start_left = _orientation_of_point(a, b, start) >= 0
        end_left = _orientation_of_point(a, b, end) >= 0
        crosses = (a_left != b_left) & (start_left != end_left)
        total[candidates] += np.where(crosses, np.where(a_left, 1.0, -1.0), 0.0)
    return total


def _orientation(start: np.ndarray, end: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Twice the signed area of (start, end, point): positive when the point is left of start -> end."""
    direction = end - start
    offset = points - start
    return direction[0] * offset[:, 1] - direction[1] * offset[:, 0]


def _orientation_of_point(starts: np.ndarray, ends: np.ndarray, point: np.ndarray) -> np.ndarray:
    """As `_orientation`, for one point against many segments."""
    direction = ends - starts
    offset = point - starts
    return direction[:, 0] * offset[:, 1] - direction[:, 1] * offset[:, 0]


@dataclass(frozen=True)
class EdgeStates:
    """Both sides of each edge as ANUGA's DE flux kernel sees them, side "left" being the near triangle's: stage and
    momentum at the edge, depth at the edge (`height`), the depths above the edge's bed (`h`: the bed there is the
    higher of the two sides'), and that bed."""

    stage_left: np.ndarray
    stage_right: np.ndarray
    normal_momentum_left: np.ndarray  # momentum along the edge's outward normal from the near triangle
    normal_momentum_right: np.ndarray
    height_left: np.ndarray
    height_right: np.ndarray
    h_left: np.ndarray
    h_right: np.ndarray
    bed_at_edge: np.ndarray


def central_upwind_mass_flux(states: EdgeStates, *, g: float, epsilon: float) -> np.ndarray:
    """The mass flux per unit length out of the near triangle through each edge: the first component of ANUGA's
    central-upwind (Kurganov-Noelle-Petrova) flux, `flux_function_central` of its DE kernels, for many edges at
    once. Its momentum components are not needed (nor the low-Froude scaling, which touches only them); a dry edge
    (no depth either side) carries nothing."""
    u_left = _velocity(states.normal_momentum_left, states.height_left)
    u_right = _velocity(states.normal_momentum_right, states.height_right)
    c_left, c_right = np.sqrt(g * states.h_left), np.sqrt(g * states.h_right)
    s_max = np.maximum(np.maximum(u_left + c_left, u_right + c_right), 0.0)
    s_min = np.minimum(np.minimum(u_left - c_left, u_right - c_right), 0.0)
    denominator = s_max - s_min
    flux = s_max * (u_left * states.h_left) - s_min * (u_right * states.h_right)
    flux += (s_max * s_min) * (
        np.maximum(states.stage_right, states.bed_at_edge) - np.maximum(states.stage_left, states.bed_at_edge)
    )
    flux *= 1.0 / np.maximum(denominator, 1.0e-100)
    dry = (states.h_left == 0.0) & (states.h_right == 0.0)
    return np.where(dry | (denominator < epsilon), 0.0, flux)


def _velocity(momentum: np.ndarray, height: np.ndarray) -> np.ndarray:
    """Momentum over the depth at the edge, 0 where that depth is 0 (as ANUGA: no desingularisation at edges)."""
    wet = height > 0.0
    return np.where(wet, momentum / np.where(wet, height, 1.0), 0.0)
