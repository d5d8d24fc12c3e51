"""A request body over its route's limit is refused with 413 before it is read: at the ASGI callable, and through a
real server, where a stranger's huge body never reaches Django's temporary file."""

import asyncio
import http.client
import json
import socket
import time
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from config.asgi import application
from config.bodies import STRANGERS_FORM_MAX_BYTES, BodyLimits, max_body_bytes
from hydrata.storage import get_storage

TIFF = "image/tiff"
KEY = "staging/12/3f2a/dem.tif"
GIB = 1024**3


def route_limits(settings) -> dict[str, tuple[int, str]]:
    """A path of each row of the table, and the default, with the limit it must have and the refusal's code."""
    json_limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return {
        "/mcp/": (json_limit, "REQUEST_TOO_LARGE"),
        "/api/v2/anuga/projects/": (json_limit, "REQUEST_TOO_LARGE"),
        "/accounts/login/": (STRANGERS_FORM_MAX_BYTES, "REQUEST_TOO_LARGE"),
        "/oauth/register/": (STRANGERS_FORM_MAX_BYTES, "REQUEST_TOO_LARGE"),
        f"/storage/upload/{KEY}": (settings.HYDRATA_TERRAIN_MAX_BYTES, "UPLOAD_TOO_LARGE"),
        "/api/v2/anuga/projects/7/terrain/upload/": (
            settings.HYDRATA_TERRAIN_MAX_BYTES + json_limit,
            "REQUEST_TOO_LARGE",
        ),
        "/api/v2/uploads/upload/": (settings.HYDRATA_GEOJSON_MAX_BYTES + json_limit, "REQUEST_TOO_LARGE"),
        "/api/v2/anuga/projects/7/design-inputs/": (
            settings.HYDRATA_ARR_FILE_MAX_BYTES + json_limit,
            "REQUEST_TOO_LARGE",
        ),
    }


def scope(path: str, *, length: int | None = None, method: str = "POST") -> dict:
    headers = [(b"content-type", b"application/json")]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    return {"type": "http", "method": method, "path": path, "root_path": "", "headers": headers, "query_string": b""}


class Exchange:
    """One request to an ASGI app: the body's messages it may receive, and what it sends back."""

    def __init__(self, chunks: Iterable[bytes] = (), *, may_read: bool = True) -> None:
        self.messages = [{"type": "http.request", "body": chunk, "more_body": True} for chunk in chunks]
        if self.messages:
            self.messages[-1]["more_body"] = False
        self.may_read = may_read
        self.received = 0
        self.sent: list[dict] = []

    async def receive(self) -> dict:
        assert self.may_read, "the body was read"
        if self.received < len(self.messages):
            self.received += 1
            return self.messages[self.received - 1]
        await asyncio.Event().wait()  # nothing more: the client waits for the answer
        raise AssertionError

    async def send(self, message: dict) -> None:
        self.sent.append(message)

    @property
    def status(self) -> int:
        return next(message["status"] for message in self.sent if message["type"] == "http.response.start")

    @property
    def body(self) -> dict:
        return json.loads(b"".join(message.get("body", b"") for message in self.sent if "body" in message))


class ReadsTheWholeBody:
    """An application that reads the body as Django's handler does, then answers 200 with its size."""

    def __init__(self) -> None:
        self.reached = False
        self.size = 0
        self.told_hung_up = False

    async def __call__(self, scope, receive, send) -> None:
        self.reached = True
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                self.told_hung_up = True
                await send({"type": "http.response.start", "status": 500, "headers": []})
                return
            self.size += len(message.get("body", b""))
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": json.dumps({"size": self.size}).encode()})


def test_every_route_has_the_limit_of_the_table(settings):
    for path, (limit, _) in route_limits(settings).items():
        assert max_body_bytes(path)[0] == limit, path


def test_a_body_announced_over_its_routes_limit_is_413_with_its_code_before_a_byte_is_read(settings):
    for path, (limit, code) in route_limits(settings).items():
        exchange = Exchange(may_read=False)

        asyncio.run(application(scope(path, length=limit + 1), exchange.receive, exchange.send))

        assert exchange.status == 413, path
        assert exchange.body["code"] == code and exchange.body["limit"] == limit, path
        assert f"{limit:,}-byte limit" in exchange.body["detail"], path


def test_a_body_announced_at_exactly_its_routes_limit_reaches_the_application(settings):
    for path, (limit, _) in route_limits(settings).items():
        app = ReadsTheWholeBody()
        exchange = Exchange([b"x" * 1000])

        asyncio.run(BodyLimits(app)(scope(path, length=limit), exchange.receive, exchange.send))

        assert app.reached and exchange.status == 200, path


def test_a_chunked_body_is_counted_and_refused_once_it_passes_the_limit_and_the_application_is_told_it_hung_up(
    settings,
):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100_000
    app = ReadsTheWholeBody()
    exchange = Exchange([b"x" * 40_000] * 10)

    asyncio.run(BodyLimits(app)(scope("/mcp/"), exchange.receive, exchange.send))

    assert exchange.received == 3  # 120,000 bytes: one chunk past the limit, and no further
    assert exchange.status == 413 and exchange.body["code"] == "REQUEST_TOO_LARGE"
    assert app.told_hung_up and [message["type"] for message in exchange.sent].count("http.response.start") == 1


def test_a_chunked_body_of_exactly_the_limit_is_read_whole(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100_000
    app = ReadsTheWholeBody()
    exchange = Exchange([b"x" * 40_000, b"x" * 40_000, b"x" * 20_000])

    asyncio.run(BodyLimits(app)(scope("/mcp/"), exchange.receive, exchange.send))

    assert exchange.status == 200 and exchange.body == {"size": 100_000}


# --- through a real server ---------------------------------------------------------------------------------------


def exchange_raw(url: str, head: str, body: Iterable[bytes] = ()) -> tuple[int, http.client.HTTPMessage, bytes]:
    """Send a request's head, then its body's parts (stopping if the server closes), and read the answer."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=20) as connection:
        connection.sendall(head.encode("latin-1"))
        for part in body:
            try:
                connection.sendall(part)
            except (BrokenPipeError, ConnectionResetError):
                break
        answer = http.client.HTTPResponse(connection)
        answer.begin()
        content = answer.read()
        return answer.status, answer.headers, content


def head(method: str, path: str, *, length: int | None = None, content_type: str = "application/json") -> str:
    framing = f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    return f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n{framing}\r\n\r\n"


def chunked(parts: Iterable[bytes]) -> Iterable[bytes]:
    for part in parts:
        yield f"{len(part):x}\r\n".encode() + part + b"\r\n"


def test_an_unauthenticated_mcp_request_announcing_a_huge_body_is_413_at_once_without_sending_it(live_asgi):
    # The answer comes without a byte of the gigabyte sent: nothing was read, so nothing was parked.
    status, headers, content = exchange_raw(live_asgi.url, head("POST", "/mcp/", length=GIB))

    assert status == 413 and headers["Connection"] == "close"
    assert json.loads(content)["code"] == "REQUEST_TOO_LARGE"


def test_an_unauthenticated_sign_in_or_registration_announcing_a_large_body_is_413(live_asgi):
    for path in ("/accounts/login/", "/oauth/register/"):
        status, _, content = exchange_raw(live_asgi.url, head("POST", path, length=STRANGERS_FORM_MAX_BYTES + 1))

        assert status == 413 and json.loads(content)["limit"] == STRANGERS_FORM_MAX_BYTES, path


def test_an_unauthenticated_chunked_mcp_body_is_413_once_it_passes_the_limit(live_asgi, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100_000
    endless = chunked(b" " * 10_000 for _ in range(10_000))  # 100 MB, if it were all read

    status, _, content = exchange_raw(live_asgi.url, head("POST", "/mcp/"), endless)

    assert status == 413 and json.loads(content) == {
        "code": "REQUEST_TOO_LARGE",
        "detail": "The request body is larger than the 100,000-byte limit of this address. Send less in one request.",
        "limit": 100_000,
    }


def test_an_unauthenticated_mcp_body_of_exactly_the_limit_reaches_the_gate(live_asgi, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100_000
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    body = ping + b" " * (100_000 - len(ping))

    status, _, content = exchange_raw(live_asgi.url, head("POST", "/mcp/", length=len(body)), [body])

    assert status == 401 and json.loads(content)["error"]["code"] == -32001


def stored_parts(media_root: Path) -> list[Path]:
    return list(media_root.rglob("*.part")) if media_root.exists() else []


def test_a_presigned_put_streams_into_storage_as_it_arrives_and_stores_the_exact_bytes(live_asgi, media_root):
    url = get_storage().presign_upload(key=KEY, content_type=TIFF, expires_in=60)
    parts = urlsplit(url)
    first, rest = b"I" * 300_000, b"J" * 200_000

    with socket.create_connection((parts.hostname, parts.port), timeout=20) as connection:
        request_head = head("PUT", f"{parts.path}?{parts.query}", length=len(first) + len(rest), content_type=TIFF)
        connection.sendall(request_head.encode() + first)
        deadline = time.monotonic() + 10
        while not any(part.stat().st_size == len(first) for part in stored_parts(media_root)):
            assert time.monotonic() < deadline, "the first bytes did not reach storage before the rest was sent"
            time.sleep(0.05)
        connection.sendall(rest)
        answer = http.client.HTTPResponse(connection)
        answer.begin()
        content = json.loads(answer.read())

    assert answer.status == 200 and content == {"key": KEY, "size": len(first) + len(rest)}
    assert (media_root / KEY).read_bytes() == first + rest and stored_parts(media_root) == []


def test_a_presigned_put_with_a_tampered_link_is_refused_before_its_body_is_read(live_asgi, media_root):
    url = get_storage().presign_upload(key=KEY, content_type=TIFF, expires_in=60)
    parts = urlsplit(url)
    tampered = f"{parts.path}?{parts.query}".replace("X-Hydrata-Signature=", "X-Hydrata-Signature=A")

    # Only the head is sent: the refusal comes without the body.
    status, _, content = exchange_raw(live_asgi.url, head("PUT", tampered, length=GIB // 2, content_type=TIFF))

    assert status == 403 and json.loads(content)["code"] == "SIGNATURE_INVALID"
    assert stored_parts(media_root) == [] and not (media_root / KEY).exists()


def test_a_chunked_presigned_put_over_the_limit_is_413_and_leaves_nothing(live_asgi, media_root, settings):
    settings.HYDRATA_TERRAIN_MAX_BYTES = 100_000
    url = get_storage().presign_upload(key=KEY, content_type=TIFF, expires_in=60)
    parts = urlsplit(url)

    status, _, content = exchange_raw(
        live_asgi.url, head("PUT", f"{parts.path}?{parts.query}", content_type=TIFF), chunked([b"x" * 60_000] * 5)
    )

    assert status == 413 and json.loads(content)["code"] == "UPLOAD_TOO_LARGE"
    # The 413 is sent once the upload has stopped, so its part is already gone when the client reads it.
    assert stored_parts(media_root) == [] and not (media_root / KEY).exists()


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_the_upload_link_answers_any_other_method_405_through_the_server(live_asgi, method):
    status, headers, content = exchange_raw(live_asgi.url, head(method, f"/storage/upload/{KEY}", length=0))

    assert status == 405 and headers["allow"] == "PUT" and json.loads(content)["code"] == "METHOD_NOT_ALLOWED"
