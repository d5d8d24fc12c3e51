"""Design-input files: read whole by their parser (hydrata/compute/arr) and stored as what was read, or refused
with every bad row named and nothing stored."""

from dataclasses import asdict
from typing import Any

from django.contrib.auth.models import User

from hydrata.anuga.models import Project
from hydrata.compute.arr.files import ArrFileError
from hydrata.compute.arr.ifd import IfdTable, ifd_parse
from hydrata.compute.arr.losses import StormLosses, losses_parse
from hydrata.compute.arr.patterns import TemporalPattern, patterns_parse
from hydrata.core.errors import ValidationFailed
from hydrata.studies.models import DesignInput
from hydrata_contract.studies import DesignInputKind


def design_input_create(*, project: Project, user: User, kind: DesignInputKind, name: str, text: str) -> DesignInput:
    try:
        content, summary = _read(kind, text)
    except ArrFileError as refused:
        raise ValidationFailed(refused.message, code=refused.code, kind=kind.value, **refused.extra) from None
    return DesignInput.objects.create(
        project=project, kind=kind, name=name[:255], content=content, summary=summary, created_by=user
    )


def _read(kind: DesignInputKind, text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    if kind == DesignInputKind.IFD:
        return _ifd(ifd_parse(text))
    if kind == DesignInputKind.TEMPORAL_PATTERNS:
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
