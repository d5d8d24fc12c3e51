"""Depth at the times a run saved (the map's time slider): one Cloud-Optimized GeoTIFF per kept frame of ANUGA's
output (.sww), on the DEM's grid like the other result rasters, and an index of their times. A run keeps at most
`cap` frames, evenly spaced over those saved (the first and the last always among them), so that the cost of the
post-processing and the storage is bounded whatever the run's length. No Django."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import netCDF4
import numpy as np

from hydrata.compute.outputs.results import grid_values, triangle_index_grid, write_cog
from hydrata.compute.scenario.package import Grid
from hydrata_contract.layers import DEPTH_FRAMES_INDEX, depth_frame_filename


def kept_frames(saved: int, cap: int) -> list[int]:
    """The indices of the frames kept of `saved`: all of them up to `cap`, else `cap` evenly spaced ones."""
    if saved <= cap:
        return list(range(saved))
    if cap <= 0:
        return []
    if cap == 1:
        return [saved - 1]
    return sorted({round(step * (saved - 1) / (cap - 1)) for step in range(cap)})


def write_depth_frames(*, sww: Path, grid: Grid, cap: int, path_of: Callable[[str], Path]) -> dict[str, Any]:
    """Write the kept frames' depth rasters and the index (DEPTH_FRAMES_INDEX: their times, how many frames were
    saved and how many kept) at the paths `path_of` gives for each file name; returns the index."""
    with netCDF4.Dataset(sww) as dataset:
        dataset.set_auto_mask(False)
        times = np.asarray(dataset["time"][:], dtype=float)
        kept = kept_frames(len(times), cap)
        if kept:
            origin = np.array([float(dataset.xllcorner), float(dataset.yllcorner)])
            nodes = np.column_stack([dataset["x"][:], dataset["y"][:]]).astype(np.float64) + origin
            index = triangle_index_grid(nodes=nodes, triangles=np.asarray(dataset["volumes"][:]), grid=grid)
            elevation = np.asarray(dataset["elevation_c"][:], dtype=float)
            for number, frame in enumerate(kept):
                depth = np.maximum(np.asarray(dataset["stage_c"][frame], dtype=float) - elevation, 0.0)
                write_cog(path_of(depth_frame_filename(number)), grid_values(index, depth), grid)
    frames = frames_index(times=[float(times[frame]) for frame in kept], saved=len(times))
    path_of(DEPTH_FRAMES_INDEX).write_text(json.dumps(frames))
    return frames


def frames_index(*, times: list[float], saved: int) -> dict[str, Any]:
    """What DEPTH_FRAMES_INDEX holds: the kept frames' times (seconds from the start), and how many were saved."""
    return {"times": [round(time, 3) for time in times], "saved": saved, "kept": len(times)}
