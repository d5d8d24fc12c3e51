import asyncio
import contextlib
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from asgiref.sync import ThreadSensitiveContext, markcoroutinefunction
from django.conf import settings
from django.core.asgi import get_asgi_application
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.exception import convert_exception_to_response
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.urls import set_script_prefix
from django.utils.module_loading import import_string

from config.bodies import BodyLimits, path_info
from hydrata.storage.streaming import UPLOAD_PATH, StreamedUpload
from hydrata_mcp.jsonrpc import MCP_PATHS
from hydrata_mcp.transport import finish_after_answer, finish_answered

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

MAX_IDLE_REQUEST_THREADS = 32
MCP_MIDDLEWARE_PREFIX = "hydrata_mcp."
MCP_URLCONF = "hydrata_mcp.urls"
# The site's header middleware an MCP answer gets too (nosniff, referrer and opener policies, no framing), after
# the MCP wing's own.
MCP_HEADER_MIDDLEWARE = (
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
)


class WarmRequestThreads:
    """Each HTTP request runs its synchronous code (sync views, the sync middleware) on a thread kept from earlier
    requests, one request at a time per thread, as a WSGI server's threads do.

    Django's ASGI handler otherwise starts a thread for every request and another to join it when the request
    ends. Its own per-request ThreadSensitiveContext defers to this outer one, which hands asgiref the executor.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.idle: list[ThreadPoolExecutor] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        executor = self.idle.pop() if self.idle else ThreadPoolExecutor(max_workers=1, thread_name_prefix="request")
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.app(scope, receive, send)
        finally:
            self._release(executor)

    def _release(self, executor: ThreadPoolExecutor) -> None:
        if len(self.idle) < MAX_IDLE_REQUEST_THREADS:
            self.idle.append(executor)
        else:
            executor.shutdown(wait=False)


class MCPHandler(ASGIHandler):
    """Django for /mcp/ alone: the MCP wing's own middleware (its entries of MIDDLEWARE, in their order), async
    throughout, so the async view runs on the event loop with no thread hop on its way in or out.

    The site's stack is sync (see hydrata.agents.middleware) and the MCP view async: through it, a tools/call
    would hop to a request thread for the middleware and back to the loop for the view, and again on the way
    out, and pay for sessions, CSRF, messages and the rest, none of which /mcp/ uses.

    Nor does it send Django's request_started and request_finished signals. Their receivers reset and close
    database connections and caches, which an MCP request never opens (its tools reach the platform over HTTP,
    and the database refuses the event loop), and sending them to sync receivers costs a hop to a request
    thread and back at each end of every request.
    """

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        with body_file:
            set_script_prefix(get_script_prefix(scope))
            request, refusal = self.create_request(scope, body_file)
            if request is None:  # an undecodable path or an oversized body: Django's own refusal
                await self.send_response(cast(HttpResponseBase, refusal), send)
                return
            # The routes of /mcp/ alone: resolving it against the whole site walks every pattern before it.
            request.urlconf = MCP_URLCONF
            await self._answer_unless_hung_up(request, receive, send)

    async def _answer_unless_hung_up(self, request: HttpRequest, receive: Any, send: Any) -> None:
        """Answer, and stop the view (a tool still waiting, a progress stream) if the client hangs up first."""
        answering = asyncio.create_task(self._answer(request, send))
        hang_up = asyncio.create_task(self.listen_for_disconnect(receive))
        await asyncio.wait((hang_up, answering), return_when=asyncio.FIRST_COMPLETED)
        for task in (hang_up, answering):
            if not task.done():
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError, RequestAborted):
                await task

    async def _answer(self, request: HttpRequest, send: Any) -> None:
        finish_after_answer(request)
        try:
            response = await self.run_get_response(request)
            with contextlib.suppress(asyncio.CancelledError):  # the client went away while it was sent
                await self.send_response(response, send)
        finally:  # also when a hang-up cancels the view after the SDK had answered it
            await finish_answered(request)

    def load_middleware(self, is_async: bool = False) -> None:
        # What BaseHandler.load_middleware sets up, for a list of middleware it does not read from settings.
        self._view_middleware: list[Any] = []
        self._template_response_middleware: list[Any] = []
        self._exception_middleware: list[Any] = []
        handler = convert_exception_to_response(self._get_response_async)  # type: ignore[attr-defined]
        for path in reversed(MCP_HEADER_MIDDLEWARE):
            handler = convert_exception_to_response(HeadersOnTheLoop(import_string(path), handler))
        for middleware in reversed(mcp_middleware()):
            handler = convert_exception_to_response(middleware(handler))
        self._middleware_chain = handler


def mcp_middleware() -> list[Any]:
    return [import_string(path) for path in settings.MIDDLEWARE if path.startswith(MCP_MIDDLEWARE_PREFIX)]


class HeadersOnTheLoop:
    """A Django middleware whose hooks only read the request and set response headers, run on the event loop.

    Django's adapter for a sync hook in an async chain hops to a thread and back for each; these do no I/O.
    """

    def __init__(self, middleware_class: Any, get_response: Any) -> None:
        middleware = middleware_class(get_response)
        self.process_request = getattr(middleware, "process_request", None)
        self.process_response = getattr(middleware, "process_response", None)
        self.get_response = get_response
        markcoroutinefunction(self)

    async def __call__(self, request: Any) -> Any:
        response = self.process_request(request) if self.process_request else None
        if response is None:
            response = await self.get_response(request)
        return self.process_response(request, response) if self.process_response else response


class MCPRoute:
    """/mcp/ to its own handler, a signed PUT to /storage/upload/ streamed into storage, everything else to the
    site's handler."""

    def __init__(self, *, site: Any, mcp: Any, upload: Any = None) -> None:
        self.site = site
        self.mcp = mcp
        self.upload = upload or StreamedUpload()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.site(scope, receive, send)
            return
        path = path_info(scope)
        if path in MCP_PATHS:
            await self.mcp(scope, receive, send)
        elif path.startswith(UPLOAD_PATH):
            await self.upload(scope, receive, send, path_info=path)
        else:
            await self.site(scope, receive, send)


# Bodies over their route's limit are refused first, before any thread or handler is involved.
application = BodyLimits(WarmRequestThreads(MCPRoute(site=get_asgi_application(), mcp=MCPHandler())))
