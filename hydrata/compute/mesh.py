"""Build the ANUGA mesh file of a scenario: `anuga.create_pmesh_from_regions` on a clean planar graph."""

import contextlib
import io
import os
import pathlib
import tempfile
import warnings
from dataclasses import dataclass

from hydrata.compute.geometry import BoundaryRing, MeshRegion, Point
from hydrata.compute.planar import planar_graph

MESH_SUFFIXES = (".msh", ".tsh")
DEFAULT_FILENAME = "mesh.msh"
MINIMUM_TRIANGLE_ANGLE = 28.0


@dataclass(frozen=True)
class BuiltMesh:
    triangle_count: int
    path: pathlib.Path


def mesh_build(*, ring: BoundaryRing, regions: list[MeshRegion], resolution: float,
               breaklines: list[list[Point]], destination: pathlib.Path) -> BuiltMesh:
    """Triangulate the boundary, mesh regions and breaklines and write the mesh file ANUGA reads back
    (`anuga.Domain(path)`), boundary tags included.

    `destination` is the file to write (.msh, ANUGA's netCDF format, or .tsh, its text format) or an existing
    directory, in which `mesh.msh` is written. Outside the regions the maximum triangle area is
    resolution² / 2; each face of the graph gets the area of the smallest region containing it. The file appears
    whole or not at all.
    """
    path = _mesh_path(pathlib.Path(destination))
    base_max_area = resolution**2 / 2
    graph = planar_graph(ring=ring, regions=regions, base_max_area=base_max_area, breaklines=breaklines)
    boundary_tags: dict[str, list[int]] = {}
    for index, tag in enumerate(graph.ring_tags):
        boundary_tags.setdefault(tag, []).append(index)
    seeds = [[face.seed[0], face.seed[1], face.max_triangle_area] for face in graph.faces]
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
                filename=temporary,
                breaklines=[[list(point) for point in line] for line in graph.interior_lines()] or None,
                regionPtArea=seeds,
                minimum_triangle_angle=MINIMUM_TRIANGLE_ANGLE,
                verbose=False,
            )
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
