"""The oauthlib server django-oauth-toolkit runs (OAUTH2_SERVER_CLASS), with this server's rules attached."""

from typing import Any

from django.utils import timezone
from oauth2_provider.settings import oauth2_settings
from oauthlib.common import Request as OAuthRequest
from oauthlib.oauth2 import Server

from hydrata.oauth.policy import check_authorization_request, check_resource


class ConnectServer(Server):
    def __init__(self, request_validator: Any, **kwargs: Any) -> None:
        kwargs["token_expires_in"] = access_token_lifetime
        super().__init__(request_validator, **kwargs)
        self.auth_grant.custom_validators.pre_auth.append(check_authorization_request)
        for grant_type in (self.auth_grant, self.refresh_grant):
            grant_type.custom_validators.pre_token.append(check_resource)


def access_token_lifetime(request: OAuthRequest) -> int:
    """Read on every token (the server itself is built once): never past the connection's own expiry."""
    lifetime = int(oauth2_settings.ACCESS_TOKEN_EXPIRE_SECONDS)
    grant = getattr(request, "agent_grant", None)
    if grant is not None and grant.expires_at is not None:
        remaining = int((grant.expires_at - timezone.now()).total_seconds())
        lifetime = max(1, min(lifetime, remaining))
    return lifetime
