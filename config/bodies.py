"""Request bodies are refused above their route's limit before they are read, at the ASGI level.

Django's ASGI handler writes a request's whole body to a temporary file before any middleware or view runs: before
the MCP gate's 401, the sign-in form and client registration, so unauthenticated connections could each park
hundreds of megabytes there. `BodyLimits` wraps the whole application: a body whose Content-Length is over its
route's limit is answered 413 without a byte of it read; a body without one (chunked) is counted as it streams and
answered 413 once it passes the limit, and the application behind is told the client hung up. `BODY_LIMITS` is the
one table of limits.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core.handlers.asgi import get_script_prefix

from hydrata.core.asgi import ASGIApp, Message, Receive, Scope, Send, header, send_refusal
from hydrata.core.errors import PlatformError, RequestTooLarge
from hydrata.oauth.metadata import MAX_METADATA_BYTES
from hydrata.storage.errors import UploadTooLarge
from hydrata.storage.local import too_large_detail
from hydrata_contract import paths

# The forms a stranger may send: a sign-in (a username, a password, a CSRF token), an OAuth token request or
# consent, client metadata (at most MAX_METADATA_BYTES, which the registration view refuses past with its own 400).
STRANGERS_FORM_MAX_BYTES = 2 * MAX_METADATA_BYTES
CLOSE = [(b"connection", b"close")]  # a body left unread: the connection cannot carry another request


def _json_limit() -> int:
    """What Django itself allows a body that is not a file upload (JSON, a form)."""
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


def _with_a_file(file_bytes: int) -> int:
    """A multipart body: the largest file the route takes, and form fields up to what Django allows them."""
    return file_bytes + _json_limit()


def _too_large(limit: int) -> PlatformError:
    return RequestTooLarge(
        f"The request body is larger than the {limit:,}-byte limit of this address. Send less in one request.",
        limit=limit,
    )


def _upload_too_large(limit: int) -> PlatformError:
    return UploadTooLarge(too_large_detail(max_bytes=limit), limit=limit)


@dataclass(frozen=True)
class BodyLimit:
    """The largest body a route takes (read from the settings on each request), and the refusal past it."""

    path: re.Pattern[str]  # matched in full against the path as Django routes it (without the site's prefix)
    max_bytes: Callable[[], int]
    refusal: Callable[[int], PlatformError] = _too_large


# The routes that take more, or less, than a JSON body; the first whose path matches applies. Every other route
# takes what Django allows a body that is not a file (DATA_UPLOAD_MAX_MEMORY_SIZE), /mcp/ included: a tool's
# arguments become one REST call's body.
BODY_LIMITS: tuple[BodyLimit, ...] = (
    # A presigned PUT of a terrain, streamed into storage (hydrata/storage/streaming.py), never spooled.
    BodyLimit(re.compile(r"/storage/upload/.+"), lambda: settings.HYDRATA_TERRAIN_MAX_BYTES, _upload_too_large),
    BodyLimit(re.compile(paths.TERRAIN_UPLOAD.pattern()), lambda: _with_a_file(settings.HYDRATA_TERRAIN_MAX_BYTES)),
    BodyLimit(
        re.compile(f"(?:{paths.UPLOAD.pattern()}|{paths.UPLOAD_NO_SLASH.pattern()})"),
        lambda: _with_a_file(settings.HYDRATA_GEOJSON_MAX_BYTES),
    ),
    BodyLimit(re.compile(paths.DESIGN_INPUTS.pattern()), lambda: _with_a_file(settings.HYDRATA_ARR_FILE_MAX_BYTES)),
    BodyLimit(re.compile(r"/accounts/.*|/admin/login/|/oauth/.*"), lambda: STRANGERS_FORM_MAX_BYTES),
)


def path_info(scope: Scope) -> str:
    """The path as Django routes it: without the prefix the site is served under (root_path or FORCE_SCRIPT_NAME)."""
    return str(scope["path"]).removeprefix(get_script_prefix(scope))


def max_body_bytes(path: str) -> tuple[int, Callable[[int], PlatformError]]:
    """The route's limit in bytes (its entry of BODY_LIMITS, else Django's own for a body that is not a file) and
    the refusal past it."""
    entry = next((entry for entry in BODY_LIMITS if entry.path.fullmatch(path)), None)
    return (entry.max_bytes(), entry.refusal) if entry else (_json_limit(), _too_large)


def content_length(scope: Scope) -> int | None:
    """The Content-Length the request announced; None without one (a chunked body), or when it is not one number,
    which the HTTP server refuses itself."""
    value = header(scope, b"content-length")
    return int(value) if value is not None and value.strip().isdigit() else None


class BodyLimits:
    """Refuse, with 413, a request body over its route's limit (BODY_LIMITS) before the application reads it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit, refusal = max_body_bytes(path_info(scope))
        announced = content_length(scope)
        if announced is not None and announced > limit:
            await send_refusal(send, refusal(limit), headers=CLOSE)
            return
        counted = CountedBody(receive, send, limit=limit)
        await self.app(scope, counted.receive, counted.send)
        # Answered once the application has stopped, so what it began (a part of a file stored) is already undone.
        if counted.refused and not counted.answering:  # an answer already begun is cut short instead
            await send_refusal(send, refusal(limit), headers=CLOSE)


class CountedBody:
    """receive and send for the application behind. The body's bytes are counted as they arrive; past the limit the
    application is told the client hung up (Django's handler then stops reading and answers nothing; the streamed
    upload drops what it wrote), and whatever it sends after that is dropped: BodyLimits answers 413."""

    def __init__(self, receive: Receive, send: Send, *, limit: int) -> None:
        self._receive, self._send = receive, send
        self.limit = limit
        self.received = 0
        self.refused = self.answering = False

    async def receive(self) -> Message:
        if self.refused:
            return {"type": "http.disconnect"}
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.limit:
                self.refused = True
                return {"type": "http.disconnect"}
        return message

    async def send(self, message: Message) -> None:
        if not self.refused:
            self.answering = True
            await self._send(message)
