"""What each member gave (its fit to the event's observations, the comparison maths of any run; its peaks at the
observations and gauges and its wet area) and, once every member has ended, the study's results: the best fit with
every observation, or the Morris ranking. Both are written and read through the contract's models."""

import json

import numpy as np

from hydrata.anuga.models import Run
from hydrata.anuga.selectors.runs import run_statistics
from hydrata.calibration.models import CalibrationMember, CalibrationStudy
from hydrata.calibration.selectors import study_parameters
from hydrata.compute.calibration import morris
from hydrata.core.errors import PlatformError
from hydrata.observations.models import Comparison
from hydrata.observations.selectors import comparison_metrics, comparison_points
from hydrata.observations.services.comparisons import comparison_compute
from hydrata.storage import get_storage
from hydrata_contract.answers.calibration import (
    BestFit,
    CalibrationResults,
    FitRow,
    MorrisEffect,
    MorrisOutput,
    MorrisRank,
    MorrisResults,
)
from hydrata_contract.calibration import CalibrationMethod, MemberOutputs, ObservedPeak
from hydrata_contract.requests.calibration import CalibrationParameter
from hydrata_contract.states import RunStatus


def member_read(*, study: CalibrationStudy, member: CalibrationMember) -> None:
    """Read an ended member: a complete one is compared with the event (a comparison of its run, as
    rank_runs_against_observations makes), its objective the RMSE; one that did not complete gave nothing."""
    run = member.run
    member.told = True
    user = study.launched_by or study.created_by  # None: both were deleted, nothing to record a comparison under
    if run is None or run.status != RunStatus.COMPLETE or not run.results_prefix or user is None:
        member.save(update_fields=["told"])
        return
    try:
        comparison = comparison_compute(run=run, event=study.event, user=user)
    except PlatformError:  # e.g. the event's observations were all deleted since: it gives nothing, the study goes on
        member.save(update_fields=["told"])
        return
    member.objective = comparison_metrics(comparison).rmse
    statistics = run_statistics(run=run)
    member.outputs = MemberOutputs(
        comparison=comparison.pk,
        observations=[
            ObservedPeak(observation=point.observation_id, modelled=point.modelled)
            for point in comparison_points(comparison)
        ],
        gauges=_gauge_peaks(run),
        wet_area_m2=None if statistics is None else statistics.wet_area_m2,
    ).model_dump(mode="json")
    member.save(update_fields=["told", "objective", "outputs"])


def member_outputs(member: CalibrationMember) -> MemberOutputs | None:
    return None if member.outputs is None else MemberOutputs.model_validate(member.outputs)


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


def study_results(*, study: CalibrationStudy, members: list[CalibrationMember]) -> CalibrationResults:
    parameters = study_parameters(study)
    ran = [m for m in members if m.run is not None]
    fitted = [m for m in ran if m.objective is not None]
    best = None
    if study.method == CalibrationMethod.OPTIMISE and fitted:
        best = _best(min(fitted, key=lambda m: (m.objective, m.index)), [p.label for p in parameters])
    return CalibrationResults(
        method=CalibrationMethod(study.method),
        members_run=len(ran),
        members_complete=len(fitted),
        best=best,
        morris=_morris(study, parameters, members) if study.method == CalibrationMethod.MORRIS else None,
    )


def _best(best: CalibrationMember, labels: list[str]) -> BestFit:
    outputs = member_outputs(best)
    comparison = Comparison.objects.filter(pk=outputs.comparison).first() if outputs is not None else None
    return BestFit(
        member=best.index,
        run=best.run_id,
        values=dict(zip(labels, best.values, strict=True)),
        objective=best.objective,
        comparison=comparison.pk if comparison else None,
        metrics=comparison_metrics(comparison).model_dump(mode="json") if comparison else None,
        fit=[
            FitRow(
                observation_id=point.observation_id,
                observed=point.observed,
                modelled=point.modelled,
                error=point.error,
                within_tolerance=point.within_tolerance,
            )
            for point in (comparison_points(comparison) if comparison else [])
        ],
    )


def _outputs(members: list[CalibrationMember]) -> dict[tuple[str, str], list[float | None]]:
    """Each output by (kind, name), one value per member in order (None where the member gave none)."""
    outputs: dict[tuple[str, str], list[float | None]] = {}
    for position, member in enumerate(members):
        found = member_outputs(member)
        if found is None:
            continue
        read = [("observation", str(peak.observation), peak.modelled) for peak in found.observations]
        read += [("gauge", name, peak) for name, peak in found.gauges.items()]
        read.append(("wet_area", "wet area (m²)", found.wet_area_m2))
        for kind, name, value in read:
            outputs.setdefault((kind, name), [None] * len(members))[position] = value
    return outputs


def _morris(
    study: CalibrationStudy, parameters: list[CalibrationParameter], members: list[CalibrationMember]
) -> MorrisResults:
    """Each output's effects, and the parameters ranked over all outputs by their mu* as a share of each output's
    largest (so a peak in metres and an area in square metres weigh alike)."""
    values = [m.values for m in members]
    tables: list[MorrisOutput] = []
    shares: dict[str, list[float]] = {parameter.label: [] for parameter in parameters}
    for (kind, name), series in _outputs(members).items():
        found = morris.effects(parameters=parameters, values=values, outputs=series, seed=study.seed)
        if found is None:
            continue
        effects, trajectories = found
        tables.append(
            MorrisOutput(
                output=kind,
                name=name,
                trajectories=trajectories,
                effects=[
                    MorrisEffect(parameter=e.parameter, mu_star=e.mu_star, sigma=e.sigma, mu_star_conf=e.mu_star_conf)
                    for e in effects
                ],
            )
        )
        largest = max(effect.mu_star for effect in effects)
        for effect in effects:
            shares[effect.parameter].append(effect.mu_star / largest if largest > 0 else 0.0)
    influence = {label: float(np.mean(got)) if got else 0.0 for label, got in shares.items()}
    return MorrisResults(
        trajectories=morris.trajectories_in(budget=study.budget, parameters=len(parameters)),
        outputs=tables,
        ranking=[
            MorrisRank(parameter=p, influence=influence[p]) for p in sorted(influence, key=lambda p: -influence[p])
        ],
    )
