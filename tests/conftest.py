import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn


class LiveASGIServer:
    """The real ASGI application (config.asgi) on a real loopback socket, in a thread of the test process."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        from config.asgi import application

        config = uvicorn.Config(application, log_level="warning", lifespan="off", timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the test ASGI server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


@pytest.fixture
def live_asgi(transactional_db, settings) -> Iterator[LiveASGIServer]:
    """The whole stack over loopback: /mcp/ and the REST API the tools call, as in production."""
    server = LiveASGIServer()
    settings.HYDRATA_SITE_URL = server.url
    settings.HYDRATA_API_ORIGIN = server.url
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # PBKDF2's deliberate slowness protects real passwords and costs ~0.5 s per test user.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
