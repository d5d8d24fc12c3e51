"""What a comparison reads of a finished run: its peaks at points (the one sampler on the result rasters) and the
settings it was built with (from its package, as the simulation saw them)."""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hydrata.anuga.models import Run
from hydrata.compute.comparisons.comparison import DECIMALS, Peaks
from hydrata.compute.rasters.sampling import sample_rasters
from hydrata.storage import get_storage
from hydrata_contract.layers import ResultLayer

# The input each setting shows and the feature property that says what it does.
LAYER_SETTINGS = {"friction": "mannings", "inflow": "data", "rainfall": "data"}
MODEL_SETTINGS = ("resolution", "duration", *LAYER_SETTINGS)


def run_peaks(*, run: Run, points: Sequence[tuple[float, float]]) -> list[Peaks]:
    """Peak stage and depth at each point (project CRS), None where it is off the model."""
    if not points:
        return []
    storage = get_storage()
    with (
        storage.local_path(key=f"{run.results_prefix}/{ResultLayer.MAX_STAGE.filename}") as stage,
        storage.local_path(key=f"{run.results_prefix}/{ResultLayer.MAX_DEPTH.filename}") as depth,
    ):
        rasters: dict[str, Path] = {ResultLayer.MAX_STAGE: stage, ResultLayer.MAX_DEPTH: depth}
        samples = sample_rasters(rasters=rasters, points=points, decimals=DECIMALS)
    return [Peaks(stage=sample[ResultLayer.MAX_STAGE], depth=sample[ResultLayer.MAX_DEPTH]) for sample in samples]


def run_settings(*, run: Run) -> dict[str, Any]:
    """Resolution, duration, and for friction, inflow and rainfall the values their features carried (Manning's
    n, flow or rain rate or series name), or None when the run had none of that input."""
    manifest = _read_json(f"{run.package_prefix}/scenario.json")
    settings: dict[str, Any] = {
        "scenario": run.scenario_id,
        "scenario_name": run.scenario.name,
        "resolution": run.resolution,
        "duration": run.duration,
    }
    for kind, prop in LAYER_SETTINGS.items():
        relative = manifest.get(kind)
        if not relative:
            settings[kind] = None
            continue
        features = _read_json(f"{run.package_prefix}/{relative}").get("features") or []
        values = [_scalar((feature.get("properties") or {}).get(prop)) for feature in features]
        settings[kind] = {"features": len(features), prop: list(dict.fromkeys(values))}
    return settings


def _scalar(value: Any) -> Any:
    return value if value is None or isinstance(value, str | int | float | bool) else json.dumps(value)


def _read_json(key: str) -> dict[str, Any]:
    with get_storage().open(key=key) as stream:
        return json.load(stream)
