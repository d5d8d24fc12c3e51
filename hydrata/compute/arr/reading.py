"""A design-input file read by its kind's reader, as the studies app stores it: what was read (`content`) and what
a person sees of it (`summary`). The one entry of the child process the platform reads a file in
(hydrata/compute/processes/bounded.py): JSON in, JSON out."""

from dataclasses import asdict
from typing import Any

from hydrata.compute.arr.ifd import IfdTable, ifd_parse
from hydrata.compute.arr.losses import StormLosses, losses_parse
from hydrata.compute.arr.patterns import TemporalPattern, patterns_parse
from hydrata_contract.studies import DesignInputKind


def design_input_read_json(argument: dict[str, str]) -> dict[str, Any]:
    """{"kind", "text"} -> {"content", "summary"}; ArrFileError for a file that cannot be read."""
    content, summary = design_input_read(kind=argument["kind"], text=argument["text"])
    return {"content": content, "summary": summary}


def design_input_read(*, kind: str, text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    read = DesignInputKind(kind)
    if read == DesignInputKind.IFD:
        return _ifd(ifd_parse(text))
    if read == DesignInputKind.TEMPORAL_PATTERNS:
        return _patterns(patterns_parse(text))
    return _losses(losses_parse(text))


def _ifd(table: IfdTable) -> tuple[dict[str, Any], dict[str, Any]]:
    depths = [depth for row in table.depths_mm for depth in row]
    summary = {
        "aeps": list(table.aeps),
        "durations_min": list(table.durations_min),
        "depth_range_mm": [min(depths), max(depths)],
    }
    return asdict(table), summary


def _patterns(patterns: list[TemporalPattern]) -> tuple[dict[str, Any], dict[str, Any]]:
    summary = {
        "pattern_count": len(patterns),
        "regions": sorted({p.region for p in patterns}),
        "durations_min": sorted({p.duration_min for p in patterns}),
        "aep_bins": sorted({p.aep_bin for p in patterns}),
    }
    return {"patterns": [asdict(p) for p in patterns]}, summary


def _losses(losses: StormLosses) -> tuple[dict[str, Any], dict[str, Any]]:
    preburst = losses.preburst
    summary = {
        "initial_loss_mm": losses.initial_loss_mm,
        "continuing_loss_mm_h": losses.continuing_loss_mm_h,
        "preburst_aeps_pct": list(preburst.aeps_pct) if preburst else [],
        "preburst_durations_min": list(preburst.durations_min) if preburst else [],
    }
    return asdict(losses), summary
