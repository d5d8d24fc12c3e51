"""What this authorization server accepts beyond the library's own checks: the authorization and token requests
(run by oauthlib as custom validators, hydrata/oauth/server.py, before it does anything else with a request) and
client metadata, registered (hydrata/oauth/views.py) or read from a metadata document (hydrata/oauth/cimd.py)."""

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from oauthlib.common import Request as OAuthRequest
from oauthlib.oauth2.rfc6749 import errors

from hydrata.oauth.site import mcp_resource

LOOPBACK_HOSTS = {"127.0.0.1", "::1", "localhost"}
REDIRECT_URI_RULE = (
    "Redirect URIs must be https, or http to a loopback address (127.0.0.1, ::1 or localhost), "
    "without whitespace or control characters."
)
REGISTRABLE_GRANT_TYPES = {"authorization_code", "refresh_token"}
PKCE_CHALLENGE = re.compile(r"[A-Za-z0-9._~-]{43,128}")  # RFC 7636 §4.2; one class, bounded: no backtracking


@dataclass(frozen=True)
class MetadataProblem:
    error: str  # the RFC 7591 error code
    description: str


def redirect_uri_allowed(uri: str) -> bool:
    """https anywhere; plain http only back to the person's own machine (RFC 8252 native clients). Never with
    whitespace or a control character: the library keeps a client's URIs joined by spaces, so one URI holding a
    space would come back as two, the second never checked here."""
    if not uri.isprintable() or any(character.isspace() for character in uri):
        return False
    try:
        parts = urlsplit(uri)
        host = parts.hostname
    except ValueError:  # an unbalanced IPv6 bracket, say
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and host in LOOPBACK_HOSTS)


def client_metadata_problem(metadata: dict[str, Any]) -> MetadataProblem | None:
    """What this server will not accept in a client's metadata, registered or from its metadata document: it
    issues the authorization code flow only (with refresh), to https or loopback redirect URIs."""
    redirect_uris = metadata.get("redirect_uris", [])
    if not _strings(redirect_uris):
        return MetadataProblem("invalid_client_metadata", "redirect_uris must be an array of strings.")
    if not all(redirect_uri_allowed(uri) for uri in redirect_uris):
        return MetadataProblem("invalid_redirect_uri", REDIRECT_URI_RULE)
    grant_types = metadata.get("grant_types", ["authorization_code"])
    if not _strings(grant_types) or not set(grant_types) <= REGISTRABLE_GRANT_TYPES:
        return MetadataProblem(
            "invalid_client_metadata", "grant_types may only be authorization_code and refresh_token."
        )
    response_types = metadata.get("response_types", ["code"])
    if not _strings(response_types) or set(response_types) - {"code"}:
        return MetadataProblem("invalid_client_metadata", "response_types may only be code.")
    if not isinstance(metadata.get("client_name", ""), str):
        return MetadataProblem("invalid_client_metadata", "client_name must be a string.")
    return None


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def check_authorization_request(request: OAuthRequest) -> dict:
    if request.redirect_uri and not redirect_uri_allowed(request.redirect_uri):
        # Fatal: the person sees an error page and is never sent to that address.
        raise errors.InvalidRedirectURIError(description=REDIRECT_URI_RULE, request=request)
    if request.code_challenge is not None and request.code_challenge_method != "S256":
        raise errors.UnsupportedCodeChallengeMethodError(
            description="Use PKCE with code_challenge_method=S256.", request=request
        )
    if request.code_challenge is not None and not PKCE_CHALLENGE.fullmatch(request.code_challenge):
        # Stored with the code; it could otherwise carry what the database cannot store (a NUL).
        raise errors.InvalidRequestError(
            description="code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' or '~'.",
            request=request,
        )
    check_resource(request)
    return {}


def check_resource(request: OAuthRequest) -> None:
    """RFC 8707: a `resource`, when sent, must be the canonical MCP URL exactly (no prefix, no other spelling).
    Without one the token is still only for that URL: it is every token's audience."""
    wrong = [value for value in _resources(request) if value != mcp_resource()]
    if wrong:
        raise errors.CustomOAuth2Error(
            error="invalid_target",
            description=f"The only resource this server issues tokens for is {mcp_resource()}.",
            request=request,
        )


def _resources(request: OAuthRequest) -> list[str]:
    """Every `resource` value, repeated ones included, from the query, the form body and the consent form."""
    values = [value for key, value in parse_qsl(urlsplit(request.uri).query) if key == "resource"]
    values += [value for key, value in (request.decoded_body or []) if key == "resource"]
    carried = getattr(request, "resource", None)
    values += carried if isinstance(carried, list) else []
    return values
