"""Time series at any point, read back from a finished run's ANUGA output (the .sww file): the centroid values of the
triangle containing the point at every stored frame, as the gauges of a run record them while it computes."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import netCDF4
import numpy as np
from matplotlib.tri import Triangulation

from hydrata.compute.rasters.grid_codes import WET_DEPTH_M


@dataclass(frozen=True)
class PointSeries:
    x: float
    y: float
    t: list[float]
    stage: list[float] | None  # None when the point is outside the mesh
    depth: list[float] | None
    speed: list[float] | None


def point_series(sww: Path, points: list[tuple[float, float]]) -> list[PointSeries]:
    """Stage, depth and speed at each point (absolute coordinates of the run's CRS) at every stored time; speeds
    are 0 in films thinner than WET_DEPTH_M, as everywhere else in the results."""
    with netCDF4.Dataset(sww) as dataset:
        dataset.set_auto_mask(False)
        origin = np.array([float(dataset.xllcorner), float(dataset.yllcorner)])
        nodes = np.column_stack([dataset["x"][:], dataset["y"][:]]).astype(np.float64) + origin
        finder = Triangulation(nodes[:, 0], nodes[:, 1], np.asarray(dataset["volumes"][:])).get_trifinder()
        times = [round(float(t), 6) for t in dataset["time"][:]]
        found = finder(np.array([p[0] for p in points], dtype=float), np.array([p[1] for p in points], dtype=float))
        return [
            _series_of(dataset, int(triangle), x, y, times)
            for (x, y), triangle in zip(points, np.atleast_1d(found), strict=True)
        ]


def _series_of(dataset: Any, triangle: int, x: float, y: float, times: list[float]) -> PointSeries:
    if triangle < 0:
        return PointSeries(x=x, y=y, t=times, stage=None, depth=None, speed=None)
    stage = np.asarray(dataset["stage_c"][:, triangle], dtype=float)
    depth = np.maximum(stage - float(dataset["elevation_c"][triangle]), 0.0)
    momentum = np.hypot(
        np.asarray(dataset["xmomentum_c"][:, triangle], dtype=float),
        np.asarray(dataset["ymomentum_c"][:, triangle], dtype=float),
    )
    speed = np.where(depth >= WET_DEPTH_M, momentum / np.maximum(depth, WET_DEPTH_M), 0.0)
    return PointSeries(x=x, y=y, t=times, stage=_rounded(stage), depth=_rounded(depth), speed=_rounded(speed))


def _rounded(values: np.ndarray) -> list[float]:
    return [round(float(value), 4) for value in values]
