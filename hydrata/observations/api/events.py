from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectScopedView
from hydrata.core.answers import sent
from hydrata.core.bodies import parsed
from hydrata.core.requests import AuthenticatedRequest
from hydrata.observations.api.answers import event_answer, event_comparisons_answer, event_list_answer, import_answer
from hydrata.observations.selectors import event_comparisons_ranked, event_get, event_points, events_of
from hydrata.observations.services.imports import observations_import
from hydrata.observations.services.observations import flood_event_create
from hydrata_contract.answers import observations as answers
from hydrata_contract.requests.observations import FloodEventCreate, ObservationsImport


class EventListCreateView(ProjectScopedView):
    grant_levels = {"GET": "read", "POST": "draft"}

    @extend_schema(operation_id="anuga_projects_events_list", responses={200: answers.FloodEventList})
    def get(self, request: AuthenticatedRequest) -> Response:
        return Response(sent(event_list_answer(events_of(project=self.project))))

    @extend_schema(request=FloodEventCreate, responses={201: answers.FloodEventDetail})
    def post(self, request: AuthenticatedRequest) -> Response:
        body = parsed(FloodEventCreate, request).model_dump()
        event = flood_event_create(project=self.project, user=request.user, **body)
        return Response(sent(event_answer(event)), status=status.HTTP_201_CREATED)


class EventDetailView(ProjectScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.FloodEventDetail})
    def get(self, request: AuthenticatedRequest, event_id: int) -> Response:
        return Response(sent(event_answer(event_get(project=self.project, event_id=event_id))))


class ObservationImportView(ProjectScopedView):
    grant_levels = {"POST": "draft"}

    @extend_schema(request=ObservationsImport, responses={201: answers.ObservationImport})
    def post(self, request: AuthenticatedRequest, event_id: int) -> Response:
        event = event_get(project=self.project, event_id=event_id)
        body = parsed(ObservationsImport, request)
        created = observations_import(event=event, user=request.user, **body.model_dump())
        imported = import_answer(event=event, created=created, quantity=body.quantity)
        return Response(sent(imported), status=status.HTTP_201_CREATED)


class EventPointsView(ProjectScopedView):
    """The event's observations where the map draws them (WGS84)."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.EventPoints})
    def get(self, request: AuthenticatedRequest, event_id: int) -> Response:
        event = event_get(project=self.project, event_id=event_id)
        return Response(sent(event_points(event=event)))


class EventComparisonsView(ProjectScopedView):
    """Every run compared with the event, ranked: what the map's Comparison panel lists."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.EventComparisons})
    def get(self, request: AuthenticatedRequest, event_id: int) -> Response:
        event = event_get(project=self.project, event_id=event_id)
        return Response(sent(event_comparisons_answer(event=event, ranked=event_comparisons_ranked(event=event))))
