from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.anuga.models import Project
from hydrata.anuga.selectors.projects import project_get, project_get_writable
from hydrata.core.errors import ValidationFailed
from hydrata.observations.api.serializers import ObservationInput, ObservationOutput
from hydrata.observations.models import FloodEvent
from hydrata.observations.selectors import event_get, observation_get, observations_of
from hydrata.observations.services.observations import observation_create, observation_delete, observation_update


def _event_filter(project: Project, raw: str | None) -> FloodEvent | None:
    if not raw:
        return None
    if not raw.isdigit():
        raise ValidationFailed(f"event must be a flood event's id, not {raw[:20]!r}.", code="INVALID_EVENT_FILTER")
    return event_get(project=project, event_id=int(raw))


class ObservationListCreateView(GenericAPIView):
    grant_levels = {"GET": "read", "POST": "draft"}

    def get(self, request: Request, project_id: int) -> Response:
        project = project_get(user=request.user, project_id=project_id)
        event = _event_filter(project, request.query_params.get("event"))
        page = self.paginate_queryset(observations_of(project=project, event=event).select_related("event__project"))
        return self.get_paginated_response(ObservationOutput(page, many=True).data)

    def post(self, request: Request, project_id: int) -> Response:
        project = project_get_writable(user=request.user, project_id=project_id)
        data = ObservationInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        event = event_get(project=project, event_id=fields.pop("event"))
        observation = observation_create(event=event, user=request.user, **fields)
        return Response(ObservationOutput(observation).data, status=status.HTTP_201_CREATED)


class ObservationDetailView(APIView):
    grant_levels = {"GET": "read", "PATCH": "draft", "DELETE": "draft"}

    def get(self, request: Request, project_id: int, observation_id: int) -> Response:
        project = project_get(user=request.user, project_id=project_id)
        return Response(ObservationOutput(observation_get(project=project, observation_id=observation_id)).data)

    def patch(self, request: Request, project_id: int, observation_id: int) -> Response:
        project = project_get_writable(user=request.user, project_id=project_id)
        observation = observation_get(project=project, observation_id=observation_id)
        data = ObservationInput(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        changes = {name: value for name, value in data.validated_data.items() if name in request.data}
        if "event" in changes:
            changes["event"] = event_get(project=project, event_id=changes["event"])
        return Response(ObservationOutput(observation_update(observation=observation, changes=changes)).data)

    def delete(self, request: Request, project_id: int, observation_id: int) -> Response:
        project = project_get_writable(user=request.user, project_id=project_id)
        observation_delete(observation=observation_get(project=project, observation_id=observation_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
