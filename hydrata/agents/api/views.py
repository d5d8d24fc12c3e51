from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.agents.permissions import grant_of
from hydrata.agents.selectors import account_for_user, spend_used_this_month
from hydrata.agents.services import capability_suggestion_create
from hydrata.core.answers import answer
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
        account = account_for_user(user=grant.user)
        limit = account.monthly_spend_limit if account else None
        me = {
            "id": grant.pk,
            "kind": grant.kind,
            "name": grant.name,
            "level": grant.level,
            "key_prefix": grant.key_prefix,
            "client_host": grant.client_host,
            "account": grant.user.get_username(),
            "paused": bool(account and account.agents_paused),
            "spend_used_this_month": str(spend_used_this_month(user=grant.user, now=timezone.now())),
            "spend_limit_monthly": None if limit is None else str(limit),
            "currency": "USD",
            "created_at": grant.created_at,
            "expires_at": grant.expires_at,
            "last_used_at": grant.last_used_at,
        }
        return Response(answer(answers.AgentMe, me))


class CapabilitySuggestionCreateView(APIView):
    grant_levels = {"POST": "read"}

    @extend_schema(request=CapabilitySuggestionCreate, responses={201: answers.CapabilitySuggestion})
    def post(self, request: AuthenticatedRequest) -> Response:
        body = parsed(CapabilitySuggestionCreate, request)
        suggestion = capability_suggestion_create(user=request.user, grant=grant_of(request), **body.model_dump())
        created = {"id": suggestion.pk, "summary": suggestion.summary, "created_at": suggestion.created_at}
        return Response(answer(answers.CapabilitySuggestion, created), status=status.HTTP_201_CREATED)
