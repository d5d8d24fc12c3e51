"""Build the ANUGA mesh file of a scenario (`anuga.create_pmesh_from_regions` on a clean planar graph), and read a
built one back for the map."""

import contextlib
import io
import os
import pathlib
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import netCDF4
import numpy as np
import shapely

from hydrata.compute.simulation.boundary_edges import tagged_by_feature
from hydrata.compute.spatial.geometry import BoundaryRing, MeshRegion, Point
from hydrata.compute.spatial.planar import planar_graph
from hydrata_contract.inputs import BoundaryType

MESH_SUFFIXES = (".msh", ".tsh")
DEFAULT_FILENAME = "mesh.msh"
MINIMUM_TRIANGLE_ANGLE = 28.0
# A hole's outline is a wall: ANUGA's Reflective boundary (compute/simulation/forcing.py boundary_map).
HOLE_TAG = BoundaryType.REFLECTIVE.value


@dataclass(frozen=True)
class BuiltMesh:
    triangle_count: int
    path: pathlib.Path


def mesh_build(
    *,
    ring: BoundaryRing,
    regions: list[MeshRegion],
    resolution: float,
    breaklines: list[list[Point]],
    destination: pathlib.Path,
    holes: Sequence[shapely.Polygon] = (),
) -> BuiltMesh:
    """Triangulate the boundary, mesh regions and breaklines and write the mesh file ANUGA reads back
    (`anuga.Domain(path)`), boundary tags included (a Dirichlet feature's edges tagged by the feature).

    `destination` is the file to write (.msh, ANUGA's netCDF format, or .tsh, its text format) or an existing
    directory, in which `mesh.msh` is written. Outside the regions the maximum triangle area is
    resolution² / 2; each face of the graph gets the area of the smallest region containing it. `holes` (walled
    buildings, compute/simulation/structures.py) have no triangle inside; their outlines are boundary edges tagged
    Reflective. The file appears whole or not at all.
    """
    path = _mesh_path(pathlib.Path(destination))
    base_max_area = resolution**2 / 2
    ring = tagged_by_feature(
        ring
    )  # each Dirichlet feature's edges their own tag (compute/simulation/boundary_edges.py)
    graph = planar_graph(ring=ring, regions=regions, base_max_area=base_max_area, breaklines=breaklines, holes=holes)
    boundary_tags: dict[str, list[int]] = {}
    for index, tag in enumerate(graph.ring_tags):
        boundary_tags.setdefault(tag, []).append(index)
    seeds = [[face.seed[0], face.seed[1], face.max_triangle_area] for face in graph.faces if not graph.in_hole(face)]
    anuga = _anuga()
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(suffix=path.suffix, prefix=".mesh-", dir=path.parent)
    os.close(handle)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pmesh = anuga.create_pmesh_from_regions(
                [list(point) for point in graph.ring_points],
                boundary_tags,
                maximum_triangle_area=base_max_area,
                filename=None,  # triangulated below, once the holes are in
                breaklines=[[list(point) for point in line] for line in graph.interior_lines()] or None,
                regionPtArea=seeds,
                minimum_triangle_angle=MINIMUM_TRIANGLE_ANGLE,
                verbose=False,
            )
            for wall in graph.interior_lines(walls=True):
                segments = [[index, index + 1] for index in range(len(wall) - 1)]
                pmesh.add_points_and_segments(
                    [list(point) for point in wall], segments, segment_tags={HOLE_TAG: list(range(len(segments)))}
                )
            for face in graph.faces:
                if graph.in_hole(face):
                    pmesh.add_hole(face.seed[0], face.seed[1])
            pmesh.generate_mesh(minimum_triangle_angle=MINIMUM_TRIANGLE_ANGLE, verbose=False)
            pmesh.export_mesh_file(temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return BuiltMesh(triangle_count=len(pmesh.tri_mesh.triangles), path=path)


def _mesh_path(destination: pathlib.Path) -> pathlib.Path:
    if destination.suffix.lower() in MESH_SUFFIXES:
        return destination
    if destination.is_dir():
        return destination / DEFAULT_FILENAME
    raise ValueError(f"destination {destination} must be a .msh or .tsh file, or an existing directory")


def _anuga():
    """anuga, imported on first use: it prints a warning about mpi4py to stdout when imported."""
    with contextlib.redirect_stdout(io.StringIO()):
        import anuga
    return anuga


# --- reading a built mesh back, for the map ----------------------------------------------------------------------


@dataclass(frozen=True)
class MeshGeometry:
    nodes: np.ndarray  # (n_nodes, 2), absolute coordinates in the mesh's CRS
    triangles: np.ndarray  # (n_triangles, 3) node indices


def mesh_read(path: pathlib.Path) -> MeshGeometry:
    """The nodes and triangles of a .msh file (ANUGA's netCDF format), nodes moved by its geo-reference offset."""
    with netCDF4.Dataset(str(path)) as mesh:
        offset = np.array([float(getattr(mesh, "xllcorner", 0.0)), float(getattr(mesh, "yllcorner", 0.0))])
        nodes = np.asarray(mesh.variables["vertices"][:], dtype=float) + offset
        triangles = np.asarray(mesh.variables["triangles"][:], dtype=np.int64)
    return MeshGeometry(nodes=nodes, triangles=triangles)


def mesh_edges(triangles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every edge of the triangles once, as (n_edges, 2) node pairs, with how many triangles share each (1 on the
    mesh's outline, 2 inside)."""
    edges = np.sort(np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]]), axis=1)
    unique, counts = np.unique(edges, axis=0, return_counts=True)
    return unique, counts


def mesh_outline(triangles: np.ndarray) -> np.ndarray:
    """The edges on the mesh's outer and inner boundaries: those that belong to one triangle only."""
    edges, counts = mesh_edges(triangles)
    return edges[counts == 1]


def triangles_within(mesh: MeshGeometry, *, bounds: tuple[float, float, float, float]) -> np.ndarray:
    """Indices of the triangles whose bounding box meets bounds (west, south, east, north)."""
    west, south, east, north = bounds
    corners = mesh.nodes[mesh.triangles]  # (n, 3, 2)
    low, high = corners.min(axis=1), corners.max(axis=1)
    meets = (high[:, 0] >= west) & (low[:, 0] <= east) & (high[:, 1] >= south) & (low[:, 1] <= north)
    return np.flatnonzero(meets)
