"""DRF authentication for `Authorization: Bearer hk_...` agent keys."""

from django.utils import timezone
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from hydrata.agents.keys import KEY_PREFIX
from hydrata.agents.models import AgentGrant
from hydrata.agents.selectors import grant_for_key
from hydrata.agents.services import grant_touch
from hydrata.core.errors import AuthenticationError

WWW_AUTHENTICATE = 'Bearer realm="hydrata.com"'


class AgentKeyAuthentication(BaseAuthentication):
    """Bearer hk_ keys. Any other scheme or token returns None, so browser sessions keep working."""

    def authenticate(self, request: Request) -> tuple[object, AgentGrant] | None:
        token = _bearer_token(request)
        if token is None or not token.startswith(KEY_PREFIX):
            return None
        grant = grant_for_key(key=token)
        if grant is None:
            raise AuthenticationError(
                "This agent key is not valid. Ask the account owner for a key from the /agents/ page.",
                code="AGENT_KEY_INVALID",
            )
        # Recorded in the activity log even when refused below: the owner should see a revoked key in use.
        request._request.agent_grant = grant  # type: ignore[attr-defined]
        now = timezone.now()
        if grant.revoked_at is not None:
            raise AuthenticationError("This agent key has been revoked.", code="AGENT_KEY_REVOKED")
        if grant.expires_at is not None and grant.expires_at <= now:
            raise AuthenticationError("This agent key has expired.", code="AGENT_KEY_EXPIRED")
        if not grant.user.is_active:
            raise AuthenticationError("The account this key belongs to is disabled.", code="ACCOUNT_DISABLED")
        grant_touch(grant=grant, now=now)
        return grant.user, grant

    def authenticate_header(self, request: Request) -> str:
        return WWW_AUTHENTICATE


def _bearer_token(request: Request) -> str | None:
    header = get_authorization_header(request).decode("latin-1")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip()
