"""Complete runs against the observations of a flood event: one comparison per run and event, and rankings."""

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from hydrata.anuga.models import Run
from hydrata.compute.comparisons.comparison import METHOD, Observed, compare, observations_fingerprint, ranking_key
from hydrata.core.errors import Conflict, ValidationFailed
from hydrata.observations.models import Comparison, FloodEvent, Observation
from hydrata.observations.run_reading import run_peaks, run_settings
from hydrata.observations.selectors import comparison_metrics, observation_state
from hydrata_contract.answers.observations import ComparedPoint, ComparisonMetrics
from hydrata_contract.errors import ErrorCode
from hydrata_contract.states import RunStatus


@dataclass(frozen=True)
class RankedRun:
    rank: int
    comparison: Comparison
    settings: dict[str, Any]


def comparable_check(*, run: Run, event: FloodEvent, needs_observations: bool = True) -> None:
    """A run of the event's project that finished with results, and observations to compare it with; otherwise a
    refusal saying which."""
    if run.scenario.project_id != event.project_id:
        raise ValidationFailed(
            f"Run {run.pk} belongs to project {run.scenario.project_id}, but flood event "
            f"{event.pk} belongs to project {event.project_id}: compare a run of the same "
            "project.",
            code=ErrorCode.RUN_NOT_IN_PROJECT,
            run=run.pk,
        )
    if needs_observations and not Observation.objects.filter(event=event).exists():
        raise ValidationFailed(
            f"Flood event {event.pk} has no observations yet: add some with create_observation "
            "or import_observations, then compare.",
            code=ErrorCode.EVENT_HAS_NO_OBSERVATIONS,
        )
    if run.status != RunStatus.COMPLETE or not run.results_prefix:
        raise Conflict(
            f"Run {run.pk} is {run.status}, not complete: compare it once get_run_status says complete.",
            code=ErrorCode.RUN_NOT_COMPLETE,
            run=run.pk,
            status=run.status,
        )


def comparison_compute(*, run: Run, event: FloodEvent, user: User) -> Comparison:
    """Compare the run with the event's observations now; a comparison of this run and event is brought up to
    date rather than made twice."""
    comparable_check(run=run, event=event)
    return _store(run=run, event=event, observations=_observations(event), user=user)


def comparison_recompute(*, comparison: Comparison, user: User) -> Comparison:
    """After observations changed (an event whose observations were all deleted compares as n = 0)."""
    comparable_check(run=comparison.run, event=comparison.event, needs_observations=False)
    return _store(run=comparison.run, event=comparison.event, observations=_observations(comparison.event), user=user)


def runs_rank(*, event: FloodEvent, runs: list[Run], user: User) -> list[RankedRun]:
    """One comparison per run against the event, best (lowest RMSE, then MAE) first. Every run is checked
    before any is compared: one that cannot be compared refuses the whole ranking."""
    for run in runs:
        comparable_check(run=run, event=event)
    with transaction.atomic():
        comparisons = [comparison_compute(run=run, event=event, user=user) for run in runs]
    ordered = sorted(comparisons, key=lambda c: ranking_key(c.run_id, comparison_metrics(c).model_dump()))
    return [
        RankedRun(rank=position, comparison=comparison, settings=run_settings(run=comparison.run))
        for position, comparison in enumerate(ordered, start=1)
    ]


def _observations(event: FloodEvent) -> list[Observation]:
    return list(Observation.objects.filter(event=event).order_by("id"))


def _store(*, run: Run, event: FloodEvent, observations: list[Observation], user: User) -> Comparison:
    peaks = run_peaks(run=run, points=[(o.x, o.y) for o in observations])
    rows, metrics = compare(
        [
            Observed(observation_id=o.pk, quantity=o.quantity, value=o.value_m, tolerance=o.tolerance_m)
            for o in observations
        ],
        peaks,
    )
    points = [ComparedPoint(**row, x=o.x, y=o.y) for row, o in zip(rows, observations, strict=True)]
    comparison, _ = Comparison.objects.update_or_create(
        run=run,
        event=event,
        defaults={
            "method": METHOD,
            "points": [point.model_dump(mode="json") for point in points],
            "metrics": ComparisonMetrics(**metrics).model_dump(mode="json"),
            "computed_at": timezone.now(),
            "created_by": user,
            "observations_fingerprint": observations_fingerprint(observation_state(o) for o in observations),
        },
    )
    return comparison
