"""What this authorization server accepts beyond the library's own checks, run by oauthlib as custom validators
(hydrata/oauth/server.py) before it does anything else with a request."""

from urllib.parse import parse_qsl, urlsplit

from oauthlib.common import Request as OAuthRequest
from oauthlib.oauth2.rfc6749 import errors

from hydrata.oauth.site import mcp_resource

LOOPBACK_HOSTS = {"127.0.0.1", "::1", "localhost"}


def redirect_uri_allowed(uri: str) -> bool:
    """https anywhere; plain http only back to the person's own machine (RFC 8252 native clients)."""
    parts = urlsplit(uri)
    return parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS)


def check_authorization_request(request: OAuthRequest) -> dict:
    if request.redirect_uri and not redirect_uri_allowed(request.redirect_uri):
        # Fatal: the person sees an error page and is never sent to that address.
        raise errors.InvalidRedirectURIError(
            description="Plain http redirect URIs must be loopback addresses.", request=request
        )
    if request.code_challenge is not None and request.code_challenge_method != "S256":
        raise errors.UnsupportedCodeChallengeMethodError(
            description="Use PKCE with code_challenge_method=S256.", request=request
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
