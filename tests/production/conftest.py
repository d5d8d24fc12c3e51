"""The production shape as separate processes: the Procfile's web command (several uvicorn processes) and Celery
workers that share nothing local, on the PostgreSQL, Redis and S3 that `python -m tests.production` started.

Outside that runner (plain `make test`, SQLite) these tests are not collected.
"""

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import celery_worker_command, free_port

ROOT = Path(__file__).resolve().parents[2]
WEB_PROCESSES = 2
HEARTBEAT_TIMEOUT_SECONDS = 10  # a killed worker's run is ended in error this soon
REAP_INTERVAL_SECONDS = 2  # after the sweep beat sends this often
SERVE_WITHIN_SECONDS = 300

if not os.environ.get("HYDRATA_PRODUCTION_PROFILE"):
    collect_ignore_glob = ["test_*.py"]


def database_url(settings_dict: dict) -> str:
    """The URL of the database pytest-django created, for the processes the tests start."""
    return f"postgres://{settings_dict['USER']}@{settings_dict['HOST']}:{settings_dict['PORT']}/{settings_dict['NAME']}"


def process_environment(var_dir: Path, database: str, **extra: str) -> dict[str, str]:
    """A machine of its own: its own var/ and media folder, the shared database, broker and bucket."""
    (var_dir / "media").mkdir(parents=True, exist_ok=True)
    return dict(
        os.environ,
        HYDRATA_VAR_DIR=str(var_dir),
        MEDIA_ROOT=str(var_dir / "media"),
        DATABASE_URL=database,
        PYTHONPATH=str(ROOT),
        **extra,
    )


class Process:
    def __init__(self, command: list[str], *, env: dict[str, str], log: Path) -> None:
        self.log = log
        with log.open("wb") as output:  # a file, not a pipe: a full pipe would stall the process
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
            )

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> str:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.log.read_text(errors="replace")[-20000:]


class WebServer(Process):
    def __init__(self, var_dir: Path, database: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = process_environment(
            var_dir,
            database,
            HYDRATA_SITE_URL=self.url,
            HYDRATA_API_ORIGIN=self.url,
            HYDRATA_WEB_WORKERS=str(WEB_PROCESSES),
            HYDRATA_AGENT_RATE_LIMIT="0",
            HYDRATA_OAUTH_REGISTER_RATE_LIMIT="0",
            HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS=str(HEARTBEAT_TIMEOUT_SECONDS),
        )
        super().__init__(
            [sys.executable, "-m", "config.serve", "--host", "127.0.0.1", "--port", str(self.port)],
            env=env,
            log=var_dir / "web.log",
        )

    def wait_until_serving(self) -> None:
        import httpx

        # Loading Django and the app in each process takes seconds on an idle machine and a minute on a busy one.
        deadline = time.monotonic() + SERVE_WITHIN_SECONDS
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                # A cheap page, waited on: the schema takes seconds to generate on a busy machine, and a probe that
                # gave up after 2 s and asked again piled generations up until none finished.
                if httpx.get(f"{self.url}/api/v2/", timeout=30).status_code < 500:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the web command did not serve:\n{self.stop()}")


class Worker(Process):
    def __init__(self, var_dir: Path, database: str, name: str) -> None:
        self.name = name
        self.media_root = var_dir / "media"
        super().__init__(
            celery_worker_command(f"{name}@{socket.gethostname()}"),
            env=process_environment(var_dir, database),
            log=var_dir / "worker.log",
        )


class Beat(Process):
    """Celery beat as the Procfile's `beat` runs it, sending the stale-run sweep every REAP_INTERVAL_SECONDS."""

    def __init__(self, var_dir: Path, database: str) -> None:
        env = process_environment(var_dir, database, HYDRATA_RUN_REAP_INTERVAL_SECONDS=str(REAP_INTERVAL_SECONDS))
        super().__init__(
            [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel=INFO"],
            env=env,
            log=var_dir / "beat.log",
        )


@pytest.fixture(scope="session")
def test_database_url(django_db_setup, django_db_blocker) -> Iterator[str]:
    from django.db import connection

    with django_db_blocker.unblock():
        url = database_url(connection.settings_dict)
    yield url
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        # Connections left open in other threads (sync_to_async's) would block dropping the test database.
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(scope="session")
def production_web(test_database_url, tmp_path_factory) -> Iterator[WebServer]:
    """The Procfile's web command, HYDRATA_WEB_WORKERS processes on one port, on the test database."""
    server = WebServer(tmp_path_factory.mktemp("web"), test_database_url)
    server.wait_until_serving()
    yield server
    print("web log:\n" + server.stop())


@pytest.fixture
def start_production_worker(transactional_db, test_database_url, tmp_path) -> Iterator:
    """Workers as separate machines would run them: each its own folder, nothing shared but the servers."""
    workers: list[Worker] = []

    def start() -> Worker:
        name = f"machine-{len(workers)}"
        workers.append(Worker(tmp_path / name, test_database_url, name))
        return workers[-1]

    yield start
    for worker in workers:
        print(f"{worker.name} log:\n" + worker.stop())


@pytest.fixture
def two_workers(start_production_worker) -> list[Worker]:
    return [start_production_worker(), start_production_worker()]


@pytest.fixture
def beat(transactional_db, test_database_url, tmp_path) -> Iterator[Beat]:
    process = Beat(tmp_path / "beat", test_database_url)
    yield process
    print("beat log:\n" + process.stop())
