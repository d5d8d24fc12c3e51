import http.client
import os
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from config.serve import HTTP_PROTOCOL, uvicorn_options
from tests.processes import free_port, web_command


async def hello(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"hello"})


@pytest.fixture
def server_on_a_bound_listener() -> Iterator[tuple[uvicorn.Server, int]]:
    """uvicorn serving on a listener it bound itself, as it does before handing it to several worker processes."""
    config = uvicorn.Config(hello, host="127.0.0.1", port=0, http=HTTP_PROTOCOL, lifespan="off", log_level="warning")
    listener = config.bind_socket()
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    yield server, listener.getsockname()[1]
    server.should_exit = True
    thread.join(timeout=10)
    listener.close()


def accepted_socket_of(client: socket.socket) -> socket.socket:
    """The server's end of client's connection, found among this process's file descriptors."""
    for name in os.listdir("/proc/self/fd"):
        try:
            candidate = socket.socket(fileno=os.dup(int(name)))
        except OSError:
            continue
        try:
            if candidate.type == socket.SOCK_STREAM and candidate.getpeername() == client.getsockname():
                return candidate
        except OSError:
            pass
        candidate.close()
    raise AssertionError("the server's end of the connection was not found")


def test_a_connection_the_web_command_accepts_has_nagles_algorithm_off(server_on_a_bound_listener):
    server, port = server_on_a_bound_listener
    assert server.started
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        client.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert client.recv(4096).startswith(b"HTTP/1.1 200")
        with accepted_socket_of(client) as accepted:
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def test_the_web_command_gives_uvicorn_its_keep_alive_setting_and_closes_a_connection_left_idle(tmp_path, settings):
    # No clock: how soon a loaded machine gets round to the close is not what is tested. uvicorn closes a connection
    # idle for its timeout_keep_alive (its own tests hold that); here, the web command hands it the setting...
    settings.HYDRATA_WEB_KEEP_ALIVE_SECONDS = 7
    assert uvicorn_options(host="127.0.0.1", port=8000)["timeout_keep_alive"] == 7
    # ...and, as a process, keeps a connection open after answering and then closes it once it stays idle.
    port = free_port()
    env = dict(os.environ, HYDRATA_VAR_DIR=str(tmp_path), HYDRATA_WEB_WORKERS="1", HYDRATA_WEB_KEEP_ALIVE_SECONDS="1")
    with web_command(env, port=port, log=tmp_path / "web.log"):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        connection.request("GET", "/static/nothing-here")
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 404 and not answer.will_close

        closed = connection.sock.recv(1)  # blocks until the server closes the idle connection
        connection.close()

    assert closed == b""
