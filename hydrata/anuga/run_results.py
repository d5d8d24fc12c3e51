"""Reading a finished run's results from storage: signed links, the preview, values at points."""

import base64
from contextlib import ExitStack
from typing import Any

from django.conf import settings
from pyproj import Transformer

from hydrata.anuga.models import Run
from hydrata.compute.sampling import sample_rasters
from hydrata.storage import get_storage

LAYERS = {
    "max_depth": ("Maximum depth", "m"),
    "max_speed": ("Maximum speed", "m/s"),
    "max_stage": ("Maximum stage (water level)", "m"),
}
SAMPLED_LAYERS = {"peak_depth": "max_depth", "peak_stage": "max_stage", "peak_speed": "max_speed"}


def result_layers(run: Run, *, signed_links: bool = True) -> dict[str, Any]:
    """gn_layer_* entries describe each raster; s3_*_url keys carry signed download links, when asked for."""
    if not run.results_prefix:
        return {}
    storage, expiry = get_storage(), settings.HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS
    entries: dict[str, Any] = {}
    for name, (title, units) in LAYERS.items():
        entries[f"gn_layer_{name}"] = {"name": f"run_{run.pk}_{name}", "title": title, "units": units,
                                       "crs": run.scenario.project.projection, "format": "COG GeoTIFF"}
        if signed_links:
            entries[f"s3_{name}_url"] = storage.presign_download(key=f"{run.results_prefix}/{name}.tif",
                                                                 expires_in=expiry, filename=f"run-{run.pk}-{name}.tif")
    if not signed_links:
        return entries
    for name, filename in (("log", "run.log"), ("preview", "preview.png")):
        entries[f"s3_{name}_url"] = storage.presign_download(key=f"{run.results_prefix}/{filename}",
                                                             expires_in=expiry, filename=f"run-{run.pk}-{filename}")
    return entries


def preview_png(run: Run) -> str:
    with get_storage().open(key=f"{run.results_prefix}/preview.png") as stream:
        return base64.b64encode(stream.read()).decode("ascii")


def sample(run: Run, *, points: list[tuple[float, float]], crs: str) -> list[dict[str, Any]]:
    """Peak depth, stage and speed at each point (in `crs`), null outside the mesh; x, y are the points as given."""
    transformer = Transformer.from_crs(crs, run.scenario.project.projection, always_xy=True)
    xs, ys = transformer.transform([p[0] for p in points], [p[1] for p in points])
    storage = get_storage()
    with ExitStack() as stack:
        rasters = {name: stack.enter_context(storage.local_path(key=f"{run.results_prefix}/{layer}.tif"))
                   for name, layer in SAMPLED_LAYERS.items()}
        sampled = sample_rasters(rasters=rasters, points=list(zip(xs, ys, strict=True)))
    return [{"x": x, "y": y, **{name: values[name] for name in SAMPLED_LAYERS}}
            for (x, y), values in zip(points, sampled, strict=True)]
