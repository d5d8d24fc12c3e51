"""django-oauth-toolkit's request validator (OAUTH2_VALIDATOR_CLASS), extended so that everything the flow
issues belongs to an agent grant of kind "connect":

- the consent creates the grant together with the authorization code (no consent, no code);
- exchanging the code binds the refresh-token family to the grant; a code presented twice revokes the grant;
- every refresh is refused once the grant is revoked or expired; a replayed refresh token revokes the grant
  (the library has already revoked its whole family);
- a refresh token is rotated once however many requests present it at the same time: the first to lock its row
  rotates it, every other one then finds it rotated and is a replay like any other;
- revoking a token at the revocation endpoint revokes its grant.
"""

import hashlib
from typing import Any
from urllib.parse import urlsplit

from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import AbstractApplication, get_access_token_model, get_refresh_token_model
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.common import Request as OAuthRequest
from oauthlib.oauth2.rfc6749 import errors

from hydrata.agents.authentication import grant_refusal
from hydrata.agents.models import AgentGrant
from hydrata.agents.selectors import connect_grant_for_code, connect_grant_for_family
from hydrata.agents.services import connect_grant_bind_tokens, connect_grant_create, grant_revoke
from hydrata.oauth.cimd import document_refusal
from hydrata.oauth.site import LEVEL_SCOPES

GRANT_TYPES = {"authorization_code", "refresh_token"}


class ConnectValidator(OAuth2Validator):
    def _load_application(self, client_id: str, request: OAuthRequest) -> Any:
        if client_id and "\x00" in client_id:
            return None  # no client's id holds a NUL, and PostgreSQL cannot even compare one
        return super()._load_application(client_id, request)

    def validate_client_id(self, client_id: str, request: OAuthRequest, *args: Any, **kwargs: Any) -> bool:
        if super().validate_client_id(client_id, request, *args, **kwargs):
            return True
        refusal = document_refusal(client_id)
        if refusal is not None:
            # Fatal, like any unknown client: an error page that says why, never a redirect.
            raise errors.InvalidClientIdError(
                description=f"This app's metadata document cannot be used. {refusal}", request=request
            )
        return False

    def validate_grant_type(
        self, client_id: str, grant_type: str, client: Any, request: OAuthRequest, *args: Any, **kwargs: Any
    ) -> bool:
        return grant_type in GRANT_TYPES and super().validate_grant_type(client_id, grant_type, client, request)

    def save_authorization_code(
        self, client_id: str, code: dict, request: OAuthRequest, *args: Any, **kwargs: Any
    ) -> None:
        consent = getattr(request, "connect_consent", None)
        if consent is None:
            # Only the consent form carries a person's choice; any other path to a code (a client asking for
            # automatic approval, an application marked to skip it) is refused.
            raise errors.AccessDeniedError(description="Access must be granted on the consent page.", request=request)
        with transaction.atomic():
            self._create_authorization_code(request, code)
            connect_grant_create(
                user=request.user,
                application=request.client,
                client_host=client_host(request.client, request.redirect_uri),
                level=_level_of(request.scopes),
                expires_at=consent.expires_at,
                authorization_code=code["code"],
            )

    def validate_code(
        self, client_id: str, code: str, client: Any, request: OAuthRequest, *args: Any, **kwargs: Any
    ) -> bool:
        if "\x00" in code:
            return False  # no code holds a NUL, and PostgreSQL cannot even compare one
        grant = connect_grant_for_code(code=code)
        if not super().validate_code(client_id, code, client, request, *args, **kwargs):
            if grant is not None and grant.token_family is not None:
                grant_revoke(grant=grant)  # RFC 6749 §4.1.2: a code used twice revokes what it issued
            return False
        return _bind(request, grant)

    def validate_refresh_token(
        self, refresh_token: str, client: Any, request: OAuthRequest, *args: Any, **kwargs: Any
    ) -> bool:
        _lock_refresh_token(refresh_token)
        if not super().validate_refresh_token(refresh_token, client, request, *args, **kwargs):
            _revoke_grant_of_replayed(refresh_token)
            return False
        return _bind(request, connect_grant_for_family(token_family=request.refresh_token_instance.token_family))

    def _create_refresh_token(
        self, request: OAuthRequest, refresh_token_code: str, access_token: Any, previous_refresh_token: Any
    ) -> Any:
        refresh_token = super()._create_refresh_token(request, refresh_token_code, access_token, previous_refresh_token)
        if previous_refresh_token is None:
            connect_grant_bind_tokens(grant=request.agent_grant, token_family=refresh_token.token_family)
        return refresh_token

    def revoke_token(
        self, token: str, token_type_hint: str | None, request: OAuthRequest, *args: Any, **kwargs: Any
    ) -> None:
        grant = _grant_of_token(token, request.client)
        super().revoke_token(token, token_type_hint, request, *args, **kwargs)
        if grant is not None:
            grant_revoke(grant=grant)  # the client disconnected: the /agents/ page shows it revoked


def client_host(application: AbstractApplication, redirect_uri: str | None) -> str:
    """Where a client's metadata came from (its metadata document's host), else where it sends people back."""
    if application.registration_source == AbstractApplication.RegistrationSource.CIMD:
        return urlsplit(application.client_id).hostname or ""
    return urlsplit(redirect_uri or "").hostname or ""


def _level_of(scopes: list[str]) -> str:
    levels = [scope for scope in scopes if scope in LEVEL_SCOPES]
    if len(levels) != 1:
        raise errors.InvalidScopeError(description="Choose exactly one level.")
    return levels[0]


def _bind(request: OAuthRequest, grant: AgentGrant | None) -> bool:
    """A code or refresh token is good only while its grant may act."""
    if grant is None or grant_refusal(grant, now=timezone.now()) is not None:
        return False
    request.agent_grant = grant
    return True


def _checksum(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _lock_refresh_token(refresh_token: str) -> None:
    """Hold the presented refresh token's row until the token request ends (ConnectTokenView in views.py makes the
    request one transaction), before the library reads it. A concurrent request presenting the same token waits
    here, then reads it rotated and is refused as a replay. Without the lock both read it live: both rotated it
    (a forked family), or one's replay sweep deleted the access token the other had just minted (a 500).
    SQLite has no row locks; there BEGIN IMMEDIATE (config/settings.py) serialises the whole request instead."""
    rows = get_refresh_token_model().objects.select_for_update().filter(token_checksum=_checksum(refresh_token))
    list(rows.values_list("pk", flat=True))


def _revoke_grant_of_replayed(refresh_token: str) -> None:
    """A refresh token already rotated or revoked came back: someone else may hold the family."""
    replayed = (
        get_refresh_token_model().objects.filter(token_checksum=_checksum(refresh_token), revoked__isnull=False).first()
    )
    grant = connect_grant_for_family(token_family=replayed.token_family) if replayed else None
    if grant is not None:
        grant_revoke(grant=grant)


def _grant_of_token(token: str, client: Any) -> AgentGrant | None:
    """The grant of an access or refresh token this client holds (RFC 7009 scopes revocation to the client)."""
    if client is None:
        return None
    checksum = _checksum(token)
    refresh = get_refresh_token_model().objects.filter(token_checksum=checksum, application=client).first()
    if refresh is None:
        access = get_access_token_model().objects.filter(token_checksum=checksum, application=client).first()
        refresh = get_refresh_token_model().objects.filter(access_token=access).first() if access else None
    return connect_grant_for_family(token_family=refresh.token_family) if refresh else None
