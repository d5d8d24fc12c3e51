"""A study's results once every member has settled: per AEP, the envelope rasters of the completed members' peak
depth, level, speed and hazard with the critical-duration raster (hydrata/compute/comparisons/envelope.py, streamed in
windows), their figures (the peaks, the flooded area per depth band, hazard class and critical duration), read from
those rasters once as they are written, and per gauge and flow line the peaks of each duration's patterns with the
central value, the critical duration and the representative pattern. Stored through the storage layer under
studies/<id>/results/."""

import json
import logging
import re
import tempfile
from collections import defaultdict
from contextlib import ExitStack
from pathlib import Path

from django.utils import timezone

from hydrata.compute.comparisons.envelope import Central, ensemble_table, envelope_figures, envelope_rasters
from hydrata.core.database import DATABASE_UNREACHABLE
from hydrata.core.records import record_update
from hydrata.storage import get_storage
from hydrata.studies.models import DesignMember, DesignStudy
from hydrata_contract.layers import CRITICAL_DURATION, CRITICAL_DURATION_UNITS, ENVELOPE_LAYERS, ResultLayer
from hydrata_contract.states import RunStatus
from hydrata_contract.studies import (
    AepFigures,
    CentralStatistic,
    EnsembleQuantity,
    EnsembleTable,
    LeftOutMember,
    StoredAepResults,
    StoredLayer,
    StoredStudyResults,
    StudyStatus,
)

logger = logging.getLogger(__name__)


def design_study_envelopes(*, study_id: int) -> DesignStudy:
    study = DesignStudy.objects.get(pk=study_id)
    if study.status != StudyStatus.POST_PROCESSING:
        return study  # a redelivered task, or a study cancelled meanwhile
    completed = list(
        study.members.filter(run__status=RunStatus.COMPLETE).select_related("run").order_by("aep", "duration_min")
    )
    try:
        results = StoredStudyResults(
            central_statistic=CentralStatistic(study.central_statistic),
            members_used=len(completed),
            members_left_out=_left_out(study),
            aeps=[_aep_results(study, aep, [m for m in completed if m.aep == aep]) for aep in study.aeps],
        )
    except DATABASE_UNREACHABLE:
        raise  # not the envelopes' fault: the task tries again once the database is back
    except Exception:
        logger.exception("The envelopes of design study %s failed", study.pk)
        return record_update(
            study,
            status=StudyStatus.ERROR,
            finished_at=timezone.now(),
            status_message="Computing the envelopes failed on our side; it has been logged.",
        )
    stored = results.model_dump(mode="json")
    return record_update(study, status=StudyStatus.COMPLETE, finished_at=timezone.now(), results=stored)


def _left_out(study: DesignStudy) -> list[LeftOutMember]:
    """Every member that did not complete, and why: none is dropped without a word."""
    missing = study.members.exclude(run__status=RunStatus.COMPLETE).select_related("run").order_by("id")
    return [
        LeftOutMember(
            aep=member.aep,
            duration_min=member.duration_min,
            pattern=member.pattern,
            run=member.run_id,
            status=RunStatus(member.run.status) if member.run else RunStatus.ERROR,
            reason=(member.run.error_message or member.run.user_message) if member.run else "It never ran.",
        )
        for member in missing
    ]


def _aep_results(study: DesignStudy, aep: str, members: list[DesignMember]) -> StoredAepResults:
    if not members:
        return StoredAepResults(aep=aep, layers=[], figures=None, gauges=[], flow_lines=[])
    prefix = f"studies/{study.pk}/results/{aep_slug(aep)}"
    storage = get_storage()
    with ExitStack() as files, tempfile.TemporaryDirectory(prefix=f"study-{study.pk}-") as workdir:
        rasters: dict[str, dict[int, list[Path]]] = {layer.value: defaultdict(list) for layer in ENVELOPE_LAYERS}
        for member in members:
            for layer in ENVELOPE_LAYERS:
                key = f"{_results_prefix(member)}/{layer.filename}"
                rasters[layer.value][member.duration_min].append(files.enter_context(storage.local_path(key=key)))
        written = envelope_rasters(
            rasters,
            destination=Path(workdir),
            critical_of=ResultLayer.MAX_DEPTH.value,
            statistic=_statistic(study),
        )
        figures = envelope_figures(written, durations=sorted({member.duration_min for member in members}))
        layers = []
        for name, path in written.items():
            key = f"{prefix}/{path.name}"
            with path.open("rb") as stream:
                storage.save(key=key, data=stream, content_type="image/tiff")
            layers.append(StoredLayer(name=name, units=_units(name), key=key))
    gauges, flow_lines = _series_tables(study, members)
    return StoredAepResults(
        aep=aep,
        layers=layers,
        figures=AepFigures.model_validate(figures),
        gauges=gauges,
        flow_lines=flow_lines,
    )


def _units(name: str) -> str:
    return CRITICAL_DURATION_UNITS if name == CRITICAL_DURATION else ResultLayer(name).units


def _series_tables(study: DesignStudy, members: list[DesignMember]) -> tuple[list[EnsembleTable], list[EnsembleTable]]:
    """Each gauge's peak depth and each flow line's peak discharge per duration and pattern, as ensemble tables."""
    gauges: dict[str, dict[int, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    lines: dict[str, dict[int, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    storage = get_storage()
    for member in members:
        key = f"{_results_prefix(member)}/time_series.json"
        if not storage.exists(key=key):
            continue
        with storage.open(key=key) as stream:
            recorded = json.load(stream)
        for gauge in recorded.get("gauges") or []:
            gauges[gauge["name"]][member.duration_min][member.pattern] = _peak(gauge.get("depth"))
        for line in recorded.get("flow_lines") or []:
            lines[line["name"]][member.duration_min][member.pattern] = _peak(line.get("discharge"))
    statistic = _statistic(study)
    return (
        [
            EnsembleTable(name=name, quantity=EnsembleQuantity.PEAK_DEPTH, **ensemble_table(p, statistic=statistic))
            for name, p in gauges.items()
        ],
        [
            EnsembleTable(name=name, quantity=EnsembleQuantity.PEAK_DISCHARGE, **ensemble_table(p, statistic=statistic))
            for name, p in lines.items()
        ],
    )


def _peak(values: list[float | None] | None) -> float:
    numbers = [v for v in values or [] if v is not None]
    return max(numbers) if numbers else float("nan")


def aep_slug(aep: str) -> str:
    """The AEP as a folder of the study's results and a segment of its tile route: "1%" is "1pct"."""
    return re.sub(r"[^0-9A-Za-z.]+", "_", aep.replace("%", "pct")).strip("_") or "aep"


def _results_prefix(member: DesignMember) -> str:
    if member.run is None:
        raise ValueError(f"member {member.pk} has no run")
    return member.run.results_prefix


def _statistic(study: DesignStudy) -> Central:
    return "mean" if study.central_statistic == CentralStatistic.MEAN else "median"
