"""The one HTTP client of the MCP wing: the only code that calls `urllib3`.

It forwards the caller's Authorization header unchanged, adds X-Hydrata-Client and X-Hydrata-Session, runs
off the event loop, has timeouts, and turns every failure into a tool error the model can act on, never
showing it a URL, a header or a traceback.
"""

import email.utils
import json as jsonlib
import logging
import math
import re
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urlencode

import anyio.to_thread
import urllib3
import urllib3.connection
from django.conf import settings
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from hydrata_contract.errors import ErrorCode
from hydrata_mcp import __version__

logger = logging.getLogger(__name__)

CLIENT_NAME = f"mcp/{__version__}"
# X-Hydrata-Session is stable for one MCP client session when the client sends Mcp-Session-Id (derived, so
# the raw value never travels on), and fresh for each MCP request otherwise: this server is stateless.
SESSION_NAMESPACE = uuid.UUID("5b0f3a8e-52a4-4d5e-9a55-2c1f0e7c9d11")
URL_IN_TEXT = re.compile(r"https?://\S+")
MAX_DETAIL_CHARS = 600
THROTTLED = 429
UNAVAILABLE = 503
# Kept-alive connections to the platform: as many as the worker threads that may call it at once (anyio's default).
POOL_CONNECTIONS = 40
# Methods that do the same when sent twice (RFC 9110 9.2.2), so a call that broke before its answer may be sent again.
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})

if TYPE_CHECKING:
    _Connection = urllib3.connection.HTTPConnection
else:
    _Connection = object


class _IdleLimited(_Connection):
    """A kept-alive connection that counts as dropped once it has been idle for HYDRATA_API_IDLE_SECONDS, so the
    pool opens a new one instead. The server closes a connection idle for its keep-alive timeout (uvicorn: 5 s),
    and a request sent as it does so is lost; urllib3 notices a close that has happened, not one under way."""

    answered_at = -math.inf

    def getresponse(self) -> urllib3.response.HTTPResponse:  # type: ignore[override]
        response = super().getresponse()
        self.answered_at = time.monotonic()
        return response

    @property
    def is_connected(self) -> bool:
        idle = time.monotonic() - self.answered_at
        return super().is_connected and idle < settings.HYDRATA_API_IDLE_SECONDS


class _HTTPConnection(_IdleLimited, urllib3.connection.HTTPConnection):
    pass


class _HTTPSConnection(_IdleLimited, urllib3.connection.HTTPSConnection):
    pass


class _HTTPPool(urllib3.HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


class _SendAgainOnce(urllib3.Retry):
    """urllib3's retry, at once and once: an idempotent request whose connection broke before an answer came (a
    kept-alive connection the server closed as the request reached it) is sent again, which takes the pool's
    free slot and so a new connection. Never a POST or PATCH (the server may have acted on it), never after a
    read timeout (the server has the request and is slow) or a failure to connect, never on a status."""

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: urllib3.BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: urllib3.connectionpool.ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> Self:
        if isinstance(error, urllib3.exceptions.ReadTimeoutError):
            raise error
        again = super().increment(method, url, response, error, _pool, _stacktrace)
        if error is not None:
            logger.warning("A loopback %s was sent again after %s", method, _failure_names(error))
        return again


SEND_AGAIN_ONCE = _SendAgainOnce(
    total=1,
    connect=0,
    read=1,
    redirect=0,
    status=0,
    other=0,
    allowed_methods=IDEMPOTENT_METHODS,
    respect_retry_after_header=False,  # a 429 or 503 goes back to the model with its wait, not slept on here
    raise_on_status=False,
    raise_on_redirect=False,
    backoff_factor=0,
)
# Thread-safe, and no proxy from the environment: the calls go to the platform's own origin.
_pool = urllib3.PoolManager(maxsize=POOL_CONNECTIONS, retries=SEND_AGAIN_ONCE)
_pool.pool_classes_by_scheme = {"http": _HTTPPool, "https": _HTTPSPool}


class PlatformToolError(ToolError):
    """A refusal or failure of the platform, worded for the model."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        retry_after_seconds: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.retry_after_seconds = retry_after_seconds


@dataclass(frozen=True)
class ApiResponse:
    status: int
    data: Any


@dataclass(frozen=True)
class _Reply:
    status_code: int
    content: bytes
    headers: Mapping[str, str]


class PlatformClient:
    def __init__(self, *, authorization: str, session_id: str) -> None:
        self._headers = {
            "Authorization": authorization,
            "X-Hydrata-Client": CLIENT_NAME,
            "X-Hydrata-Session": session_id,
            "Accept": "application/json",
        }

    @classmethod
    def for_context(cls, ctx: Context) -> "PlatformClient":
        headers: Mapping[str, str] = ctx.headers or {}
        authorization = headers.get("authorization")
        if not authorization:
            raise PlatformToolError(
                "No credential reached this tool; reconnect (sign in again, or send an "
                "'Authorization: Bearer hk_...' header).",
                status=401,
                code=ErrorCode.NOT_AUTHENTICATED,
            )
        return cls(authorization=authorization, session_id=session_id_for(headers.get("mcp-session-id")))

    async def get(self, path: str, *, params: dict[str, Any] | None = None, allow: tuple[int, ...] = ()) -> ApiResponse:
        return await self.request("GET", path, params=params, allow=allow)

    async def post(self, path: str, *, json: Any = None, allow: tuple[int, ...] = ()) -> ApiResponse:
        return await self.request("POST", path, json=json, allow=allow)

    async def patch(self, path: str, *, json: Any = None, allow: tuple[int, ...] = ()) -> ApiResponse:
        return await self.request("PATCH", path, json=json, allow=allow)

    async def get_png(self, path: str) -> bytes:
        """A PNG the REST API renders (a map tile); refusals raise as in `request`."""
        response = await anyio.to_thread.run_sync(self._send, "GET", path, None, None)
        if response.status_code >= 400:
            raise refusal_error(
                response.status_code, _json_or_none(response), retry_after=response.headers.get("Retry-After")
            )
        if response.headers.get("Content-Type") != "image/png":
            raise PlatformToolError(
                f"The Hydrata platform sent an unreadable image (HTTP {response.status_code}).",
                status=response.status_code,
                code=ErrorCode.UNREADABLE_RESPONSE,
            )
        return response.content

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        allow: tuple[int, ...] = (),
    ) -> ApiResponse:
        """Call the REST API. A status in `allow` is returned to the caller; any other failure raises."""
        response = await anyio.to_thread.run_sync(self._send, method, path, params, json)
        data = _json_or_none(response)
        if response.status_code < 400 or response.status_code in allow:
            if data is None and response.status_code != 204 and response.content:
                raise PlatformToolError(
                    f"The Hydrata platform sent an unreadable answer (HTTP {response.status_code}).",
                    status=response.status_code,
                    code=ErrorCode.UNREADABLE_RESPONSE,
                )
            return ApiResponse(status=response.status_code, data=data)
        raise refusal_error(response.status_code, data, retry_after=response.headers.get("Retry-After"))

    def _send(self, method: str, path: str, params: dict[str, Any] | None, json: Any) -> _Reply:
        headers, body = self._headers, None
        if json is not None:
            headers, body = {**headers, "Content-Type": "application/json"}, jsonlib.dumps(json, allow_nan=False)
        try:
            response = _pool.request(
                method,
                settings.HYDRATA_API_ORIGIN + path + _query(params),
                body=body,
                headers=headers,
                timeout=urllib3.Timeout(connect=5, read=settings.HYDRATA_API_TIMEOUT_SECONDS),
                redirect=False,
            )
        except urllib3.exceptions.HTTPError as failure:
            raise _tool_error(method, failure) from None
        return _Reply(status_code=response.status, content=response.data, headers=response.headers)


def _tool_error(method: str, error: urllib3.exceptions.HTTPError) -> PlatformToolError:
    failure: Exception = error
    if isinstance(error, urllib3.exceptions.MaxRetryError) and error.reason is not None:
        failure = error.reason  # it failed again when sent again
    if isinstance(failure, urllib3.exceptions.TimeoutError) and not isinstance(
        failure,
        urllib3.exceptions.NewConnectionError,  # urllib3 counts a refused connection a timeout too
    ):
        return PlatformToolError(
            f"The Hydrata platform did not answer within {settings.HYDRATA_API_TIMEOUT_SECONDS:g} seconds. "
            "Nothing is lost; try the same call again.",
            code=ErrorCode.PLATFORM_TIMEOUT,
        )
    logger.warning("A loopback %s failed: %s", method, _failure_names(failure))
    return PlatformToolError(
        "The Hydrata platform could not be reached. Try again in a minute.", code=ErrorCode.PLATFORM_UNREACHABLE
    )


def _failure_names(failure: BaseException) -> str:
    """'ProtocolError from ConnectionResetError': names of the failure and its root cause only, since their
    messages carry the loopback URL."""
    return f"{type(failure).__name__} from {_root_cause_name(failure)}"


def _query(params: dict[str, Any] | None) -> str:
    """The query string for `params`, leaving out those that are None."""
    pairs = [(name, value) for name, value in (params or {}).items() if value is not None]
    return f"?{urlencode(pairs, doseq=True)}" if pairs else ""


def _root_cause_name(failure: BaseException) -> str:
    cause, seen = failure, {id(failure)}
    while (earlier := _earlier(cause)) is not None and id(earlier) not in seen:
        cause = earlier
        seen.add(id(cause))
    return type(cause).__name__ if cause is not failure else "nothing further"


def _earlier(failure: BaseException) -> BaseException | None:
    """What caused the failure: the exception it was raised from or during, or the one urllib3 wrapped in it
    (ProtocolError("Connection aborted.", ConnectionResetError(...)) before it is raised)."""
    wrapped = next((arg for arg in failure.args if isinstance(arg, BaseException)), None)
    return failure.__cause__ or failure.__context__ or wrapped


def session_id_for(mcp_session_id: str | None) -> str:
    if mcp_session_id:
        return str(uuid.uuid5(SESSION_NAMESPACE, mcp_session_id))
    return str(uuid.uuid4())


def _json_or_none(response: _Reply) -> Any:
    if not response.content:
        return None
    try:
        return jsonlib.loads(response.content)
    except ValueError:
        return None


HINTS = {
    401: "Reconnect: sign in again through the MCP client, or use a valid agent key from the /agents/ page.",
    402: "The account owner can raise the monthly spend limit on the /agents/ page.",
    403: "",
    404: "Check the id: list the parent resource to see what this account can reach.",
    409: "",
    422: "",
}


def refusal_error(status: int, data: Any, *, retry_after: str | None = None) -> PlatformToolError:
    """The tool error for an error response: status, the platform's code and its detail, nothing else (and for a
    429 or a 503, when to try again)."""
    body = data if isinstance(data, dict) else {}
    if status == THROTTLED:
        return _throttled(body, retry_after_seconds(retry_after))
    if status == UNAVAILABLE:
        return _busy(body, retry_after_seconds(retry_after))
    code = str(body.get("code") or (ErrorCode.INTERNAL_ERROR if status >= 500 else ErrorCode.ERROR))
    if status >= 500:
        return PlatformToolError(
            f"The Hydrata platform failed with an internal error (HTTP {status}). Nothing was changed by this "
            "call unless its result says so; try again shortly, and report it with suggest_capability if it "
            "keeps happening.",
            status=status,
            code=code,
        )
    detail = _clean(str(body.get("detail") or "The request was refused."))
    hint = HINTS.get(status, "")
    return PlatformToolError(
        f"Hydrata refused the request (HTTP {status}, {code}): {detail}" + (f" {hint}" if hint else ""),
        status=status,
        code=code,
    )


def _clean(text: str) -> str:
    return URL_IN_TEXT.sub("[link]", text)[:MAX_DETAIL_CHARS]


def _throttled(body: dict[str, Any], wait: int | None) -> PlatformToolError:
    code = str(body.get("code") or ErrorCode.THROTTLED)
    detail = _clean(str(body.get("detail") or "Too many requests for this agent key."))
    when = f"Wait {wait} seconds, then call again." if wait is not None else "Wait a minute, then call again."
    return PlatformToolError(
        f"Hydrata is limiting the request rate of this key (HTTP 429, {code}): {detail} {when}",
        status=THROTTLED,
        code=code,
        retry_after_seconds=wait,
    )


def _busy(body: dict[str, Any], wait: int | None) -> PlatformToolError:
    code = str(body.get("code") or ErrorCode.SERVICE_UNAVAILABLE)
    detail = _clean(str(body.get("detail") or "The platform cannot answer now."))
    when = f"Retry in {wait} seconds." if wait is not None else "Retry in a minute."
    return PlatformToolError(
        f"The Hydrata platform is busy (HTTP 503, {code}): {detail} {when}",
        status=UNAVAILABLE,
        code=code,
        retry_after_seconds=wait,
    )


def retry_after_seconds(value: str | None) -> int | None:
    """Retry-After holds either seconds or an HTTP date; None when it is missing or unreadable."""
    value = (value or "").strip()
    if value.isdigit():
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0, math.ceil((when - datetime.now(UTC)).total_seconds()))
