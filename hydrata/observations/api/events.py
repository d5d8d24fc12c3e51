from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectScopedView
from hydrata.core.answers import answer
from hydrata.core.bodies import parsed
from hydrata.core.requests import AuthenticatedRequest
from hydrata.observations.api.serializers import EventOutput, ranked_comparison
from hydrata.observations.checks import bbox_wgs84
from hydrata.observations.selectors import event_comparisons_ranked, event_get, event_points, events_of
from hydrata.observations.services.imports import observations_import
from hydrata.observations.services.observations import flood_event_create
from hydrata_contract.answers import observations as answers
from hydrata_contract.requests.observations import FloodEventCreate, ObservationsImport


class EventListCreateView(ProjectScopedView):
    grant_levels = {"GET": "read", "POST": "draft"}

    @extend_schema(operation_id="anuga_projects_events_list", responses={200: answers.FloodEventList})
    def get(self, request: AuthenticatedRequest) -> Response:
        events = EventOutput(events_of(project=self.project), many=True).data
        return Response(answer(answers.FloodEventList, {"results": events}))

    @extend_schema(request=FloodEventCreate, responses={201: answers.FloodEventDetail})
    def post(self, request: AuthenticatedRequest) -> Response:
        body = parsed(FloodEventCreate, request).model_dump()
        event = flood_event_create(project=self.project, user=request.user, **body)
        return Response(answer(answers.FloodEventDetail, EventOutput(event).data), status=status.HTTP_201_CREATED)


class EventDetailView(ProjectScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.FloodEventDetail})
    def get(self, request: AuthenticatedRequest, event_id: int) -> Response:
        event = event_get(project=self.project, event_id=event_id)
        return Response(answer(answers.FloodEventDetail, EventOutput(event).data))


class ObservationImportView(ProjectScopedView):
    grant_levels = {"POST": "draft"}

    @extend_schema(request=ObservationsImport, responses={201: answers.ObservationImport})
    def post(self, request: AuthenticatedRequest, event_id: int) -> Response:
        event = event_get(project=self.project, event_id=event_id)
        body = parsed(ObservationsImport, request)
        created = observations_import(event=event, user=request.user, **body.model_dump())
        values = [o.value_m for o in created]
        imported = {
            "event": event.pk,
            "imported": len(created),
            "quantity": body.quantity,
            "value_min": min(values, default=None),
            "value_max": max(values, default=None),
            "bbox_wgs84": bbox_wgs84(project=self.project, points=[(o.x, o.y) for o in created]),
            "observation_count": event.observations.count(),
        }
        return Response(answer(answers.ObservationImport, imported), status=status.HTTP_201_CREATED)


class EventPointsView(ProjectScopedView):
    """The event's observations where the map draws them (WGS84)."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.EventPoints})
    def get(self, request: AuthenticatedRequest, event_id: int) -> Response:
        event = event_get(project=self.project, event_id=event_id)
        return Response(answer(answers.EventPoints, event_points(event=event)))


class EventComparisonsView(ProjectScopedView):
    """Every run compared with the event, ranked: what the map's Comparison panel lists."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.EventComparisons})
    def get(self, request: AuthenticatedRequest, event_id: int) -> Response:
        event = event_get(project=self.project, event_id=event_id)
        ranked = event_comparisons_ranked(event=event)
        results = [ranked_comparison(comparison, rank=rank) for rank, comparison in enumerate(ranked, start=1)]
        return Response(
            answer(answers.EventComparisons, {"event": event.pk, "event_name": event.name, "results": results})
        )
