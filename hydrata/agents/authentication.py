"""DRF authentication for `Authorization: Bearer hk_...` agent keys, and the checks every grant passes to act."""

from datetime import datetime

from django.utils import timezone
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from hydrata.agents.keys import KEY_PREFIX
from hydrata.agents.models import AgentGrant
from hydrata.agents.selectors import grant_for_key
from hydrata.agents.services import grant_touch
from hydrata.core.errors import AuthenticationError
from hydrata_contract.errors import ErrorCode
from hydrata_contract.grants import GrantKind

WWW_AUTHENTICATE = 'Bearer realm="hydrata.com"'

KEY_REFUSALS = {
    "revoked": ("This agent key has been revoked.", ErrorCode.AGENT_KEY_REVOKED),
    "expired": ("This agent key has expired.", ErrorCode.AGENT_KEY_EXPIRED),
    "disabled": ("The account this key belongs to is disabled.", ErrorCode.ACCOUNT_DISABLED),
}
CONNECT_REFUSALS = {
    "revoked": (
        "This connection to Hydrata has been revoked. Connect again (sign in and choose a level) to continue.",
        ErrorCode.CONNECTION_REVOKED,
    ),
    "expired": (
        "This connection to Hydrata has expired. Connect again (sign in and choose a level) to continue.",
        ErrorCode.CONNECTION_EXPIRED,
    ),
    "disabled": ("The account this connection belongs to is disabled.", ErrorCode.ACCOUNT_DISABLED),
}


class AgentKeyAuthentication(BaseAuthentication):
    """Bearer hk_ keys. Any other scheme or token returns None, so browser sessions keep working."""

    def authenticate(self, request: Request) -> tuple[object, AgentGrant] | None:
        token = bearer_token(request)
        if token is None or not token.startswith(KEY_PREFIX):
            return None
        grant = grant_for_key(key=token)
        if grant is None:
            raise AuthenticationError(
                "This agent key is not valid. Ask the account owner for a key from the /agents/ page.",
                code=ErrorCode.AGENT_KEY_INVALID,
            )
        return grant_acting(request, grant)

    def authenticate_header(self, request: Request) -> str:
        return WWW_AUTHENTICATE


def grant_acting(request: Request, grant: AgentGrant) -> tuple[object, AgentGrant]:
    """Let a known grant act on this request, or refuse it. Either way the request is recorded in the activity
    log under the grant: the owner should see a revoked key, or a revoked connection, still in use."""
    request._request.agent_grant = grant  # type: ignore[attr-defined]
    now = timezone.now()
    refusal = grant_refusal(grant, now=now)
    if refusal is not None:
        raise refusal
    grant_touch(grant=grant, now=now)
    return grant.user, grant


def grant_refusal(grant: AgentGrant, *, now: datetime) -> AuthenticationError | None:
    """Why a known grant may not act now (revoked, expired, account disabled); None when it may."""
    refusals = CONNECT_REFUSALS if grant.kind == GrantKind.CONNECT else KEY_REFUSALS
    if grant.revoked_at is not None:
        reason = "revoked"
    elif grant.expires_at is not None and grant.expires_at <= now:
        reason = "expired"
    elif not grant.user.is_active:
        reason = "disabled"
    else:
        return None
    detail, code = refusals[reason]
    return AuthenticationError(detail, code=code)


def bearer_token(request: Request) -> str | None:
    header = get_authorization_header(request).decode("latin-1")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip()
