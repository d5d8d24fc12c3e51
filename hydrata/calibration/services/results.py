"""What each member gave (its fit to the event's observations, the comparison maths of any run; its peaks at the
observations and gauges and its wet area) and, once every member has ended, the study's results: the best fit with
every observation, or the Morris ranking of the parameters on each output."""

import json
from dataclasses import asdict
from typing import Any

import numpy as np

from hydrata.anuga.models import Run
from hydrata.calibration.models import CalibrationMember, CalibrationStudy
from hydrata.calibration.selectors import study_parameters
from hydrata.compute.calibration import morris
from hydrata.core.errors import PlatformError
from hydrata.observations.services.comparisons import comparison_compute
from hydrata.storage import get_storage
from hydrata_contract.calibration import CalibrationMethod
from hydrata_contract.requests.calibration import CalibrationParameter
from hydrata_contract.states import RunStatus

WET_AREA = "wet_area_m2"


def member_read(*, study: CalibrationStudy, member: CalibrationMember) -> None:
    """Read an ended member: a complete one is compared with the event (a comparison of its run, as
    rank_runs_against_observations makes), its objective the RMSE; one that did not complete gave nothing."""
    run = member.run
    member.told = True
    if run is None or run.status != RunStatus.COMPLETE or not run.results_prefix:
        member.save(update_fields=["told"])
        return
    user = study.launched_by or study.created_by
    if user is None:  # the person who made and started it was deleted: nothing to record the comparison under
        member.save(update_fields=["told"])
        return
    try:
        comparison = comparison_compute(run=run, event=study.event, user=user)
    except PlatformError:  # e.g. the event's observations were all deleted since: it gives nothing, the study goes on
        member.save(update_fields=["told"])
        return
    member.objective = comparison.metrics.get("rmse")
    member.outputs = {
        "comparison": comparison.pk,
        "observations": [
            {"observation": row["observation_id"], "modelled": row["modelled"]} for row in comparison.points
        ],
        "gauges": _gauge_peaks(run),
        WET_AREA: (run.statistics or {}).get(WET_AREA),
    }
    member.save(update_fields=["told", "objective", "outputs"])


def _gauge_peaks(run: Run) -> dict[str, float | None]:
    storage = get_storage()
    key = f"{run.results_prefix}/time_series.json"
    if not storage.exists(key=key):
        return {}
    with storage.open(key=key) as stream:
        recorded = json.load(stream)
    peaks = {}
    for gauge in recorded.get("gauges") or []:
        depths = [value for value in gauge.get("depth") or [] if value is not None]
        peaks[str(gauge["name"])] = max(depths) if depths else None
    return peaks


def study_results(*, study: CalibrationStudy, members: list[CalibrationMember]) -> dict[str, Any]:
    parameters = study_parameters(study)
    labels = [parameter.label for parameter in parameters]
    ran = [m for m in members if m.run is not None]
    results: dict[str, Any] = {
        "method": study.method,
        "members_run": len(ran),
        "members_complete": sum(1 for m in ran if m.objective is not None),
        "best": None,
        "morris": None,
    }
    if study.method == CalibrationMethod.OPTIMISE:
        fitted = [m for m in ran if m.objective is not None]
        if fitted:
            best = min(fitted, key=lambda m: (m.objective, m.index))
            results["best"] = _best(best, labels)
        return results
    results["morris"] = _morris(study, parameters, members)
    return results


def _best(best: CalibrationMember, labels: list[str]) -> dict[str, Any]:
    from hydrata.observations.models import Comparison

    outputs = best.outputs or {}
    found = outputs.get("comparison")
    comparison = Comparison.objects.filter(pk=found).first() if found is not None else None
    return {
        "member": best.index,
        "run": best.run_id,
        "values": dict(zip(labels, best.values, strict=True)),
        "objective": best.objective,
        "comparison": comparison.pk if comparison else None,
        "metrics": comparison.metrics if comparison else None,
        "fit": [
            {key: row[key] for key in ("observation_id", "observed", "modelled", "error", "within_tolerance")}
            for row in (comparison.points if comparison else [])
        ],
    }


def _morris(
    study: CalibrationStudy, parameters: list[CalibrationParameter], members: list[CalibrationMember]
) -> dict[str, Any]:
    """Each output's effects, and the parameters ranked over all outputs by their mu* as a share of each output's
    largest (so a peak in metres and an area in square metres weigh alike)."""
    values = [m.values for m in members]
    outputs: dict[str, list[float | None]] = {}
    names: dict[str, tuple[str, str]] = {}
    for position, member in enumerate(members):
        found = member.outputs or {}
        read: dict[str, tuple[str, str, float | None]] = {}
        for row in found.get("observations") or []:
            read[f"observation:{row['observation']}"] = ("observation", str(row["observation"]), row["modelled"])
        for name, peak in (found.get("gauges") or {}).items():
            read[f"gauge:{name}"] = ("gauge", name, peak)
        if WET_AREA in found:
            read[WET_AREA] = ("wet_area", "wet area (m²)", found[WET_AREA])
        for key, (kind, name, value) in read.items():
            outputs.setdefault(key, [None] * len(members))[position] = value
            names[key] = (kind, name)
    tables: list[dict[str, Any]] = []
    shares: dict[str, list[float]] = {parameter.label: [] for parameter in parameters}
    for key, series in outputs.items():
        found = morris.effects(parameters=parameters, values=values, outputs=series, seed=study.seed)
        if found is None:
            continue
        effects, trajectories = found
        kind, name = names[key]
        tables.append(
            {"output": kind, "name": name, "trajectories": trajectories, "effects": [asdict(e) for e in effects]}
        )
        largest = max(effect.mu_star for effect in effects)
        for effect in effects:
            shares[effect.parameter].append(effect.mu_star / largest if largest > 0 else 0.0)
    influence = {label: float(np.mean(got)) if got else 0.0 for label, got in shares.items()}
    ranking = [
        {"parameter": label, "influence": influence[label]} for label in sorted(influence, key=lambda p: -influence[p])
    ]
    return {
        "trajectories": morris.trajectories_in(budget=study.budget, parameters=len(parameters)),
        "outputs": tables,
        "ranking": ranking,
    }
