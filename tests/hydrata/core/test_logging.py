import io
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from hydrata.core.logging import RedactSecretsFilter, redact

ROOT = Path(__file__).resolve().parents[3]
SIGNED = "/storage/download/terrain/1/dem.tif?expires=1796029715&X-Hydrata-Signature=LWk87xcgH48GdrlFyvc6sTjLC0"


def test_signatures_and_keys_are_redacted_but_the_rest_of_the_line_survives():
    line = f"HTTP GET {SIGNED} 200 key=hk_{'a' * 43} X-Amz-Signature=abcdef&X-Amz-Security-Token=tok123"

    cleaned = redact(line)

    assert "LWk87" not in cleaned and "aaaaaaaa" not in cleaned and "abcdef" not in cleaned and "tok123" not in cleaned
    assert cleaned.startswith("HTTP GET /storage/download/terrain/1/dem.tif?expires=1796029715&")
    assert "X-Hydrata-Signature=[redacted]" in cleaned and " 200 " in cleaned


def test_the_filter_rewrites_formatted_records():
    record = logging.LogRecord(
        "django.channels.server", logging.INFO, __file__, 1, "HTTP GET %s %s", (SIGNED, 200), None
    )

    assert RedactSecretsFilter().filter(record) is True
    assert "LWk87" not in record.getMessage() and "[redacted]" in record.getMessage()


def test_a_jwt_anywhere_in_a_line_is_redacted():
    token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNlY3JldA"

    cleaned = redact(f"GET /mcp/?access_token={token} 401")

    assert "c2lnbmF0dXJl" not in cleaned and "eyJzdWIi" not in cleaned
    assert cleaned == "GET /mcp/?access_token=[token redacted] 401"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _procfile_command(process: str) -> str:
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        if name.strip() == process:
            return command.strip()
    raise AssertionError(f"the Procfile has no {process} process")


def _wait_until_serving(port: int, server: subprocess.Popen) -> None:
    # Loading Django in each web process takes seconds on an idle machine and a minute on a busy one; the wait
    # ends at once if the process exits.
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the web process did not start serving")


def test_the_production_web_command_logs_requests_without_their_signatures(tmp_path):
    port = _free_port()
    env = dict(
        os.environ,
        PORT=str(port),
        HYDRATA_ENV="production",
        SECRET_KEY="s" * 50,
        HYDRATA_VAR_DIR=str(tmp_path),
        PYTHONPATH=str(ROOT),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    log = tmp_path / "web.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            ["bash", "-c", _procfile_command("web")],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        _wait_until_serving(port, server)
        response = httpx.get(f"http://127.0.0.1:{port}{SIGNED}")
        time.sleep(0.5)  # let the access line reach the file
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)
    written = log.read_text(errors="replace")

    assert response.status_code in (403, 404)
    assert "/storage/download/terrain/1/dem.tif" in written, written  # the request was logged...
    assert "LWk87" not in written  # ...without its signature


def console_handler() -> logging.Handler:
    """The handler Django configured from settings.LOGGING at start-up (the one that writes to the console)."""
    return next(handler for handler in logging.getLogger().handlers if handler.get_name() == "console")


def test_every_handler_in_the_settings_carries_the_redacting_filter(settings):
    filters = settings.LOGGING["filters"]

    for name, handler in settings.LOGGING["handlers"].items():
        classes = [filters[filter_name]["()"] for filter_name in handler.get("filters", [])]
        assert "hydrata.core.logging.RedactSecretsFilter" in classes, name


def test_a_line_written_by_the_configured_console_handler_is_redacted():
    handler = console_handler()
    written = io.StringIO()
    previous = handler.setStream(written)
    try:
        logging.getLogger("django.request").warning("GET %s with key=%s", SIGNED, "hk_" + "a" * 43)
    finally:
        handler.setStream(previous)

    line = written.getvalue()
    assert "GET /storage/download/terrain/1/dem.tif?expires=1796029715&X-Hydrata-Signature=[redacted]" in line
    assert "LWk87" not in line and "a" * 43 not in line and "hk_[redacted]" in line
