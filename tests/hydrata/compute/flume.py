"""A rectangular flume of our own design as a scenario package, for the analytic cases of the water's start, the
stage edges and the losses: a bed given as a function of x (down the flume), walls or stage edges on each side,
any input layers, gauges down the centre line. Run by the simulation child as the platform runs it.

Coordinates: x from 0 to `length` down the flume, y from 0 to `width` across it, at (X0 + x, Y0 + y) in CRS."""

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import rasterio
from affine import Affine

from hydrata.compute.simulation.boundary_edges import tagged_by_feature
from hydrata.compute.simulation.mesh import mesh_build
from hydrata.compute.simulation.structures import mesh_holes, site_breaklines
from hydrata.compute.spatial.geometry import boundary_ring
from tests.hydrata.compute.channel import ChannelRun, feature, run_channel, write_layer

CRS = "EPSG:28356"
X0, Y0 = 300_000.0, 6_200_000.0


def at(x: float, y: float) -> list[float]:
    return [X0 + x, Y0 + y]


def rectangle(x0: float, y0: float, x1: float, y1: float, **properties) -> dict:
    return feature("Polygon", [[at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1), at(x0, y0)]], **properties)


def gauge_name(x: float) -> str:
    return f"x{x:g}"


@dataclass
class Flume:
    length: float
    width: float
    bed: Callable[[np.ndarray], np.ndarray] = lambda x: np.zeros_like(x)
    cell: float = 0.5  # the DEM's cell (m): fine, as ANUGA takes each triangle's bed from the cell under it
    # the boundary type (and properties) of the upstream (x = 0), downstream (x = length) and side edges
    upstream: dict = field(default_factory=lambda: {"boundary": "Reflective"})
    downstream: dict = field(default_factory=lambda: {"boundary": "Reflective"})
    sides: dict = field(default_factory=lambda: {"boundary": "Reflective"})
    mannings: float = 0.0
    layers: dict[str, list[dict]] = field(default_factory=dict)  # inflow, rainfall, initial_condition, structure...
    gauges_x: tuple[float, ...] = ()
    time_series: dict[str, dict] = field(default_factory=dict)  # name: {"series_type", "units", "rows"}

    def boundary(self) -> list[dict]:
        corners = [at(0, 0), at(self.length, 0), at(self.length, self.width), at(0, self.width)]
        return [
            feature("LineString", [corners[0], corners[1]], location="External", **self.sides),
            feature("LineString", [corners[1], corners[2]], location="External", **self.downstream),
            feature("LineString", [corners[2], corners[3]], location="External", **self.sides),
            feature("LineString", [corners[3], corners[0]], location="External", **self.upstream),
        ]

    def write_dem(self, path: Path) -> None:
        margin = 4 * self.cell
        columns = round((self.length + 2 * margin) / self.cell)
        rows = round((self.width + 2 * margin) / self.cell)
        transform = Affine(self.cell, 0.0, X0 - margin, 0.0, -self.cell, Y0 + self.width + margin)
        x = (np.arange(columns) + 0.5) * self.cell - margin
        with rasterio.open(
            path,
            "w",
            driver="GTiff",
            width=columns,
            height=rows,
            count=1,
            dtype="float64",
            crs=CRS,
            transform=transform,
            nodata=-9999.0,
        ) as destination:
            destination.write(np.tile(self.bed(x), (rows, 1)), 1)

    def package(self, directory: Path, *, resolution: float, duration: float) -> Path:
        inputs = directory / "inputs"
        inputs.mkdir(parents=True)
        self.write_dem(inputs / "dem.tif")
        boundary = self.boundary()
        ring = boundary_ring(boundary)
        mesh = mesh_build(  # the site's holes, breaklines and weirs meshed as the platform's build meshes them
            ring=ring,
            regions=[],
            resolution=resolution,
            breaklines=site_breaklines(breaklines=self.layers.get("breakline", []), weirs=self.layers.get("weir", [])),
            holes=mesh_holes(self.layers.get("structure", [])),
            destination=directory / "mesh.msh",
        )
        everywhere = rectangle(-1, -1, self.length + 1, self.width + 1, mannings=self.mannings)
        layers = {
            "boundary": boundary,
            "friction": [everywhere],
            "gauge": [feature("Point", at(x, self.width / 2), name=gauge_name(x)) for x in self.gauges_x],
            **self.layers,
        }
        files = {
            kind: write_layer(inputs / f"{kind}.geojson", items) if items else None for kind, items in layers.items()
        }
        series_files = {}
        for index, (name, series) in enumerate(self.time_series.items()):
            (directory / "time_series").mkdir(exist_ok=True)
            relative = f"time_series/{index:03d}.json"
            (directory / relative).write_text(json.dumps({"name": name, **series}))
            series_files[name] = relative
        manifest = {
            "format_version": "1.0",
            "run_id": 1,
            "scenario_id": 1,
            "project": 1,
            "epsg": CRS,
            "name": "Flume",
            "description": "",
            "elevation": "inputs/dem.tif",
            **files,
            "time_series": series_files,
            "mesh": "mesh.msh",
            "mesh_triangle_count": mesh.triangle_count,
            "mesh_triangle_count_estimate": mesh.triangle_count,
            "boundary_tags": tagged_by_feature(ring).boundary_tags(),
            "resolution": resolution,
            "duration": duration,
            "model_start": None,
            "inundation_threshold_m": 0.05,
        }
        (directory / "scenario.json").write_text(json.dumps(manifest, indent=2))
        return directory

    def run(self, directory: Path, *, resolution: float, duration: float, yield_seconds: float) -> "FlumeRun":
        package = self.package(directory / "package", resolution=resolution, duration=duration)
        done = run_channel(package, directory / "output", yield_seconds=yield_seconds)
        return FlumeRun(output=done.output, statistics=done.statistics, series=done.series)


@dataclass(frozen=True)
class FlumeRun(ChannelRun):
    def gauge(self, x: float) -> dict:
        return next(gauge for gauge in self.series["gauges"] if gauge["name"] == gauge_name(x))

    def at_time(self, x: float, quantity: str, t: float) -> float:
        """A gauge's `quantity` (stage, depth, speed) at the recorded time nearest t."""
        index = int(np.argmin(np.abs(np.asarray(self.series["t"]) - t)))
        return float(self.gauge(x)[quantity][index])

    def last(self, x: float, quantity: str) -> float:
        return float(self.gauge(x)[quantity][-1])

    @property
    def balance(self) -> dict:
        return self.statistics["volume_balance"]
