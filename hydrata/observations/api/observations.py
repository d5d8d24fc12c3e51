from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectListView, ProjectScopedView
from hydrata.anuga.models import Project
from hydrata.anuga.selectors.links import project_link
from hydrata.compute.inputs.numbers import NumberRefused, whole_number
from hydrata.core.answers import page_answer, sent
from hydrata.core.bodies import parsed
from hydrata.core.errors import ValidationFailed
from hydrata.core.requests import AuthenticatedRequest
from hydrata.observations.api.answers import observation_answer
from hydrata.observations.models import FloodEvent, Observation
from hydrata.observations.selectors import event_get, observation_get, observations_of
from hydrata.observations.services.observations import observation_create, observation_delete, observation_update
from hydrata_contract.answers import observations as answers
from hydrata_contract.errors import ErrorCode
from hydrata_contract.links import Panel
from hydrata_contract.requests.observations import ObservationChanges, ObservationCreate


def _event_filter(project: Project, raw: str | None) -> FloodEvent | None:
    if not raw:
        return None
    try:
        event_id = whole_number(raw)
    except NumberRefused as refused:
        raise ValidationFailed(
            f"event must be a flood event's id: {refused.reason}.", code=ErrorCode.INVALID_EVENT_FILTER, field="event"
        ) from None
    return event_get(project=project, event_id=event_id)


class ObservationListCreateView(ProjectListView):
    grant_levels = {"GET": "read", "POST": "draft"}
    list_panel = Panel.OBSERVATIONS

    @extend_schema(
        parameters=[OpenApiParameter("event", int, description="Only the observations of this flood event.")],
        responses={200: answers.ObservationPage},
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        event = _event_filter(self.project, request.query_params.get("event"))
        page = self.paginate_queryset(observations_of(project=self.project, event=event))
        results = [observation_answer(observation) for observation in page or []]
        ui_url = project_link(self.project, self.list_panel)
        return Response(sent(page_answer(view=self, model=answers.ObservationPage, results=results, ui_url=ui_url)))

    @extend_schema(request=ObservationCreate, responses={201: answers.ObservationDetail})
    def post(self, request: AuthenticatedRequest) -> Response:
        fields = parsed(ObservationCreate, request).model_dump()
        event = event_get(project=self.project, event_id=fields.pop("event"))
        observation = observation_create(event=event, user=request.user, **fields)
        return Response(sent(observation_answer(observation)), status=status.HTTP_201_CREATED)


class ObservationDetailView(ProjectScopedView):
    grant_levels = {"GET": "read", "PATCH": "draft", "DELETE": "draft"}

    @extend_schema(responses={200: answers.ObservationDetail})
    def get(self, request: AuthenticatedRequest, observation_id: int) -> Response:
        return Response(sent(observation_answer(self._observation(observation_id))))

    @extend_schema(request=ObservationChanges, responses={200: answers.ObservationDetail})
    def patch(self, request: AuthenticatedRequest, observation_id: int) -> Response:
        observation = self._observation(observation_id)
        changes = parsed(ObservationChanges, request).model_dump(exclude_unset=True)
        if "event" in changes:
            changes["event"] = event_get(project=self.project, event_id=changes["event"])
        updated = observation_update(observation=observation, changes=changes)
        return Response(sent(observation_answer(updated)))

    @extend_schema(responses={204: None})
    def delete(self, request: AuthenticatedRequest, observation_id: int) -> Response:
        observation_delete(observation=self._observation(observation_id))
        return Response(status=status.HTTP_204_NO_CONTENT)

    def _observation(self, observation_id: int) -> Observation:
        return observation_get(project=self.project, observation_id=observation_id)
