"""The production ASGI application: one warm thread per request, the site's middleware stack in one mode, and
/mcp/ through its own async stack."""

import asyncio
import json
import threading

import httpx
import pytest
from asgiref.sync import SyncToAsync, iscoroutinefunction, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.core.signals import request_finished, request_started

from config.asgi import (
    MAX_IDLE_REQUEST_THREADS,
    MCPHandler,
    MCPRoute,
    WarmRequestThreads,
    application,
    mcp_middleware,
)
from hydrata_mcp.gate import MCPGateMiddleware
from hydrata_mcp.redaction import RedactionMiddleware

MCP_HEADERS = {
    "Authorization": "Bearer hk_" + "a" * 43,
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


class SyncWork:
    """An ASGI app whose requests run two thread-sensitive sync calls, as a sync view and middleware do."""

    def __init__(self) -> None:
        self.threads: list[tuple[int, int]] = []
        self.release = asyncio.Event()

    async def __call__(self, scope, receive, send) -> None:
        first = await sync_to_async(threading.get_ident)()
        if scope.get("wait"):
            await self.release.wait()
        self.threads.append((first, await sync_to_async(threading.get_ident)()))


def request(app: WarmRequestThreads, **scope):
    return app({"type": "http", **scope}, None, None)


def test_requests_one_after_another_run_their_sync_code_on_one_kept_thread():
    work = SyncWork()
    app = WarmRequestThreads(work)

    async def two_requests() -> None:
        await request(app)
        await request(app)

    asyncio.run(two_requests())

    (first, second), (third, fourth) = work.threads
    assert first == second == third == fourth != threading.get_ident()
    assert len(app.idle) == 1


def test_requests_at_the_same_time_each_have_a_thread_of_their_own():
    work = SyncWork()
    app = WarmRequestThreads(work)

    async def overlapping() -> None:
        waiting = asyncio.create_task(request(app, wait=True))
        await asyncio.sleep(0.2)
        await request(app)
        work.release.set()
        await waiting

    asyncio.run(overlapping())

    (short, short_again), (long, long_again) = work.threads
    assert short == short_again and long == long_again and short != long
    assert len(app.idle) == 2


def test_no_more_than_the_cap_of_idle_threads_is_kept():
    work = SyncWork()
    app = WarmRequestThreads(work)
    many = MAX_IDLE_REQUEST_THREADS + 3

    async def at_once() -> None:
        waiting = [asyncio.create_task(request(app, wait=True)) for _ in range(many)]
        await asyncio.sleep(0.5)
        work.release.set()
        await asyncio.gather(*waiting)

    asyncio.run(at_once())

    assert len({first for first, _ in work.threads}) == many
    assert len(app.idle) == MAX_IDLE_REQUEST_THREADS


def test_django_builds_the_whole_middleware_stack_in_sync_mode_entered_by_one_thread_hop():
    # An async-capable middleware at the bottom of MIDDLEWARE would split the stack into sync and async parts, with
    # two thread hops for each of Django's own middleware.
    handler = ASGIHandler()

    assert isinstance(handler._middleware_chain, SyncToAsync)


class Recorder:
    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope, receive, send) -> None:
        self.paths.append(scope["path"])


@pytest.mark.parametrize(
    ("path", "root_path", "to_mcp"),
    [("/mcp/", "", True), ("/mcp", "", True), ("/x/mcp/", "/x", True), ("/api/v2/agents/me/", "", False)],
)
def test_an_mcp_request_goes_to_the_mcp_handler_and_any_other_to_the_sites(path, root_path, to_mcp):
    site, mcp = Recorder(), Recorder()

    asyncio.run(MCPRoute(site=site, mcp=mcp)({"type": "http", "path": path, "root_path": root_path}, None, None))

    assert (mcp.paths, site.paths) == (([path], []) if to_mcp else ([], [path]))


def test_under_a_forced_script_name_an_mcp_request_still_goes_to_the_mcp_handler(settings):
    settings.FORCE_SCRIPT_NAME = "/x"
    site, mcp = Recorder(), Recorder()

    asyncio.run(MCPRoute(site=site, mcp=mcp)({"type": "http", "path": "/x/mcp/"}, None, None))

    assert mcp.paths == ["/x/mcp/"] and site.paths == []


def test_the_mcp_handler_runs_the_mcp_wings_middleware_alone_and_async_with_no_thread_hop():
    chain = MCPHandler()._middleware_chain

    assert iscoroutinefunction(chain) and not isinstance(chain, SyncToAsync)
    assert mcp_middleware() == [MCPGateMiddleware, RedactionMiddleware]


async def post(path: str, body: dict) -> httpx.Response:
    transport = httpx.ASGITransport(app=application)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
        return await client.post(path, json=body, headers=MCP_HEADERS)


def test_an_mcp_answer_carries_the_sites_security_headers():
    answer = asyncio.run(post("/mcp/", PING))

    assert answer.status_code == 200 and answer.json()["id"] == 1
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["Referrer-Policy"] == "same-origin"


@pytest.mark.parametrize("path", ["/mcp/", "/mcp"])
def test_the_mcp_handler_answers_at_both_spellings_of_its_path(path):
    answer = asyncio.run(post(path, PING))

    assert answer.status_code == 200 and answer.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_an_mcp_request_sends_no_request_signals_where_a_site_request_does():
    sent: list[str] = []

    def record(signal, **_):
        sent.append("started" if signal is request_started else "finished")

    request_started.connect(record)
    request_finished.connect(record)
    try:
        asyncio.run(post("/mcp/", PING))
        assert sent == []
        asyncio.run(post("/no/such/page/", {}))
    finally:
        request_started.disconnect(record)
        request_finished.disconnect(record)

    assert sent == ["started", "finished"]


def sdk_requests() -> int:
    """How many requests the SDK is serving (or tearing down) on this loop."""
    return sum(1 for task in asyncio.all_tasks() if task.get_coro().__qualname__ == "_Exchange.serve")


def test_the_answer_goes_out_before_the_sdk_tears_its_request_down_and_the_handler_waits_for_that():
    at_the_answers_end: list[int] = []

    async def one_ping() -> int:
        async def send(message):
            if message["type"] == "http.response.body" and not message.get("more_body"):
                at_the_answers_end.append(sdk_requests())

        body = json.dumps(PING).encode()
        messages = iter([{"type": "http.request", "body": body, "more_body": False}])

        async def receive():
            return next(messages, None) or await asyncio.Event().wait()

        headers = [(name.lower().encode(), value.encode()) for name, value in MCP_HEADERS.items()]
        headers.append((b"content-type", b"application/json"))
        scope = {"type": "http", "method": "POST", "path": "/mcp/", "headers": headers, "query_string": b""}
        await application(scope, receive, send)
        return sdk_requests()

    assert asyncio.run(one_ping()) == 0
    assert at_the_answers_end == [1]


class StuckView(MCPHandler):
    """The MCP handler with a view that waits until it is cancelled (a tool still polling, a progress stream)."""

    def __init__(self) -> None:
        super().__init__()
        self.cancelled = False

    async def run_get_response(self, request):
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise


def test_a_client_that_hangs_up_stops_the_mcp_view():
    handler = StuckView()
    messages = iter([{"type": "http.request", "body": b"{}", "more_body": False}, {"type": "http.disconnect"}])
    sent: list[dict] = []

    async def receive():
        await asyncio.sleep(0.05)
        return next(messages)

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/mcp/", "headers": [], "query_string": b""}
    asyncio.run(asyncio.wait_for(handler(scope, receive, send), timeout=5))

    assert handler.cancelled and sent == []
