"""The observations' answers, built as the contract's models (hydrata_contract/answers/observations.py): what a view
sends is the model, dumped. A comparison's points and metrics (JSON columns) are read through `comparison_points` and
`comparison_metrics` only."""

from django.db.models import QuerySet

from hydrata.anuga.models import Project
from hydrata.anuga.selectors.links import comparison_link, event_link
from hydrata.compute.comparisons.comparison import differing_settings
from hydrata.observations.checks import bbox_wgs84
from hydrata.observations.models import Comparison, FloodEvent, Observation
from hydrata.observations.run_reading import MODEL_SETTINGS
from hydrata.observations.selectors import comparison_is_stale, comparison_metrics, comparison_points
from hydrata.observations.services.comparisons import RankedRun
from hydrata_contract.answers.observations import (
    ComparisonDetail,
    EventComparison,
    EventComparisons,
    FloodEventDetail,
    FloodEventList,
    GivenPosition,
    ObservationDetail,
    ObservationImport,
    Ranking,
)
from hydrata_contract.answers.observations import RankedRun as RankedRunAnswer
from hydrata_contract.observations import Quantity


def event_answer(event: FloodEvent) -> FloodEventDetail:
    counted = getattr(event, "observation_count", None)  # annotated by events_of
    return FloodEventDetail(
        id=event.pk,
        project=event.project_id,
        name=event.name,
        started_at=event.started_at,
        ended_at=event.ended_at,
        description=event.description,
        observation_count=counted if counted is not None else event.observations.count(),
        ui_url=event_link(event.project, event.pk),
        created_at=event.created_at,
        updated_at=event.updated_at,
    )


def event_list_answer(events: QuerySet[FloodEvent]) -> FloodEventList:
    return FloodEventList(results=[event_answer(event) for event in events])


def observation_answer(observation: Observation) -> ObservationDetail:
    project = observation.event.project
    return ObservationDetail(
        id=observation.pk,
        event=observation.event_id,
        x=observation.x,
        y=observation.y,
        crs=project.projection,
        given=GivenPosition(x=observation.given_x, y=observation.given_y, crs=observation.given_crs),
        quantity=Quantity(observation.quantity),
        value_m=observation.value_m,
        tolerance_m=observation.tolerance_m,
        observed_at=observation.observed_at,
        source=observation.source,
        notes=observation.notes,
        ui_url=event_link(project, observation.event_id),
        created_at=observation.created_at,
        updated_at=observation.updated_at,
    )


def import_answer(*, event: FloodEvent, created: list[Observation], quantity: Quantity) -> ObservationImport:
    values = [o.value_m for o in created]
    return ObservationImport(
        event=event.pk,
        imported=len(created),
        quantity=quantity,
        value_min=min(values, default=None),
        value_max=max(values, default=None),
        bbox_wgs84=bbox_wgs84(project=event.project, points=[(o.x, o.y) for o in created]),
        observation_count=event.observations.count(),
    )


def comparison_detail(comparison: Comparison) -> ComparisonDetail:
    run = comparison.run
    return ComparisonDetail(
        id=comparison.pk,
        run=run.pk,
        event=comparison.event_id,
        event_name=comparison.event.name,
        project=comparison.event.project_id,
        crs=comparison.event.project.projection,
        scenario=run.scenario_id,
        scenario_name=run.scenario.name,
        method=comparison.method,
        computed_at=comparison.computed_at,
        is_stale=comparison_is_stale(comparison=comparison),
        metrics=comparison_metrics(comparison),
        points=comparison_points(comparison),
        ui_url=_link(comparison),
    )


def event_comparisons_answer(*, event: FloodEvent, ranked: list[Comparison]) -> EventComparisons:
    return EventComparisons(
        event=event.pk,
        event_name=event.name,
        results=[
            EventComparison(
                rank=rank,
                run=comparison.run_id,
                comparison=comparison.pk,
                scenario=comparison.run.scenario_id,
                scenario_name=comparison.run.scenario.name,
                computed_at=comparison.computed_at,
                is_stale=comparison_is_stale(comparison=comparison),
                metrics=comparison_metrics(comparison),
                ui_url=_link(comparison),
            )
            for rank, comparison in enumerate(ranked, start=1)
        ],
    )


def ranking_answer(*, project: Project, event: FloodEvent, ranked: list[RankedRun]) -> Ranking:
    best = ranked[0].comparison
    return Ranking(
        project=project.pk,
        ui_url=comparison_link(project, comparison=best.pk, run=best.run_id, event=event.pk),
        event=event.pk,
        event_name=event.name,
        differing=differing_settings([{name: entry.settings[name] for name in MODEL_SETTINGS} for entry in ranked]),
        results=[
            RankedRunAnswer(
                rank=entry.rank,
                run=entry.comparison.run_id,
                comparison=entry.comparison.pk,
                metrics=comparison_metrics(entry.comparison),
                settings=entry.settings,
            )
            for entry in ranked
        ],
    )


def _link(comparison: Comparison) -> str:
    return comparison_link(
        comparison.event.project, comparison=comparison.pk, run=comparison.run_id, event=comparison.event_id
    )
