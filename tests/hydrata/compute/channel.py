"""A straight, uniform channel of our own design, as a scenario package: a DEM generated here (a plane sloping down
the channel), walls on three sides, an outlet at the downstream end, a constant inflow line across the top of the
channel, gauges down its centre line and a flow line across its middle.

Manning's normal depth for it, with ANUGA's frictionless walls (so the hydraulic radius is the depth):
h = (q n / sqrt(S))^(3/5) with q = Q / W."""

import json
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import rasterio
from affine import Affine

from hydrata.compute.simulation.mesh import mesh_build
from hydrata.compute.simulation.structures import mesh_holes, site_breaklines
from hydrata.compute.spatial.geometry import boundary_ring

ROOT = Path(__file__).resolve().parents[3]
CRS = "EPSG:28356"
X0, Y0 = 300_000.0, 6_200_000.0  # far from the origin, as real coordinates are
LENGTH, WIDTH = 400.0, 40.0
SLOPE, MANNINGS, FLOW = 0.002, 0.03, 40.0
BED_AT_OUTLET = 10.0
INLET_X = 2.0
CELL = 2.0
GAUGE_X = (2.0, 50.0, 100.0, 150.0, 200.0, 250.0, 300.0, 350.0, 390.0)
FLOW_LINE_X = 200.0
NORMAL_DEPTH = (FLOW / WIDTH * MANNINGS / math.sqrt(SLOPE)) ** 0.6
NORMAL_SPEED = FLOW / WIDTH / NORMAL_DEPTH


def at(x: float, y: float) -> list[float]:
    """Channel coordinates (x down the channel, y across it) in the project CRS."""
    return [X0 + x, Y0 + y]


def bed(x: np.ndarray) -> np.ndarray:
    return BED_AT_OUTLET + SLOPE * (LENGTH - x)


def gauge_name(x: float) -> str:
    return f"x{x:g}"


def feature(geometry_type: str, coordinates, **properties) -> dict:
    return {
        "type": "Feature",
        "properties": properties,
        "geometry": {"type": geometry_type, "coordinates": coordinates},
    }


def write_dem(path: Path) -> None:
    margin = 10.0
    columns, rows = int((LENGTH + 2 * margin) / CELL), int((WIDTH + 2 * margin) / CELL)
    transform = Affine(CELL, 0.0, X0 - margin, 0.0, -CELL, Y0 + WIDTH + margin)
    x = (np.arange(columns) + 0.5) * CELL - margin
    elevation = np.tile(bed(x), (rows, 1)).astype(np.float32)
    with rasterio.open(
        path,
        "w",
        driver="GTiff",
        width=columns,
        height=rows,
        count=1,
        dtype="float32",
        crs=CRS,
        transform=transform,
        nodata=-9999.0,
    ) as destination:
        destination.write(elevation, 1)


def boundary_features(outlet: str) -> list[dict]:
    corners = [at(0, 0), at(LENGTH, 0), at(LENGTH, WIDTH), at(0, WIDTH)]
    outlet_properties = {"slope": SLOPE} if outlet == "NormalDepth" else {}
    return [
        feature("LineString", [corners[0], corners[1]], boundary="Reflective", location="External"),
        feature("LineString", [corners[1], corners[2]], boundary=outlet, location="External", **outlet_properties),
        feature("LineString", [corners[2], corners[3]], boundary="Reflective", location="External"),
        feature("LineString", [corners[3], corners[0]], boundary="Reflective", location="External"),
    ]


def write_layer(path: Path, features: list[dict]) -> str:
    path.write_text(
        json.dumps(
            {"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": CRS}}, "features": features}
        )
    )
    return f"inputs/{path.name}"


def make_channel_package(
    directory: Path,
    *,
    outlet: str = "NormalDepth",
    duration: int = 900,
    resolution: float = 5.0,
    flow: float | None = FLOW,
    rain_mm_per_hour: float | None = None,
    flow_lines: list[dict] | None = None,
    site: dict[str, list[dict]] | None = None,
) -> Path:
    """The channel's package; `flow=None` drops the inflow line, `rain_mm_per_hour` rains on all of it (a plane
    under uniform rain), `flow_lines` replaces the one across its middle, `site` adds layers of the site as built
    (structure, breakline, culvert, weir: features by kind), meshed as the platform's build meshes them."""
    inputs = directory / "inputs"
    inputs.mkdir(parents=True)
    write_dem(inputs / "dem.tif")
    boundary = boundary_features(outlet)
    ring = boundary_ring(boundary)
    site = site or {}
    mesh = mesh_build(
        ring=ring,
        regions=[],
        resolution=resolution,
        breaklines=site_breaklines(breaklines=site.get("breakline", []), weirs=site.get("weir", [])),
        holes=mesh_holes(site.get("structure", [])),
        destination=directory / "mesh.msh",
    )
    layers = {
        "boundary": boundary,
        "friction": [
            feature(
                "Polygon",
                [[at(-1, -1), at(LENGTH + 1, -1), at(LENGTH + 1, WIDTH + 1), at(-1, WIDTH + 1), at(-1, -1)]],
                mannings=MANNINGS,
            )
        ],
        "inflow": [feature("LineString", [at(INLET_X, 0), at(INLET_X, WIDTH)], type="Surface", data=flow)]
        if flow is not None
        else [],
        "rainfall": [
            feature(
                "Polygon",
                [[at(-1, -1), at(LENGTH + 1, -1), at(LENGTH + 1, WIDTH + 1), at(-1, WIDTH + 1), at(-1, -1)]],
                data=rain_mm_per_hour,
            )
        ]
        if rain_mm_per_hour is not None
        else [],
        "gauge": [feature("Point", at(x, WIDTH / 2), name=gauge_name(x)) for x in GAUGE_X],
        "flow_line": flow_lines
        if flow_lines is not None
        else [feature("LineString", [at(FLOW_LINE_X, 0), at(FLOW_LINE_X, WIDTH)], name="middle")],
        **site,
    }
    files = {
        kind: write_layer(inputs / f"{kind}.geojson", features) if features else None
        for kind, features in layers.items()
    }
    manifest = {
        "format_version": "1.0",
        "run_id": 1,
        "scenario_id": 1,
        "project": 1,
        "epsg": CRS,
        "name": "Channel",
        "description": "",
        "elevation": "inputs/dem.tif",
        "structure": None,
        **files,
        "mesh_region": None,
        "time_series": {},
        "mesh": "mesh.msh",
        "mesh_triangle_count": mesh.triangle_count,
        "mesh_triangle_count_estimate": mesh.triangle_count,
        "boundary_tags": ring.boundary_tags(),
        "resolution": resolution,
        "duration": duration,
        "model_start": None,
        "inundation_threshold_m": 0.05,
    }
    (directory / "scenario.json").write_text(json.dumps(manifest, indent=2))
    return directory


@dataclass(frozen=True)
class ChannelRun:
    output: Path
    statistics: dict
    series: dict

    def gauge(self, x: float) -> dict:
        return next(gauge for gauge in self.series["gauges"] if gauge["name"] == gauge_name(x))


def run_channel(package: Path, output: Path, *, yield_seconds: float = 10) -> ChannelRun:
    """The simulation child on the package, as the platform runs it; fails the test with its stderr if it fails."""
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "hydrata.compute.simulation.simulate",
            "--package",
            str(package),
            "--output",
            str(output),
            "--yield-seconds",
            str(yield_seconds),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert process.returncode == 0, process.stderr[-4000:]
    return ChannelRun(
        output=output,
        statistics=json.loads((output / "statistics.json").read_text()),
        series=json.loads((output / "time_series.json").read_text()),
    )
