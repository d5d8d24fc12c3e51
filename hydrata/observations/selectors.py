"""Reads of events, observations and comparisons, always through a project the caller may see: else a 404."""

from django.contrib.auth.models import User
from django.db.models import Count, QuerySet

from hydrata.anuga.models import Project
from hydrata.anuga.selectors.projects import projects_visible_to
from hydrata.compute.comparisons.comparison import observations_fingerprint, ranking_key
from hydrata.core.errors import NotFound
from hydrata.observations.checks import bbox_wgs84, points_wgs84
from hydrata.observations.models import Comparison, FloodEvent, Observation
from hydrata_contract.answers.observations import ComparedPoint, ComparisonMetrics, EventPoints
from hydrata_contract.errors import ErrorCode


def events_of(*, project: Project) -> QuerySet[FloodEvent]:
    return project.flood_events.annotate(observation_count=Count("observations"))


def event_get(*, project: Project, event_id: int) -> FloodEvent:
    event = events_of(project=project).filter(pk=event_id).first()
    if event is None:
        raise NotFound(
            f"Project {project.pk} has no flood event {event_id}. list_observations shows its events.",
            code=ErrorCode.EVENT_NOT_FOUND,
        )
    return event


def event_visible_get(*, user: User, event_id: int) -> FloodEvent:
    """An event of any project the caller may see (a run's comparison names its event alone)."""
    event = (
        FloodEvent.objects.filter(pk=event_id, project__in=projects_visible_to(user=user))
        .select_related("project")
        .first()
    )
    if event is None:
        raise NotFound(
            f"Flood event {event_id} does not exist or is not visible to this caller.", code=ErrorCode.EVENT_NOT_FOUND
        )
    return event


def observations_of(*, project: Project, event: FloodEvent | None = None) -> QuerySet[Observation]:
    observations = Observation.objects.filter(event__project=project).select_related("event__project")
    return observations.filter(event=event) if event is not None else observations


def observation_get(*, project: Project, observation_id: int) -> Observation:
    observation = observations_of(project=project).filter(pk=observation_id).first()
    if observation is None:
        raise NotFound(
            f"Project {project.pk} has no observation {observation_id}.", code=ErrorCode.OBSERVATION_NOT_FOUND
        )
    return observation


def comparison_get(*, user: User, comparison_id: int) -> Comparison:
    """A comparison whose event belongs to a project the caller may see (one query); anything else is 404."""
    comparison = (
        Comparison.objects.filter(pk=comparison_id, event__project__in=projects_visible_to(user=user))
        .select_related("event__project", "run__scenario")
        .first()
    )
    if comparison is None:
        raise NotFound(
            f"Comparison {comparison_id} does not exist or is not visible to this caller.",
            code=ErrorCode.COMPARISON_NOT_FOUND,
        )
    return comparison


def observation_state(observation: Observation) -> tuple[int, str, float, float, float, float]:
    """What a comparison depends on of one observation."""
    return (
        observation.pk,
        observation.quantity,
        observation.x,
        observation.y,
        observation.value_m,
        observation.tolerance_m,
    )


def fingerprint_of(*, event: FloodEvent) -> str:
    """The digest of the event's observations as they are now (see comparison.observations_fingerprint)."""
    return observations_fingerprint(observation_state(o) for o in Observation.objects.filter(event=event))


def comparison_is_stale(*, comparison: Comparison) -> bool:
    return comparison.observations_fingerprint != fingerprint_of(event=comparison.event)


def comparison_metrics(comparison: Comparison) -> ComparisonMetrics:
    """The comparison's metrics (a JSON column) read back as the contract's model."""
    return ComparisonMetrics.model_validate(comparison.metrics)


def comparison_points(comparison: Comparison) -> list[ComparedPoint]:
    """The comparison's rows (a JSON column), one per observation, read back as the contract's model."""
    return [ComparedPoint.model_validate(row) for row in comparison.points]


def event_points(*, event: FloodEvent) -> EventPoints:
    """The event's observations as GeoJSON points in WGS84, for the map (the API keeps them in the project CRS)."""
    observations = list(Observation.objects.filter(event=event).order_by("id"))
    native = [(o.x, o.y) for o in observations]
    places = points_wgs84(project=event.project, points=native)
    features = [
        {
            "type": "Feature",
            "id": o.pk,
            "geometry": {"type": "Point", "coordinates": [lon, lat]},
            "properties": {
                "observation_id": o.pk,
                "quantity": o.quantity,
                "value_m": o.value_m,
                "tolerance_m": o.tolerance_m,
                "source": o.source,
            },
        }
        for o, (lon, lat) in zip(observations, places, strict=True)
    ]
    return EventPoints(
        type="FeatureCollection",
        event=event.pk,
        feature_count=len(features),
        bbox_wgs84=bbox_wgs84(project=event.project, points=native),
        features=features,
    )


def event_comparisons_ranked(*, event: FloodEvent) -> list[Comparison]:
    """Every run compared with the event, in the order a ranking of those runs puts them (best first)."""
    comparisons = Comparison.objects.filter(event=event).select_related("event__project", "run__scenario")
    return sorted(
        comparisons, key=lambda comparison: ranking_key(comparison.run_id, comparison_metrics(comparison).model_dump())
    )
