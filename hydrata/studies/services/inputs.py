"""Design-input files: read whole by their parser (hydrata/compute/arr) and stored as what was read, or refused
with every bad row named and nothing stored."""

import hashlib
import json
from dataclasses import asdict
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q

from hydrata.anuga.models import Project
from hydrata.compute.arr.files import ArrFileError
from hydrata.compute.arr.ifd import IfdTable, ifd_parse
from hydrata.compute.arr.losses import StormLosses, losses_parse
from hydrata.compute.arr.patterns import TemporalPattern, patterns_parse
from hydrata.core.errors import Conflict, ValidationFailed
from hydrata.studies.models import DesignInput, DesignStudy
from hydrata_contract.errors import ErrorCode
from hydrata_contract.studies import DesignInputKind

STUDIES_NAMED = 20  # the studies a refusal to delete an input names (its `studies`), at most


def design_input_create(*, project: Project, user: User, kind: DesignInputKind, name: str, text: str) -> DesignInput:
    try:
        content, summary = _read(kind, text)
    except ArrFileError as refused:
        raise ValidationFailed(refused.message, code=refused.code, kind=kind.value, **refused.extra) from None
    return DesignInput.objects.create(
        project=project,
        kind=kind,
        name=name[:255],
        content=content,
        summary=summary,
        digest=content_digest(content),
        created_by=user,
    )


def content_digest(content: dict[str, Any]) -> str:
    """SHA-256 of what a file was read as, computed once when it is stored: a study's fingerprint names it."""
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def design_input_delete(*, design_input: DesignInput) -> None:
    """Delete a design input no study uses; one in use is 409 DESIGN_INPUT_IN_USE naming the studies (delete them
    first), since their members' storms are derived from it."""
    with transaction.atomic():
        locked = DesignInput.objects.select_for_update().get(pk=design_input.pk)
        using = list(
            DesignStudy.objects.filter(
                Q(ifd=locked) | Q(temporal_patterns=locked) | Q(storm_losses=locked)
            ).values_list("pk", "name")[:STUDIES_NAMED]
        )
        if using:
            named = ", ".join(f"{pk} ('{name}')" for pk, name in using)
            raise Conflict(
                f"Design input {locked.pk} is used by design study {named}; its members' storms are derived from "
                "it. Delete those studies first, then the input.",
                code=ErrorCode.DESIGN_INPUT_IN_USE,
                studies=[pk for pk, _ in using],
            )
        locked.delete()


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
