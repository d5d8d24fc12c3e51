"""Reading a finished run's results from storage: signed links, the preview, values at points."""

import base64
from contextlib import ExitStack
from typing import Any

from django.conf import settings

from hydrata.anuga.models import Run
from hydrata.anuga.selectors.runs import run_outputs, run_statistics
from hydrata.compute.inputs.transformers import transformer_between
from hydrata.compute.rasters.sampling import sample_rasters
from hydrata.core.errors import NotFound
from hydrata.core.projections import crs_code_validate
from hydrata.storage import get_storage
from hydrata_contract.compute import RunOutputs
from hydrata_contract.errors import ErrorCode
from hydrata_contract.layers import (
    ENGINEER_LAYERS,
    ENVELOPE_LAYERS,
    TOTAL_LOSS,
    TOTAL_LOSS_TITLE,
    TOTAL_LOSS_UNITS,
    ResultLayer,
)

LAYERS = {layer.value: (layer.label, layer.units) for layer in ResultLayer}
LAYERS[TOTAL_LOSS] = (TOTAL_LOSS_TITLE, TOTAL_LOSS_UNITS)  # a run whose soils took rain (compute/simulation/losses.py)
SAMPLED_LAYERS = {
    "peak_depth": ResultLayer.MAX_DEPTH,
    "peak_stage": ResultLayer.MAX_STAGE,
    "peak_speed": ResultLayer.MAX_SPEED,
    # the sample's key is the layer's own name
    ResultLayer.MAX_HAZARD.value: ResultLayer.MAX_HAZARD,
    "time_of_inundation_s": ResultLayer.TIME_OF_INUNDATION,
    "duration_of_inundation_s": ResultLayer.DURATION_OF_INUNDATION,
}


def layers_of(run: Run) -> list[str]:
    """The result rasters this run has: a design study's member only those its study's envelopes read."""
    if run_outputs(run=run) == RunOutputs.ENVELOPE:
        return [layer.value for layer in ENVELOPE_LAYERS]
    statistics = run_statistics(run=run)
    has_engineer_layers = statistics is not None and statistics.hazard_area_m2_by_class is not None
    balance = statistics.volume_balance if statistics is not None else None
    has_losses = (balance.losses_m3 or 0) > 0 if balance is not None else False
    return [
        name
        for name in LAYERS
        if (has_engineer_layers or name not in ENGINEER_LAYERS) and (has_losses or name != TOTAL_LOSS)
    ]


def files_of(run: Run) -> dict[str, str]:
    """The run's other files with a download link: its log, and its preview unless it is a study's member."""
    files = {"log": "run.log", "preview": "preview.png"}
    return files if run_outputs(run=run) == RunOutputs.FULL else {"log": files["log"]}


def result_layers(run: Run, *, signed_links: bool = True) -> dict[str, Any]:
    """gn_layer_* entries describe each raster; s3_*_url keys carry signed download links, when asked for."""
    if not run.results_prefix:
        return {}
    storage, expiry = get_storage(), settings.HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS
    entries: dict[str, Any] = {}
    for name in layers_of(run):
        title, units = LAYERS[name]
        entries[f"gn_layer_{name}"] = {
            "name": f"run_{run.pk}_{name}",
            "title": title,
            "units": units,
            "crs": run.scenario.project.projection,
            "format": "COG GeoTIFF",
        }
        if signed_links:
            entries[f"s3_{name}_url"] = storage.presign_download(
                key=f"{run.results_prefix}/{name}.tif", expires_in=expiry, filename=f"run-{run.pk}-{name}.tif"
            )
    if not signed_links:
        return entries
    for name, filename in files_of(run).items():
        entries[f"s3_{name}_url"] = storage.presign_download(
            key=f"{run.results_prefix}/{filename}", expires_in=expiry, filename=f"run-{run.pk}-{filename}"
        )
    return entries


def preview_png(run: Run) -> str:
    if "preview" not in files_of(run):
        raise NotFound(
            f"Run {run.pk} is a design study's member: it keeps only the rasters its study's envelopes read, and no "
            "preview. Read the study's envelopes with get_design_study.",
            code=ErrorCode.LAYER_NOT_FOUND,
        )
    with get_storage().open(key=f"{run.results_prefix}/preview.png") as stream:
        return base64.b64encode(stream.read()).decode("ascii")


def in_project_crs(run: Run, points: list[tuple[float, float]], crs: str) -> list[tuple[float, float]]:
    """The points, given in `crs` (an authority code, checked again here: pyproj would read a file a definition
    names), in the project's CRS."""
    transformer = transformer_between(crs_code_validate(crs), run.scenario.project.projection)
    xs, ys = transformer.transform([p[0] for p in points], [p[1] for p in points])
    return list(zip(xs, ys, strict=True))


def sample(run: Run, *, points: list[tuple[float, float]], crs: str) -> list[dict[str, Any]]:
    """Peak depth, stage and speed, the hazard class and the time and duration of inundation (s) at each point (in
    `crs`), null outside the mesh (and for the time and duration where it was never inundated); x, y are the points
    as given."""
    available = set(layers_of(run))
    layers = {name: layer for name, layer in SAMPLED_LAYERS.items() if layer in available}
    storage = get_storage()
    with ExitStack() as stack:
        rasters = {
            name: stack.enter_context(storage.local_path(key=f"{run.results_prefix}/{layer}.tif"))
            for name, layer in layers.items()
        }
        sampled = sample_rasters(rasters=rasters, points=in_project_crs(run, points, crs))
    return [
        {"x": x, "y": y, **{name: _typed(name, values.get(name)) for name in SAMPLED_LAYERS}}
        for (x, y), values in zip(points, sampled, strict=True)
    ]


def _typed(name: str, value: float | None) -> float | int | None:
    """The hazard class is an integer; every other sampled value a number of metres, m/s or seconds."""
    return int(value) if name == ResultLayer.MAX_HAZARD and value is not None else value
