"""The REST client turns every failure into a tool error the model can act on, and leaks nothing."""

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from hydrata.anuga.models import Project
from hydrata_mcp.client import PlatformClient, PlatformToolError, refusal_error, session_id_for
from tests.conftest import LiveASGIServer
from tests.factories import make_grant, make_user
from tests.locked_database import write_lock_held_elsewhere
from tests.mcp_client import call

KEY = "hk_" + "k" * 43
HANG_UPS = ("RemoteDisconnected", "ConnectionResetError")


def test_an_internal_error_becomes_a_generic_message_without_the_platforms_text():
    error = refusal_error(500, {"code": "INTERNAL_ERROR", "detail": "Traceback (most recent call last): ..."})

    assert isinstance(error, ToolError)
    assert "HTTP 500" in str(error) and "Traceback" not in str(error)


def test_a_refusal_names_status_code_and_detail_but_never_a_url():
    error = refusal_error(
        404,
        {"code": "PROJECT_NOT_FOUND", "detail": "See http://127.0.0.1:8000/api/v2/anuga/projects/9/?sig=abc for more."},
    )

    text = str(error)
    assert "HTTP 404" in text and "PROJECT_NOT_FOUND" in text
    assert "http://" not in text and "sig=abc" not in text and "[link]" in text


def test_a_refusal_without_a_json_body_still_gives_an_actionable_message():
    text = str(refusal_error(403, None))

    assert "HTTP 403" in text and "refused" in text


def test_an_unreachable_platform_is_a_tool_error_without_the_address(settings):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings.HYDRATA_API_ORIGIN = f"http://127.0.0.1:{port}"

    with pytest.raises(ToolError) as caught:
        asyncio.run(PlatformClient(authorization=f"Bearer {KEY}", session_id="s").get("/api/v2/agents/me/"))

    assert "could not be reached" in str(caught.value)
    assert "127.0.0.1" not in str(caught.value) and str(port) not in str(caught.value)
    assert "/api/v2/" not in str(caught.value) and KEY not in str(caught.value)


def hang_up_on_every_connection(listener: socket.socket) -> None:
    while True:
        try:
            listener.accept()[0].close()
        except OSError:  # the listener was closed
            return


def test_a_platform_that_hangs_up_without_answering_is_logged_by_the_failures_names_alone(settings, caplog):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    threading.Thread(target=hang_up_on_every_connection, args=(listener,), daemon=True).start()
    port = listener.getsockname()[1]
    settings.HYDRATA_API_ORIGIN = f"http://127.0.0.1:{port}"

    try:
        with caplog.at_level("WARNING", logger="hydrata_mcp.client"), pytest.raises(ToolError) as caught:
            asyncio.run(PlatformClient(authorization=f"Bearer {KEY}", session_id="s").get("/api/v2/agents/me/"))
    finally:
        listener.close()

    assert "could not be reached" in str(caught.value)
    logged = caplog.messages
    # A GET is sent once more; each hang-up arrives as a reset or as an empty answer, as the two sockets' timing falls.
    assert len(logged) == 2
    assert logged[0] in {f"A loopback GET was sent again after ProtocolError from {name}" for name in HANG_UPS}
    assert logged[1] in {f"A loopback GET failed: ProtocolError from {name}" for name in HANG_UPS}
    assert all("127.0.0.1" not in line and str(port) not in line and "/api/v2/" not in line for line in logged)


def test_a_refused_connection_is_logged_by_the_failures_names_alone(settings, caplog):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings.HYDRATA_API_ORIGIN = f"http://127.0.0.1:{port}"

    with caplog.at_level("WARNING", logger="hydrata_mcp.client"), pytest.raises(ToolError):
        asyncio.run(PlatformClient(authorization=f"Bearer {KEY}", session_id="s").get("/api/v2/agents/me/"))

    assert caplog.messages == ["A loopback GET failed: NewConnectionError from ConnectionRefusedError"]


def test_a_platform_that_does_not_answer_in_time_is_a_tool_error_and_the_call_is_not_sent_again(settings, caplog):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    accepted = []
    threading.Thread(target=lambda: accepted.append(listener.accept()), daemon=True).start()
    port = listener.getsockname()[1]
    settings.HYDRATA_API_ORIGIN = f"http://127.0.0.1:{port}"
    settings.HYDRATA_API_TIMEOUT_SECONDS = 0.3

    try:
        with caplog.at_level("WARNING", logger="hydrata_mcp.client"), pytest.raises(ToolError) as caught:
            asyncio.run(PlatformClient(authorization=f"Bearer {KEY}", session_id="s").get("/api/v2/agents/me/"))
    finally:
        listener.close()

    text = str(caught.value)
    assert "did not answer within 0.3 seconds" in text
    assert not [record for record in caplog.records if record.name == "hydrata_mcp.client"]  # a slow server has it
    assert "127.0.0.1" not in text and str(port) not in text
    assert "/api/v2/" not in text and KEY not in text


def test_the_session_header_is_stable_for_a_client_session_and_fresh_without_one():
    assert session_id_for("abc") == session_id_for("abc") != session_id_for("abd")
    assert session_id_for(None) != session_id_for(None)
    assert "abc" not in session_id_for("abc")


class Throttling(BaseHTTPRequestHandler):
    """A real HTTP server that answers every GET as a throttled platform would."""

    retry_after: str | None = None
    body: bytes = b""

    def do_GET(self):
        self.send_response(429)
        if self.retry_after is not None:
            self.send_header("Retry-After", self.retry_after)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


def throttled_call(settings, *, retry_after: str | None, body: bytes) -> ToolError:
    handler = type("Handler", (Throttling,), {"retry_after": retry_after, "body": body})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.HYDRATA_API_ORIGIN = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with pytest.raises(ToolError) as caught:
            asyncio.run(PlatformClient(authorization=f"Bearer {KEY}", session_id="s").get("/api/v2/agents/me/"))
    finally:
        server.shutdown()
        server.server_close()
    return caught.value


def test_a_throttled_call_is_a_tool_error_saying_how_many_seconds_to_wait(settings):
    error = throttled_call(
        settings, retry_after="17", body=json.dumps({"code": "THROTTLED", "detail": "Too many requests."}).encode()
    )

    assert (error.status, error.code, error.retry_after_seconds) == (429, "THROTTLED", 17)
    assert "HTTP 429" in str(error) and "Too many requests." in str(error)
    assert "Wait 17 seconds" in str(error)


def test_a_throttled_call_without_a_body_or_a_wait_still_says_it_was_throttled_and_to_wait(settings):
    error = throttled_call(settings, retry_after=None, body=b"")

    assert (error.status, error.code, error.retry_after_seconds) == (429, "THROTTLED", None)
    assert "rate" in str(error) and "Wait a minute" in str(error)


def test_a_retry_after_given_as_a_date_becomes_seconds_from_now(settings):
    when = formatdate(time.time() + 120, usegmt=True)

    error = throttled_call(settings, retry_after=when, body=b"")

    assert 110 <= error.retry_after_seconds <= 121


class Echoing(BaseHTTPRequestHandler):
    """A real HTTP server that answers every request with what it received."""

    protocol_version = "HTTP/1.1"  # keep-alive, as the platform's server

    def do_GET(self):
        self._echo()

    def do_POST(self):
        self._echo()

    def _echo(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        seen = {
            "method": self.command,
            "path": self.path,
            "headers": {name.lower(): value for name, value in self.headers.items()},
            "body": body.decode(),
            "port": self.client_address[1],
        }
        payload = json.dumps(seen).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def echoing(settings):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echoing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.HYDRATA_API_ORIGIN = f"http://127.0.0.1:{server.server_address[1]}"
    yield
    server.shutdown()
    server.server_close()


def test_a_get_sends_its_params_as_the_query_leaving_out_those_that_are_none(echoing):
    api = PlatformClient(authorization=f"Bearer {KEY}", session_id="s")

    seen = asyncio.run(api.get("/api/v2/anuga/runs/", params={"page": 2, "status": None, "id": [3, 4]})).data

    assert seen["method"] == "GET" and seen["path"] == "/api/v2/anuga/runs/?page=2&id=3&id=4"


def test_a_post_sends_json_with_the_callers_authorization_unchanged(echoing):
    api = PlatformClient(authorization=f"Bearer {KEY}", session_id="s")

    seen = asyncio.run(api.post("/api/v2/anuga/projects/", json={"name": "Mérewether"})).data

    assert seen["method"] == "POST" and json.loads(seen["body"]) == {"name": "Mérewether"}
    assert seen["headers"]["content-type"] == "application/json"
    assert seen["headers"]["authorization"] == f"Bearer {KEY}"
    assert seen["headers"]["x-hydrata-session"] == "s" and seen["headers"]["x-hydrata-client"].startswith("mcp/")


def test_calls_one_after_another_reuse_one_kept_alive_connection(echoing):
    api = PlatformClient(authorization=f"Bearer {KEY}", session_id="s")

    async def twice() -> tuple[int, int]:
        first, second = await api.get("/a/"), await api.get("/b/")
        return first.data["port"], second.data["port"]

    first_port, second_port = asyncio.run(twice())

    assert first_port == second_port


@pytest.fixture
def platform_with_a_short_keep_alive(transactional_db, settings) -> Iterator[LiveASGIServer]:
    """The real platform (config.asgi under uvicorn, as `live_asgi`) that closes a connection idle for 1 s."""
    server = LiveASGIServer()
    server.server.config.timeout_keep_alive = 1
    settings.HYDRATA_API_ORIGIN = server.url
    server.start()
    try:
        yield server
    finally:
        server.stop()


def busy_as_the_server_closes_the_idle_connection(server: LiveASGIServer) -> None:
    """Returns once the server's event loop has queued the close of its one idle connection (its keep-alive
    timeout came due) behind half a second of other work, as a loaded server's loop does: a request sent now
    is on the connection before the server closes it, unread (the close then resets it)."""
    (connection,) = server.server.server_state.connections
    deadline = time.monotonic() + 5
    while (closing := connection.timeout_keep_alive_task) is None and time.monotonic() < deadline:
        time.sleep(0.01)  # the server arms the timeout just after the client has read its answer
    assert closing is not None
    loop, busy = connection.loop, threading.Event()

    def other_work() -> None:
        busy.set()
        time.sleep(0.5)

    # Due a microsecond before the close: the loop wakes on whole milliseconds, so both are due in one turn, and
    # this runs first.
    loop.call_soon_threadsafe(lambda: loop.call_at(closing.when() - 1e-6, other_work))
    assert busy.wait(5)


def test_a_get_on_a_kept_alive_connection_the_server_closes_as_it_arrives_is_sent_again_on_a_fresh_one(
    platform_with_a_short_keep_alive, settings, caplog
):
    settings.HYDRATA_API_IDLE_SECONDS = 60  # reuse the idle connection, so that the server's close catches the call
    _, key = make_grant()
    api = PlatformClient(authorization=f"Bearer {key}", session_id="s")
    assert asyncio.run(api.get("/api/v2/agents/me/")).status == 200
    busy_as_the_server_closes_the_idle_connection(platform_with_a_short_keep_alive)

    with caplog.at_level("WARNING", logger="hydrata_mcp.client"):
        answer = asyncio.run(api.get("/api/v2/agents/me/"))

    assert answer.status == 200 and answer.data["level"] == "draft"
    # The reset, or the empty answer when the close overtakes the request, as the two sockets' timing falls.
    logged = [record.getMessage() for record in caplog.records if record.name == "hydrata_mcp.client"]
    assert logged in ([f"A loopback GET was sent again after ProtocolError from {name}"] for name in HANG_UPS)


def test_a_post_the_server_closes_the_same_way_is_not_sent_again_so_it_cannot_act_twice(
    platform_with_a_short_keep_alive, settings
):
    settings.HYDRATA_API_IDLE_SECONDS = 60
    user = make_user()
    _, key = make_grant(user)
    api = PlatformClient(authorization=f"Bearer {key}", session_id="s")
    assert asyncio.run(api.get("/api/v2/agents/me/")).status == 200
    busy_as_the_server_closes_the_idle_connection(platform_with_a_short_keep_alive)

    with pytest.raises(PlatformToolError) as caught:
        asyncio.run(api.post("/api/v2/anuga/projects/", json={"name": "Once", "projection": "EPSG:28356"}))

    assert caught.value.code == "PLATFORM_UNREACHABLE"
    assert not Project.objects.filter(owner=user).exists()


def test_a_post_after_the_connection_sat_idle_past_the_limit_goes_on_a_fresh_connection_the_close_cannot_catch(
    platform_with_a_short_keep_alive, settings
):
    settings.HYDRATA_API_IDLE_SECONDS = 0.5  # under the server's keep-alive of 1 s
    user = make_user()
    _, key = make_grant(user)
    api = PlatformClient(authorization=f"Bearer {key}", session_id="s")
    assert asyncio.run(api.get("/api/v2/agents/me/")).status == 200
    busy_as_the_server_closes_the_idle_connection(platform_with_a_short_keep_alive)

    created = asyncio.run(api.post("/api/v2/anuga/projects/", json={"name": "Once", "projection": "EPSG:28356"}))

    assert created.status == 201
    assert list(Project.objects.filter(owner=user).values_list("name", flat=True)) == ["Once"]


def test_a_connection_idle_for_longer_than_the_limit_is_not_reused(echoing, settings):
    settings.HYDRATA_API_IDLE_SECONDS = 0.2
    api = PlatformClient(authorization=f"Bearer {KEY}", session_id="s")

    async def apart() -> tuple[int, int]:
        first = await api.get("/a/")
        await asyncio.sleep(0.3)
        second = await api.get("/b/")
        return first.data["port"], second.data["port"]

    first_port, second_port = asyncio.run(apart())

    assert first_port != second_port


def test_a_tool_call_while_the_platforms_database_is_locked_says_the_platform_is_busy_and_when_to_retry(live_asgi):
    user = make_user()
    _, key = make_grant(user)

    with write_lock_held_elsewhere():
        result = call(live_asgi.url, key, "create_project", {"name": "Locked out", "projection": "EPSG:28356"})

    assert result.is_error
    text = result.content[0].text
    assert "The Hydrata platform is busy (HTTP 503, DATABASE_UNAVAILABLE)" in text and "Retry in 5 seconds." in text
    assert "internal error" not in text and "127.0.0.1" not in text
    assert not Project.objects.filter(owner=user).exists()


def test_a_503_without_a_body_is_still_busy_with_the_wait_it_names():
    error = refusal_error(503, None, retry_after="12")

    assert (error.status, error.code, error.retry_after_seconds) == (503, "SERVICE_UNAVAILABLE", 12)
    assert "busy (HTTP 503, SERVICE_UNAVAILABLE)" in str(error) and "Retry in 12 seconds." in str(error)
