"""Values of single-band rasters at points: the one sampler of result rasters, for the API and for comparisons."""

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import rasterio
from rasterio.io import DatasetReader
from rasterio.windows import Window

# About 64 MB of float32. Points spread wider than this over a large raster are read block by block instead, so
# that a few points never load a whole result raster into the web process.
WINDOW_MAX_CELLS = 16_000_000


def sample_rasters(
    *, rasters: Mapping[str, Path], points: Sequence[tuple[float, float]], decimals: int | None = 4
) -> list[dict[str, float | None]]:
    """One dict per point, in order: {"x": x, "y": y, <name>: value, ...} for each name in `rasters`.

    Method: a point's value is that of the raster cell containing it, found by flooring the inverse
    geotransform (column = floor(~transform * (x, y))[0], row likewise), with no interpolation. The value is None
    when the point is off the grid (or its coordinates are not finite), when the cell holds the raster's nodata,
    or when the cell is not a finite number. x and y are the points as given, in the rasters' CRS; values are
    rounded to `decimals` places, or left unrounded when `decimals` is None. Each raster is read once, in the
    one window that covers every point on its grid; when that window would be very large, each block of the
    raster that holds a point is read once instead.
    """
    xy = np.asarray(points, dtype=float).reshape(-1, 2)
    samples: list[dict[str, float | None]] = [{"x": float(x), "y": float(y)} for x, y in xy]
    for name, path in rasters.items():
        for sample, value in zip(samples, _values_at(path, xy), strict=True):
            sample[name] = value if value is None or decimals is None else round(value, decimals)
    return samples


def _values_at(path: Path, xy: np.ndarray) -> list[float | None]:
    with rasterio.open(path) as source:
        with np.errstate(invalid="ignore"):  # a non-finite point gives NaN, and is off the grid below
            cols, rows = ~source.transform @ (xy[:, 0], xy[:, 1])
        cols, rows = np.asarray(cols, dtype=float), np.asarray(rows, dtype=float)
        on_grid = (
            np.isfinite(cols)
            & np.isfinite(rows)
            & (cols >= 0)
            & (cols < source.width)
            & (rows >= 0)
            & (rows < source.height)
        )
        values: list[float | None] = [None] * len(xy)
        if not on_grid.any():
            return values
        rows, cols = np.floor(rows[on_grid]).astype(np.int64), np.floor(cols[on_grid]).astype(np.int64)
        cells = _cells(source, rows, cols).astype(np.float64)
        nodata = source.nodata
    usable = np.isfinite(cells)
    if nodata is not None:
        usable &= cells != nodata
    for position, cell, keep in zip(np.flatnonzero(on_grid), cells.tolist(), usable.tolist(), strict=True):
        values[position] = cell if keep else None
    return values


def _cells(source: DatasetReader, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    top, left = int(rows.min()), int(cols.min())
    height, width = int(rows.max()) - top + 1, int(cols.max()) - left + 1
    if height * width <= WINDOW_MAX_CELLS:
        return source.read(1, window=Window(left, top, width, height))[rows - top, cols - left]
    block_height, block_width = source.block_shapes[0]
    block_rows, block_cols = rows // block_height, cols // block_width
    cells = np.empty(len(rows), dtype=source.dtypes[0])
    for block_row, block_col in set(zip(block_rows.tolist(), block_cols.tolist(), strict=True)):
        inside = (block_rows == block_row) & (block_cols == block_col)
        window = source.block_window(1, block_row, block_col)
        band = source.read(1, window=window)
        cells[inside] = band[rows[inside] - int(window.row_off), cols[inside] - int(window.col_off)]
    return cells
