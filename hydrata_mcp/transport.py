"""The async Django view that hands /mcp/ requests to the SDK's Streamable HTTP transport.

Stateless: every request gets its own session manager, entered and left inside this view. The answer is
JSON, except for a request that carries a progress token: that one is answered as an SSE stream so the
progress notifications reach the client while the tool waits.
"""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, MutableMapping
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils.encoding import escape_uri_path
from django.views.decorators.csrf import csrf_exempt
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from hydrata_mcp.jsonrpc import asks_for_progress, error_body, jsonrpc_messages
from hydrata_mcp.server import lowlevel_server

logger = logging.getLogger(__name__)

INTERNAL_ERROR = -32603
# The request attribute where a handler that finishes the SDK's requests itself collects them.
AFTER_ANSWER = "mcp_after_answer"
HOP_BY_HOP = {"content-length", "transfer-encoding", "connection"}


@csrf_exempt
async def mcp_endpoint(request: HttpRequest) -> HttpResponseBase:
    body = request.body
    messages = jsonrpc_messages(body)
    stream = messages is not None and asks_for_progress(messages)
    manager = StreamableHTTPSessionManager(app=lowlevel_server(), json_response=not stream, stateless=True)
    exchange = _Exchange(asgi_scope(request), body, after_answer=getattr(request, AFTER_ANSWER, None))
    task = asyncio.create_task(exchange.serve(manager))
    start = await exchange.next_message()
    if start is None or start["type"] != "http.response.start":
        await _finish(task)
        return JsonResponse(error_body(None, INTERNAL_ERROR, "The MCP server could not answer."), status=500)
    headers = {
        name.decode("latin-1"): value.decode("latin-1")
        for name, value in start.get("headers", [])
        if name.decode("latin-1").lower() not in HOP_BY_HOP
    }
    chunks = exchange.body_chunks(task)
    if headers.get("content-type", "").startswith("text/event-stream"):
        return StreamingHttpResponse(chunks, status=start["status"], headers=headers)
    content = b"".join([chunk async for chunk in chunks])
    return HttpResponse(content, status=start["status"], headers=headers)


def asgi_scope(request: HttpRequest) -> dict[str, Any]:
    headers = [
        (name.lower().encode("latin-1"), value.encode("latin-1", errors="replace"))
        for name, value in request.headers.items()
    ]
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        # As ASGI defines them: the full path, and the prefix the site is served under (Django's script name).
        "path": request.path,
        "raw_path": escape_uri_path(request.path).encode("ascii"),
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "root_path": request.META.get("SCRIPT_NAME", ""),
        "headers": headers,
        "client": (request.META.get("REMOTE_ADDR") or "", 0),
        "server": (request.META.get("SERVER_NAME", "localhost"), int(request.META.get("SERVER_PORT") or 0)),
    }


class _Exchange:
    """One ASGI request/response pair between this view and the SDK."""

    def __init__(self, scope: dict[str, Any], body: bytes, *, after_answer: list[asyncio.Task[None]] | None) -> None:
        self.scope = scope
        self.body = body
        self.after_answer = after_answer
        self.body_delivered = False
        self.finished = asyncio.Event()
        self.messages: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    async def serve(self, manager: StreamableHTTPSessionManager) -> None:
        try:
            async with manager.run():
                await manager.handle_request(self.scope, self.receive, self.send)
        except Exception:
            logger.exception("The MCP transport failed while answering a request")
        finally:
            self.finished.set()
            await self.messages.put(None)

    async def receive(self) -> dict[str, Any]:
        if not self.body_delivered:
            self.body_delivered = True
            return {"type": "http.request", "body": self.body, "more_body": False}
        # The SDK listens for a disconnect; it comes only once the answer is complete.
        await self.finished.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: MutableMapping[str, Any]) -> None:
        await self.messages.put(dict(message))
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            self.finished.set()

    async def next_message(self) -> dict[str, Any] | None:
        return await self.messages.get()

    async def body_chunks(self, task: asyncio.Task[None]) -> AsyncIterator[bytes]:
        complete = False
        try:
            while (message := await self.messages.get()) is not None:
                if message["type"] != "http.response.body":
                    continue
                if message.get("body"):
                    yield message["body"]
                if not message.get("more_body", False):
                    complete = True
                    break
        finally:
            self.finished.set()
            if not complete:
                task.cancel()  # the client went away mid-stream: stop the tool's work too
            if complete and self.after_answer is not None:
                self.after_answer.append(task)
            else:
                await _finish(task)


def finish_after_answer(request: HttpRequest) -> None:
    """For a handler that sends the answer, then calls `finish_answered`: the view then does not hold the answer
    back while the SDK tears its request down (about a quarter of a millisecond)."""
    setattr(request, AFTER_ANSWER, [])


async def finish_answered(request: HttpRequest) -> None:
    for task in getattr(request, AFTER_ANSWER, ()):
        await _finish(task)


async def _finish(task: asyncio.Task[None]) -> None:
    """Let the SDK leave its session manager; it has nothing left to send by now."""
    try:
        await asyncio.wait_for(asyncio.shield(task), timeout=5)
    except TimeoutError:
        task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
