"""Observed against modelled: the per-point errors and the metrics an engineer reads, and the order of a ranking.

No Django. The caller samples the run's maxima at each observation (the one sampler) and hands the peaks in."""

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hydrata.compute.outputs.results import WET_DEPTH_M
from hydrata_contract.observations import Quantity

PEAK_STAGE, PEAK_DEPTH = Quantity.PEAK_STAGE, Quantity.PEAK_DEPTH
DECIMALS = 4  # millimetre-and-below: the sampler's rounding, so a value read back from a run compares exactly
METHOD = "raster_cell"  # the cell of the max_stage / max_depth raster that contains the point


@dataclass(frozen=True)
class Observed:
    observation_id: int
    quantity: str  # PEAK_STAGE or PEAK_DEPTH
    value: float  # metres
    tolerance: float  # metres, > 0


@dataclass(frozen=True)
class Peaks:
    """What the run's maxima hold at a point; None where the point is off the model."""

    stage: float | None
    depth: float | None


def point_row(observed: Observed, peaks: Peaks) -> dict[str, Any]:
    """One observation against the model. A dry point (the model never wetted it) still gets its error, with
    wet false: its modelled stage is the ground level. A point off the model has no modelled value at all."""
    modelled = peaks.stage if observed.quantity == PEAK_STAGE else peaks.depth
    row: dict[str, Any] = {
        "observation_id": observed.observation_id,
        "quantity": observed.quantity,
        "observed": observed.value,
        "tolerance": observed.tolerance,
    }
    if modelled is None:
        return {**row, "modelled": None, "error": None, "within_tolerance": None, "wet": None, "in_model": False}
    error = round(modelled - observed.value, DECIMALS)
    return {
        **row,
        "modelled": modelled,
        "error": error,
        "within_tolerance": abs(error) <= observed.tolerance,
        "wet": peaks.depth is not None and peaks.depth >= WET_DEPTH_M,
        "in_model": True,
    }


def metrics(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """n, bias (mean error), mae, rmse, max_abs_error and the count (and share) within tolerance, over the rows
    the model covers; rows off the model and dry rows are counted beside them."""
    compared = [row for row in rows if row["error"] is not None]
    errors = [float(row["error"]) for row in compared]
    within = sum(1 for row in compared if row["within_tolerance"])
    counts = {
        "n": len(errors),
        "within_tolerance": within,
        "outside_model": len(rows) - len(errors),
        "dry": sum(1 for row in compared if not row["wet"]),
    }
    if not errors:
        return {
            **counts,
            "bias": None,
            "mae": None,
            "rmse": None,
            "max_abs_error": None,
            "within_tolerance_share": None,
        }
    n = len(errors)
    return {
        **counts,
        "bias": round(sum(errors) / n, DECIMALS),
        "mae": round(sum(abs(e) for e in errors) / n, DECIMALS),
        "rmse": round(math.sqrt(sum(e * e for e in errors) / n), DECIMALS),
        "max_abs_error": round(max(abs(e) for e in errors), DECIMALS),
        "within_tolerance_share": round(within / n, DECIMALS),
    }


def compare(observed: Sequence[Observed], peaks: Sequence[Peaks]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The per-point rows, in the order given, and their metrics."""
    if len(observed) != len(peaks):
        raise ValueError(f"{len(observed)} observations but {len(peaks)} sampled peaks")
    rows = [point_row(o, p) for o, p in zip(observed, peaks, strict=True)]
    return rows, metrics(rows)


def ranking_key(run_id: int, run_metrics: dict[str, Any]) -> tuple[bool, float, float, int]:
    """Lowest RMSE first, ties by MAE, then by run id so that the same inputs always rank the same way; a run
    with nothing to compare goes last."""
    rmse, mae = run_metrics.get("rmse"), run_metrics.get("mae")
    if rmse is None:
        return (True, math.inf, math.inf, run_id)
    return (False, float(rmse), float(mae if mae is not None else math.inf), run_id)


def differing_settings(settings: Sequence[dict[str, Any]]) -> list[str]:
    """The names of the settings whose values are not the same for every run, in first-seen order."""
    names = list(dict.fromkeys(name for entry in settings for name in entry))
    return [name for name in names if len({_canonical(entry.get(name)) for entry in settings}) > 1]


def observations_fingerprint(observations: Iterable[tuple[Any, ...]]) -> str:
    """A digest of what a comparison depends on (each observation's id, quantity, position, value, tolerance):
    when it differs from the one stored with a comparison, the comparison is stale."""
    return hashlib.sha256(_canonical(sorted(observations, key=lambda o: o[0])).encode()).hexdigest()


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
