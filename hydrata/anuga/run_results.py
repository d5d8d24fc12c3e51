"""Reading a finished run's results from storage: signed links, the preview, values at points."""

import base64
from typing import Any

import numpy as np
import rasterio
from django.conf import settings
from pyproj import Transformer

from hydrata.anuga.models import Run
from hydrata.storage import get_storage

LAYERS = {
    "max_depth": ("Maximum depth", "m"),
    "max_speed": ("Maximum speed", "m/s"),
    "max_stage": ("Maximum stage (water level)", "m"),
}


def result_layers(run: Run) -> dict[str, Any]:
    """gn_layer_* entries describe each raster; s3_*_url keys carry signed download links."""
    if not run.results_prefix:
        return {}
    storage, expiry = get_storage(), settings.HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS
    entries: dict[str, Any] = {}
    for name, (title, units) in LAYERS.items():
        entries[f"gn_layer_{name}"] = {"name": f"run_{run.pk}_{name}", "title": title, "units": units,
                                       "crs": run.scenario.project.projection, "format": "COG GeoTIFF"}
        entries[f"s3_{name}_url"] = storage.presign_download(key=f"{run.results_prefix}/{name}.tif",
                                                             expires_in=expiry, filename=f"run-{run.pk}-{name}.tif")
    for name, filename in (("log", "run.log"), ("preview", "preview.png")):
        entries[f"s3_{name}_url"] = storage.presign_download(key=f"{run.results_prefix}/{filename}",
                                                             expires_in=expiry, filename=f"run-{run.pk}-{filename}")
    return entries


def preview_png(run: Run) -> str:
    with get_storage().open(key=f"{run.results_prefix}/preview.png") as stream:
        return base64.b64encode(stream.read()).decode("ascii")


def sample(run: Run, *, points: list[tuple[float, float]], crs: str) -> list[dict[str, Any]]:
    """Peak depth, stage and speed at each point (in `crs`), null outside the mesh."""
    project_crs = run.scenario.project.projection
    transformer = Transformer.from_crs(crs, project_crs, always_xy=True)
    xs, ys = transformer.transform([p[0] for p in points], [p[1] for p in points])
    values: dict[str, list[float | None]] = {}
    storage = get_storage()
    for name in LAYERS:
        with storage.local_path(key=f"{run.results_prefix}/{name}.tif") as path, rasterio.open(path) as raster:
            values[name] = [_value(raster, x, y) for x, y in zip(xs, ys)]
    return [{"x": x, "y": y, "peak_depth": values["max_depth"][i], "peak_stage": values["max_stage"][i],
             "peak_speed": values["max_speed"][i]} for i, (x, y) in enumerate(points)]


def _value(raster: rasterio.io.DatasetReader, x: float, y: float) -> float | None:
    row, col = raster.index(x, y)
    if not (0 <= row < raster.height and 0 <= col < raster.width):
        return None
    value = float(raster.read(1, window=((row, row + 1), (col, col + 1)))[0, 0])
    if raster.nodata is not None and value == raster.nodata or not np.isfinite(value):
        return None
    return round(value, 4)
