"""DRF authentication for connect-flow access tokens: once verified, a token acts exactly as an agent key of its
grant (levels, pause, spend, activity log)."""

import hashlib
import logging

from django.utils import timezone
from oauth2_provider.models import get_access_token_model
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request

from hydrata.agents.authentication import bearer_token, grant_acting, grant_refusal
from hydrata.agents.models import AgentGrant
from hydrata.agents.selectors import connect_grant_get
from hydrata.core.errors import AuthenticationError
from hydrata.oauth.site import connect_flow_on
from hydrata.oauth.tokens import TokenRefused, looks_like_jwt, verified_claims
from hydrata_contract.errors import ErrorCode

logger = logging.getLogger(__name__)

RECONNECT = "Connect again (sign in to Hydrata and choose a level) to continue."


class ConnectTokenAuthentication(BaseAuthentication):
    """Bearer JWTs issued by this server's connect flow; anything else returns None for the next class."""

    def authenticate(self, request: Request) -> tuple[object, AgentGrant] | None:
        token = bearer_token(request)
        if token is None or not connect_flow_on() or not looks_like_jwt(token):
            return None
        try:
            claims = verified_claims(token)
        except TokenRefused as refused:
            raise _refused(
                refused.reason, code=ErrorCode.TOKEN_EXPIRED if refused.expired else ErrorCode.TOKEN_INVALID
            ) from None
        grant = connect_grant_get(grant_id=claims["grant_id"])
        if grant is None or str(grant.user_id) != claims["sub"]:
            raise _refused("it names no connection of this account", code=ErrorCode.TOKEN_INVALID)
        if not _on_record(token):
            # Recorded in the activity log even when refused: the owner should see a revoked token in use.
            request._request.agent_grant = grant  # type: ignore[attr-defined]
            raise grant_refusal(grant, now=timezone.now()) or _refused(
                "it has been revoked", code=ErrorCode.TOKEN_REVOKED
            )
        return grant_acting(request, grant)


def _on_record(token: str) -> bool:
    """Revoking deletes the token's row (the library's way); so does a refresh, for the token it replaces."""
    checksum = hashlib.sha256(token.encode("utf-8")).hexdigest()
    return get_access_token_model().objects.filter(token_checksum=checksum).exists()


def _refused(reason: str, *, code: ErrorCode) -> AuthenticationError:
    logger.info("A connect-flow access token was refused (%s): %s.", code, reason)  # never the token itself
    return AuthenticationError(
        f"This access token is not accepted: {reason}. {RECONNECT}", code=code, error="invalid_token"
    )
