"""Connect-flow access tokens: JWTs in the RFC 9068 profile, minted through django-oauth-toolkit's
ACCESS_TOKEN_GENERATOR hook and verified on every REST request.

A token carries `iss` (the site), `aud` (the canonical MCP URL), `sub` (the user), `client_id`, `scope` (the
grant's level), `iat`, `exp`, `jti` and `grant_id`. The signature alone is never enough: the authentication also
finds the token's row (revocation deletes it) and the live grant.
"""

import re
import time
import uuid
from typing import Any

import jwt
from oauthlib.common import Request as OAuthRequest
from oauthlib.oauth2.rfc6749 import errors

from hydrata.oauth.keys import ALGORITHM, signing_key, verification_keys
from hydrata.oauth.site import issuer, mcp_resource

JWT_TYP = "at+jwt"
# Tolerance for clocks that disagree a little (the issuing and the verifying host need not be one machine).
LEEWAY_SECONDS = 10
REQUIRED_CLAIMS = ["iss", "aud", "sub", "client_id", "scope", "iat", "exp", "jti", "grant_id"]
MAX_TOKEN_LENGTH = 4096
JWT_SHAPE = re.compile(r"[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}")


class TokenRefused(Exception):
    """A presented access token that is not one of ours, or no longer good. The reason is safe to show."""

    def __init__(self, reason: str, *, expired: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.expired = expired


def looks_like_jwt(value: str) -> bool:
    """Shape only (three base64url segments, bounded length): the cheap check made before any work."""
    return len(value) <= MAX_TOKEN_LENGTH and JWT_SHAPE.fullmatch(value) is not None


def access_token_for(request: OAuthRequest) -> str:
    """The generator django-oauth-toolkit calls for each access token (authorization code or refresh).
    The validator has put the connection's grant on the request; a token never exists without one."""
    grant = getattr(request, "agent_grant", None)
    if grant is None:
        raise errors.InvalidGrantError(request=request)
    now = int(time.time())
    key = signing_key()
    claims = {
        "iss": issuer(),
        "aud": mcp_resource(),
        "sub": str(grant.user_id),
        "client_id": request.client.client_id,
        "scope": grant.level,
        "iat": now,
        "exp": now + int(request.expires_in),
        "jti": uuid.uuid4().hex,
        "grant_id": grant.pk,
    }
    return jwt.encode(claims, key.private, algorithm=ALGORITHM, headers={"kid": key.kid, "typ": JWT_TYP})


def verified_claims(token: str) -> dict[str, Any]:
    """The claims of a token this server signed for the MCP resource, still within its lifetime."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise TokenRefused("it is not a well-formed JWT") from None
    if str(header.get("typ", "")).lower() not in {JWT_TYP, f"application/{JWT_TYP}"}:
        raise TokenRefused("it is not an access token")
    key = verification_keys().get(str(header.get("kid", "")))
    if key is None:
        raise TokenRefused("it was not signed by a key of this server")
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=[ALGORITHM],
            audience=mcp_resource(),
            issuer=issuer(),
            leeway=LEEWAY_SECONDS,
            options={"require": REQUIRED_CLAIMS, "strict_aud": True},
        )
    except jwt.ExpiredSignatureError:
        raise TokenRefused("it has expired", expired=True) from None
    except jwt.InvalidAudienceError:
        raise TokenRefused("it was issued for another resource") from None
    except jwt.InvalidIssuerError:
        raise TokenRefused("it was issued by another server") from None
    except jwt.InvalidSignatureError:
        raise TokenRefused("its signature does not verify") from None
    except jwt.PyJWTError:
        raise TokenRefused("its claims are not valid") from None
    if not _well_typed(claims):
        raise TokenRefused("its claims are not valid")
    return claims


def _well_typed(claims: dict[str, Any]) -> bool:
    """Each claim in the one shape we mint: the library reads a numeric string as a time and a boolean as an
    integer (RFC 7519 NumericDate is a JSON number; a grant id True would look up grant 1)."""
    times = [claims[name] for name in ("iat", "exp", "nbf") if name in claims]
    strings = [claims[name] for name in ("iss", "aud", "sub", "client_id", "scope", "jti")]
    return (
        all(type(value) in (int, float) for value in times)
        and all(type(value) is str for value in strings)
        and type(claims["grant_id"]) is int
    )
