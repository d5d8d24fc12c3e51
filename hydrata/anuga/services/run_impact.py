"""The impact map of one run against another of the same project: other - run on maximum depth and stage, worked out
once from their result rasters and kept next to the first run's results (both runs are finished, so it never goes
stale); and the change in peak depth at each gauge both recorded, which for the same scenario at two resolutions is
a mesh-convergence check."""

import base64
import json
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from django.conf import settings

from hydrata.anuga.models import Run
from hydrata.anuga.selectors.run_series import recorded_series
from hydrata.compute.comparisons.impact import gauge_changes, impact, impact_picture, write_impact_cog
from hydrata.compute.errors import GridMismatch
from hydrata.compute.rasters.sampling import sample_rasters
from hydrata.core.errors import NotFound, ValidationFailed
from hydrata.storage import get_storage
from hydrata_contract.errors import ErrorCode
from hydrata_contract.layers import ResultLayer

FILES = {
    "impact_depth": "impact_depth.tif",
    "impact_stage": "impact_stage.tif",
    "picture": "impact.png",
    "statistics": "impact.json",
}
TITLES = {
    "impact_depth": "Change in maximum depth (other - run)",
    "impact_stage": "Change in maximum stage (other - run), where both are wet",
}


def comparable(run: Run, other: Run) -> Run:
    """`other` when it belongs to the same project as `run`; anything else is as if it did not exist."""
    if other.scenario.project_id != run.scenario.project_id:
        raise NotFound(
            f"Run {other.pk} does not exist in the project of run {run.pk}, or is not visible to this caller.",
            code=ErrorCode.RUN_NOT_FOUND,
        )
    return other


def _prefix(run: Run, other: Run) -> str:
    return f"{run.results_prefix}/compare/{other.pk}"


def impact_prefix(*, run: Run, other: Run) -> str:
    """Where the impact files of other - run are kept, worked out first when they are not there yet."""
    prefix = _prefix(run, other)
    if not get_storage().exists(key=f"{prefix}/{FILES['statistics']}"):
        _work_out(run, other, prefix)
    return prefix


def runs_impact(*, run: Run, other: Run) -> dict[str, Any]:
    """The statistics, layers and picture of other - run, worked out on the first call."""
    storage, prefix = get_storage(), impact_prefix(run=run, other=other)
    with storage.open(key=f"{prefix}/{FILES['statistics']}") as stream:
        statistics = json.load(stream)
    with storage.open(key=f"{prefix}/{FILES['picture']}") as stream:
        picture = base64.b64encode(stream.read()).decode("ascii")
    return {
        "run": run.pk,
        "other_run": other.pk,
        "statistics": statistics,
        "run_resolution_m": run.resolution,
        "other_resolution_m": other.resolution,
        "gauges": gauge_changes(gauge_peaks(run), gauge_peaks(other)),
        **_layers(run, other, prefix),
        "image": {"mime_type": "image/png", "data": picture},
    }


def gauge_peaks(run: Run) -> dict[str, float | None]:
    """The peak depth at each of the run's gauges: its max-depth raster (the deepest of every internal step) at the
    gauge's point; null off the mesh."""
    gauges = recorded_series(run)["gauges"]
    if not gauges:
        return {}
    with get_storage().local_path(key=f"{run.results_prefix}/max_depth.tif") as path:
        sampled = sample_rasters(rasters={"peak_depth": path}, points=[(gauge["x"], gauge["y"]) for gauge in gauges])
    return {gauge["name"]: values["peak_depth"] for gauge, values in zip(gauges, sampled, strict=True)}


def _work_out(run: Run, other: Run, prefix: str) -> None:
    storage = get_storage()
    with ExitStack() as stack:
        rasters: dict[int, dict[str, Path]] = {
            owner.pk: {
                layer: stack.enter_context(storage.local_path(key=f"{owner.results_prefix}/{layer.filename}"))
                for layer in (ResultLayer.MAX_DEPTH, ResultLayer.MAX_STAGE)
            }
            for owner in (run, other)
        }
        try:
            result = impact(run=rasters[run.pk], other=rasters[other.pk])
        except GridMismatch as mismatch:
            raise ValidationFailed(
                str(mismatch), code=ErrorCode.GRID_MISMATCH, run=run.pk, other_run=other.pk
            ) from None
    with tempfile.TemporaryDirectory(prefix="impact-") as workdir:
        written = {"impact_depth": result.depth_difference, "impact_stage": result.stage_difference}
        for name, values in written.items():
            path = Path(workdir) / FILES[name]
            write_impact_cog(path, values, result.profile)
            with path.open("rb") as stream:
                storage.save(key=f"{prefix}/{FILES[name]}", data=stream)
    picture = impact_picture(
        result.depth_difference, result.profile, title=f"Run {other.pk} - run {run.pk}: change in maximum depth"
    )
    storage.save(key=f"{prefix}/{FILES['picture']}", data=picture, content_type="image/png")
    storage.save(
        key=f"{prefix}/{FILES['statistics']}",
        data=json.dumps(result.statistics).encode(),
        content_type="application/json",
    )  # last: its presence means the rest is there


def _layers(run: Run, other: Run, prefix: str) -> dict[str, Any]:
    storage, expiry = get_storage(), settings.HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS
    entries: dict[str, Any] = {}
    for name, title in TITLES.items():
        entries[f"gn_layer_{name}"] = {
            "name": f"run_{run.pk}_vs_{other.pk}_{name}",
            "title": title,
            "units": "m",
            "crs": run.scenario.project.projection,
            "format": "COG GeoTIFF",
        }
        entries[f"s3_{name}_url"] = storage.presign_download(
            key=f"{prefix}/{FILES[name]}", expires_in=expiry, filename=f"run-{run.pk}-vs-{other.pk}-{name}.tif"
        )
    return entries
