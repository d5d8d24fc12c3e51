"""The gate in front of /mcp/: answers what the SDK must never see, before it sees it.

- A foreign Origin is refused (403): a browser page on another site must not drive a local server
  (DNS rebinding).
- Anything but POST is 405 with `Allow: POST`: a GET on a stateless endpoint would open an endless stream.
- A body that is JSON no MCP message can be (nesting past 64, NaN, Infinity or 1e400, a lone surrogate or NUL)
  is a JSON-RPC parse error (400), before the SDK parses it.
- A JSON-RPC request without exactly one `Authorization: Bearer hk_...` header of a valid shape is 401. With the
  connect flow on (HYDRATA_CONNECT_FLOW), one `Bearer <JWT-shaped token>` is accepted too, and every 401 points
  the client at the protected resource metadata (RFC 9728), where its OAuth sign-in starts.

The gate checks shape only; the key or token itself is verified by the platform (DRF) when a tool calls the API.
"""

import re
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from hydrata_mcp.jsonrpc import (
    MCP_PATHS,
    PARSE_ERROR,
    error_body,
    jsonrpc_messages,
    single_request_id,
    strict_json_problem,
)
from hydrata_mcp.middleware import MCPMiddleware

UNAUTHENTICATED = -32001
FORBIDDEN_ORIGIN = -32003
WWW_AUTHENTICATE = 'Bearer realm="hydrata.com"'
# One credential, of one accepted shape. Two headers reach Django joined by a comma, which never matches.
CREDENTIAL_SHAPE = re.compile(r"[Bb][Ee][Aa][Rr][Ee][Rr] hk_[A-Za-z0-9_-]{43,128}")
# A connect-flow access token: three base64url segments, bounded; its signature is the platform's business.
CONNECT_TOKEN_SHAPE = re.compile(r"[Bb][Ee][Aa][Rr][Ee][Rr] [A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}")
MAX_CONNECT_TOKEN_HEADER = len("Bearer ") + 4096
PROTECTED_RESOURCE_METADATA = "/.well-known/oauth-protected-resource/mcp"
LEVEL_SCOPES = "read draft launch"


class MCPGateMiddleware(MCPMiddleware):
    def before(self, request: HttpRequest) -> HttpResponse | None:
        # path_info, as routing uses: request.path also holds the prefix a site is served under.
        return gate_refusal(request) if request.path_info in MCP_PATHS else None


def gate_refusal(request: HttpRequest) -> HttpResponse | None:
    if not origin_allowed(request):
        return JsonResponse(
            error_body(None, FORBIDDEN_ORIGIN, "Requests from this Origin are not allowed."), status=403
        )
    if request.method != "POST":
        response = HttpResponse(status=405)
        response["Allow"] = "POST"
        return response
    problem = strict_json_problem(request.body)
    if problem:  # before the SDK, whose parser this wing does not choose; no credential is looked at first
        return JsonResponse(error_body(None, PARSE_ERROR, f"Parse error: {problem}."), status=400)
    messages = jsonrpc_messages(request.body)
    if messages is None:
        return None  # not JSON-RPC: the SDK answers with its own parse or validation error
    if credential_well_shaped(request):
        return None
    response = JsonResponse(
        error_body(single_request_id(messages), UNAUTHENTICATED, _authentication_required()), status=401
    )
    response["WWW-Authenticate"] = www_authenticate()
    return response


def credential_well_shaped(request: HttpRequest) -> bool:
    value = request.META.get("HTTP_AUTHORIZATION")
    if value is None:
        return False
    if CREDENTIAL_SHAPE.fullmatch(value) is not None:
        return True
    return (
        settings.HYDRATA_CONNECT_FLOW
        and len(value) <= MAX_CONNECT_TOKEN_HEADER
        and CONNECT_TOKEN_SHAPE.fullmatch(value) is not None
    )


def www_authenticate() -> str:
    if not settings.HYDRATA_CONNECT_FLOW:
        return WWW_AUTHENTICATE
    metadata = settings.HYDRATA_SITE_URL + PROTECTED_RESOURCE_METADATA
    return f'{WWW_AUTHENTICATE}, resource_metadata="{metadata}", scope="{LEVEL_SCOPES}"'


def _authentication_required() -> str:
    key = (
        "send exactly one 'Authorization: Bearer hk_...' header carrying a Hydrata agent key. The account owner "
        "creates keys on the /agents/ page."
    )
    if not settings.HYDRATA_CONNECT_FLOW:
        return f"Authentication required: {key}"
    return f"Authentication required: sign in through your MCP client (OAuth, see WWW-Authenticate), or {key}"


def origin_allowed(request: HttpRequest) -> bool:
    """No Origin (a non-browser client) is fine; a browser's Origin must be this site's."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    # Not the request's own Host: under DNS rebinding the attacker's name is the Host too.
    allowed = {_origin_of(settings.HYDRATA_SITE_URL), *map(_origin_of, settings.HYDRATA_MCP_ALLOWED_ORIGINS)}
    return _origin_of(origin) in allowed


def _origin_of(url: str) -> str:
    parts = urlsplit(url.strip())
    return f"{parts.scheme}://{parts.netloc}".lower()
