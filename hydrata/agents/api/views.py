from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.agents.permissions import grant_of
from hydrata.agents.selectors import agent_me, capability_suggestion_answer
from hydrata.agents.services import capability_suggestion_create
from hydrata.core.answers import sent
from hydrata.core.bodies import parsed
from hydrata.core.errors import ValidationFailed
from hydrata.core.requests import AuthenticatedRequest
from hydrata_contract.answers import agents as answers
from hydrata_contract.errors import ErrorCode
from hydrata_contract.requests.agents import CapabilitySuggestionCreate


class AgentMeView(APIView):
    """The calling grant (a key or a connected app): name, level, account, paused, spend used and limit, expiry."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.AgentMe})
    def get(self, request: AuthenticatedRequest) -> Response:
        grant = grant_of(request)
        if grant is None:
            raise ValidationFailed(
                "This endpoint describes an agent grant; sign in with an agent key.", code=ErrorCode.NO_AGENT_GRANT
            )
        return Response(sent(agent_me(grant=grant, now=timezone.now())))


class CapabilitySuggestionCreateView(APIView):
    grant_levels = {"POST": "read"}

    @extend_schema(request=CapabilitySuggestionCreate, responses={201: answers.CapabilitySuggestion})
    def post(self, request: AuthenticatedRequest) -> Response:
        body = parsed(CapabilitySuggestionCreate, request)
        suggestion = capability_suggestion_create(user=request.user, grant=grant_of(request), **body.model_dump())
        return Response(sent(capability_suggestion_answer(suggestion=suggestion)), status=status.HTTP_201_CREATED)
