"""A finished run's results: per-triangle maxima, hazard and inundation times put onto the DEM's grid as
Cloud-Optimized GeoTIFFs, the statistics an engineer reads first (compute/outputs/run_statistics.py), the gauge and flow
line series and a preview image. Values at points are read by compute/rasters/sampling.py."""

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import rasterio
from matplotlib.tri import Triangulation
from PIL import Image

from hydrata.compute.outputs.run_statistics import VolumeAccount, run_statistics
from hydrata.compute.rasters.grid_codes import HAZARD_NODATA, NODATA, WET_DEPTH_M
from hydrata.compute.scenario.package import Grid
from hydrata_contract.compute import RunOutputs
from hydrata_contract.layers import ENVELOPE_LAYERS, ResultLayer
from hydrata_contract.states import RunStatus

RASTERS = {layer.value: layer.filename for layer in ResultLayer}
PREVIEW_MAX_PIXELS = 1024
PREVIEW_COLOURMAP = "YlGnBu"  # sequential, light (shallow) to dark blue (deep)
PREVIEW_RAMP_START = 0.25  # skip the palest quarter of the ramp so that shallow water still shows on a light map
ROWS_PER_BLOCK_CELLS = 1_000_000  # cell centres located per TriFinder call, to bound memory


@dataclass(frozen=True)
class MeshMaxima:
    """What the run kept of each triangle of the mesh (absolute coordinates of the project CRS): the maxima with
    the times they were reached, the highest hazard class, and when and for how long the water stood above the
    inundation threshold (NaN time where it never did). Times are seconds from the run's start."""

    nodes: np.ndarray  # (n_nodes, 2)
    triangles: np.ndarray  # (n_triangles, 3) node indices
    max_depth: np.ndarray  # (n_triangles,)
    max_speed: np.ndarray
    max_stage: np.ndarray
    time_of_max_depth: np.ndarray
    time_of_max_speed: np.ndarray
    time_of_max_stage: np.ndarray
    max_hazard: np.ndarray  # uint8, 0 dry, 1-6
    time_of_inundation: np.ndarray
    duration_of_inundation: np.ndarray

    @property
    def centroids(self) -> np.ndarray:
        return self.nodes[self.triangles].mean(axis=1)

    def raster_values(self, name: str) -> np.ndarray:
        """The per-triangle values of raster `name`; the duration is NaN (nodata) where the water never rose."""
        if name == ResultLayer.DURATION_OF_INUNDATION:
            return np.where(np.isnan(self.time_of_inundation), np.nan, self.duration_of_inundation)
        return getattr(self, name)


# --- rasterising -----------------------------------------------------------------------------------------------


def triangle_index_grid(*, nodes: np.ndarray, triangles: np.ndarray, grid: Grid) -> np.ndarray:
    """For each cell of `grid`, the index of the mesh triangle containing the cell centre, -1 outside the mesh.

    The lookup is exact point-in-triangle (matplotlib's trapezoid-map TriFinder), done a block of rows at a time.
    """
    finder = Triangulation(nodes[:, 0], nodes[:, 1], triangles).get_trifinder()
    index = np.empty((grid.height, grid.width), dtype=np.int32)
    rows_per_block = max(1, ROWS_PER_BLOCK_CELLS // max(grid.width, 1))
    cols = np.arange(grid.width) + 0.5
    for first in range(0, grid.height, rows_per_block):
        rows = np.arange(first, min(first + rows_per_block, grid.height)) + 0.5
        col_grid, row_grid = np.meshgrid(cols, rows)
        x, y = grid.transform @ (col_grid, row_grid)
        index[first : first + len(rows)] = finder(x, y)
    return index


def grid_values(index: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The per-triangle `values` spread over the grid (float32, NODATA outside the mesh or where not finite)."""
    out = np.full(index.shape, NODATA, dtype=np.float32)
    inside = index >= 0
    out[inside] = values[index[inside]]
    out[~np.isfinite(out)] = NODATA
    return out


def hazard_grid(index: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The per-triangle hazard classes spread over the grid (uint8, HAZARD_NODATA outside the mesh)."""
    out = np.full(index.shape, HAZARD_NODATA, dtype=np.uint8)
    inside = index >= 0
    out[inside] = classes[index[inside]]
    return out


def write_cog(path: Path, array: np.ndarray, grid: Grid) -> None:
    """A one-band Cloud-Optimized GeoTIFF on `grid`: float32 with nodata NODATA, or uint8 (hazard classes) with
    nodata HAZARD_NODATA."""
    integer = array.dtype == np.uint8
    profile = {
        "driver": "COG",
        "width": grid.width,
        "height": grid.height,
        "count": 1,
        "dtype": "uint8" if integer else "float32",
        "crs": grid.crs,
        "transform": grid.transform,
        "nodata": HAZARD_NODATA if integer else NODATA,
        "compress": "deflate",
    }
    with rasterio.open(path, "w", **profile) as destination:
        destination.write(array if integer else array.astype(np.float32), 1)


# --- preview ---------------------------------------------------------------------------------------------------


def write_preview(path: Path, max_depth_grid: np.ndarray) -> None:
    """A PNG of maximum depth on a sequential ramp from 0 to the deepest cell, transparent where dry (< 1 cm) or
    nodata, scaled down (nearest neighbour) to at most PREVIEW_MAX_PIXELS on its long side."""
    from matplotlib import colormaps

    wet = (max_depth_grid != NODATA) & (max_depth_grid >= WET_DEPTH_M)
    top = float(max_depth_grid[wet].max()) if wet.any() else 1.0
    scaled = np.clip(np.where(wet, max_depth_grid, 0.0) / max(top, WET_DEPTH_M), 0.0, 1.0)
    ramp = PREVIEW_RAMP_START + (1.0 - PREVIEW_RAMP_START) * scaled
    rgba = (colormaps[PREVIEW_COLOURMAP](ramp) * 255).astype(np.uint8)
    rgba[..., 3] = np.where(wet, 255, 0)
    image = Image.fromarray(rgba)
    height, width = max_depth_grid.shape
    longest = max(height, width)
    if longest > PREVIEW_MAX_PIXELS:
        factor = PREVIEW_MAX_PIXELS / longest
        image = image.resize((max(1, round(width * factor)), max(1, round(height * factor))), Image.Resampling.NEAREST)
    image.save(path, format="PNG")


# --- writing all of it -----------------------------------------------------------------------------------------


class Staging:
    """Result files written under temporary names in the output directory and renamed all together at the end,
    so that a run stopped half way never leaves a file that looks like a finished result."""

    def __init__(self, output_dir: Path) -> None:
        self.output_dir = output_dir
        self.staged: dict[str, Path] = {}
        self.scratch_files: list[Path] = []

    def path(self, name: str) -> Path:
        """Where to write the file that will be called `name` (a hidden `.name.partial`)."""
        return self.adopt(name, self.output_dir / f".{name}.partial")

    def adopt(self, name: str, path: Path) -> Path:
        """Stage a file something else writes at `path` (ANUGA's .sww)."""
        self.staged[name] = path
        return path

    def scratch(self, path: Path) -> None:
        """A working file (ANUGA's .sww.lock) to delete however the run ends."""
        self.scratch_files.append(path)

    def commit(self) -> None:
        """Rename every staged file to its final name, result.json last: its presence means the run is done."""
        for name in sorted(self.staged, key=lambda staged_name: staged_name == "result.json"):
            os.replace(self.staged[name], self.output_dir / name)
        self.staged.clear()
        self._remove_scratch()

    def discard(self) -> None:
        """Delete whatever is still staged (after an error or a termination)."""
        for path in self.staged.values():
            path.unlink(missing_ok=True)
        self.staged.clear()
        self._remove_scratch()

    def _remove_scratch(self) -> None:
        for path in self.scratch_files:
            path.unlink(missing_ok=True)
        self.scratch_files.clear()


def write_results(
    *,
    staging: Staging,
    maxima: MeshMaxima,
    grid: Grid,
    account: VolumeAccount,
    health: dict[str, Any] | None = None,
    timing: dict[str, float],
    series: dict[str, Any],
    extra_files: dict[str, str],
    inundation_threshold_m: float,
    outputs: RunOutputs = RunOutputs.FULL,
    solver: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Write the rasters, statistics.json, time_series.json (the gauges and flow lines), preview.png and
    result.json under staged names; returns the statistics. `timing` holds sim_seconds and wall_seconds; `health` is
    compute/simulation/health.py's report, kept in the statistics as `health`. With RunOutputs.ENVELOPE only the
    envelope layers' rasters are written, and no preview; the statistics are the same. `solver` is the ANUGA version and
    the settings the domain ran with (compute/simulation/solver.py), kept as the statistics' `solver`."""
    index = triangle_index_grid(nodes=maxima.nodes, triangles=maxima.triangles, grid=grid)
    written = RASTERS if outputs == RunOutputs.FULL else {layer.value: layer.filename for layer in ENVELOPE_LAYERS}
    grids = {}
    for name in RASTERS:
        values = maxima.raster_values(name)
        grids[name] = hazard_grid(index, values) if name == ResultLayer.MAX_HAZARD else grid_values(index, values)
        if name in written:
            write_cog(staging.path(written[name]), grids[name], grid)
    statistics = run_statistics(
        maxima=maxima,
        grids=grids,
        cell_area=grid.cell_area,
        account=account,
        health=health,
        series=series,
        inundation_threshold_m=inundation_threshold_m,
        solver=solver,
        **timing,
    )
    staging.path("statistics.json").write_text(json.dumps(statistics, indent=2))
    staging.path("time_series.json").write_text(json.dumps(series))
    preview = {"preview": "preview.png"} if outputs == RunOutputs.FULL else {}
    if preview:
        write_preview(staging.path(preview["preview"]), grids[ResultLayer.MAX_DEPTH])
    files = {**written, "statistics": "statistics.json", "time_series": "time_series.json", **preview, **extra_files}
    west, north = grid.transform @ (0, 0)
    east, south = grid.transform @ (grid.width, grid.height)
    result = {
        "status": RunStatus.COMPLETE,
        "files": files,
        "crs": grid.crs.to_string() if grid.crs else None,
        "bounds": [min(west, east), min(south, north), max(west, east), max(south, north)],
        "nodata": NODATA,
    }
    staging.path("result.json").write_text(json.dumps(result, indent=2))
    return statistics
