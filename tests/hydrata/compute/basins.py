"""Two basins of our own design with a ridge between them, as a scenario package: rain fills the first (its ground
at 1 m), the second (at 0 m) is dry, walls all round, and a culvert under the ridge joins them. And the same model
built by hand in plain ANUGA, as a script would: the platform's answer must equal it."""

import json
from pathlib import Path

import numpy as np
import rasterio
from affine import Affine

from hydrata.compute.simulation.mesh import mesh_build
from hydrata.compute.simulation.structures import mesh_holes, site_breaklines
from hydrata.compute.spatial.geometry import boundary_ring
from tests.hydrata.compute.channel import CRS, feature, write_layer

X0, Y0 = 300_000.0, 6_200_000.0
LENGTH, WIDTH = 100.0, 20.0
CELL = 1.0
RIDGE = (40.0, 60.0)
FIRST_BED, RIDGE_BED, SECOND_BED = 1.0, 4.0, 0.0
RAIN_MM_PER_HOUR = 36_000.0  # 1 cm a second on the first basin
RAIN_EXTENT = (0.0, 38.0)
MANNINGS = 0.03
RESOLUTION = 2.0


def at(x: float, y: float) -> list[float]:
    return [X0 + x, Y0 + y]


def ground(x: np.ndarray) -> np.ndarray:
    return np.where(x < RIDGE[0], FIRST_BED, np.where(x < RIDGE[1], RIDGE_BED, SECOND_BED))


def write_dem(path: Path) -> None:
    margin = 6.0
    columns, rows = int((LENGTH + 2 * margin) / CELL), int((WIDTH + 2 * margin) / CELL)
    x = (np.arange(columns) + 0.5) * CELL - margin
    with rasterio.open(
        path,
        "w",
        driver="GTiff",
        width=columns,
        height=rows,
        count=1,
        dtype="float32",
        crs=CRS,
        transform=Affine(CELL, 0.0, X0 - margin, 0.0, -CELL, Y0 + WIDTH + margin),
        nodata=-9999.0,
    ) as destination:
        destination.write(np.tile(ground(x), (rows, 1)).astype(np.float32), 1)


def box_culvert(name: str = "under ridge", **properties) -> dict:
    values = {"name": name, "shape": "box", "width": 1.0, "height": 0.5, **properties}
    return feature("LineString", [at(30, 10), at(70, 10)], **values)


def make_basins_package(directory: Path, *, duration: float = 120, site: dict[str, list[dict]] | None = None) -> Path:
    inputs = directory / "inputs"
    inputs.mkdir(parents=True)
    write_dem(inputs / "dem.tif")
    corners = [at(0, 0), at(LENGTH, 0), at(LENGTH, WIDTH), at(0, WIDTH)]
    boundary = [
        feature("LineString", [corners[index], corners[(index + 1) % 4]], boundary="Reflective", location="External")
        for index in range(4)
    ]
    ring = boundary_ring(boundary)
    site = site or {}
    mesh = mesh_build(
        ring=ring,
        regions=[],
        resolution=RESOLUTION,
        breaklines=site_breaklines(breaklines=site.get("breakline", []), weirs=site.get("weir", [])),
        holes=mesh_holes(site.get("structure", [])),
        destination=directory / "mesh.msh",
    )
    west, east = RAIN_EXTENT
    layers = {
        "boundary": boundary,
        "friction": [
            feature("Polygon", [[at(-1, -1), at(101, -1), at(101, 21), at(-1, 21), at(-1, -1)]], mannings=MANNINGS)
        ],
        "rainfall": [
            feature(
                "Polygon",
                [[at(west, -1), at(east, -1), at(east, 21), at(west, 21), at(west, -1)]],
                data=RAIN_MM_PER_HOUR,
            )
        ],
        **site,
    }
    files = {kind: write_layer(inputs / f"{kind}.geojson", features) for kind, features in layers.items() if features}
    manifest = {
        "format_version": "1.0",
        "run_id": 1,
        "scenario_id": 1,
        "project": 1,
        "epsg": CRS,
        "name": "Two basins",
        "description": "",
        "elevation": "inputs/dem.tif",
        **files,
        "time_series": {},
        "mesh": "mesh.msh",
        "mesh_triangle_count": mesh.triangle_count,
        "mesh_triangle_count_estimate": mesh.triangle_count,
        "boundary_tags": ring.boundary_tags(),
        "resolution": RESOLUTION,
        "duration": duration,
        "model_start": None,
        "inundation_threshold_m": 0.05,
    }
    (directory / "scenario.json").write_text(json.dumps(manifest, indent=2))
    return directory
