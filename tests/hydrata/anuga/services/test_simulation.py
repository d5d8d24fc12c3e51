"""The simulation child: an allow-listed environment, and CPU, wall-clock and file-size limits that end a run in
error saying which limit it ran into."""

import time
from pathlib import Path

import pytest

from hydrata.anuga.models import Run
from hydrata.anuga.services.simulation import run_simulate
from hydrata_contract.states import RunStatus
from tests.model_setup import api

pytestmark = pytest.mark.django_db(transaction=True)

SECRETS = {
    "DATABASE_URL": "postgres://hydrata:db-password@db/hydrata",
    "CELERY_BROKER_URL": "redis://:pw@broker/0",
    "PGPASSWORD": "pg-password",
    "SENTRY_DSN": "https://public@sentry.example/1",
    "SECRET_KEY": "k" * 50,
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "HYDRATA_S3_BUCKET": "bucket",
}


@pytest.fixture
def queued(queue_run):
    """Six simulated hours: long enough to outlast any limit below."""
    return queue_run(6 * 3600)


def child_environment(run_id: int, *, seconds: float = 90) -> dict[str, str]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pid = Run.objects.get(pk=run_id).child_pid
        if pid:
            raw = Path(f"/proc/{pid}/environ").read_bytes()
            return dict(item.split("=", 1) for item in raw.decode().split("\0") if "=" in item)
        time.sleep(0.1)
    raise AssertionError("the simulation child never started")


def test_the_child_gets_no_secret_of_the_worker_even_when_they_are_set(queued, live_asgi, start_worker, monkeypatch):
    key, run_id = queued
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    start_worker()  # the worker's environment holds all of them (and its own DATABASE_URL and broker URL)

    environment = child_environment(run_id)
    with api(live_asgi.url, key) as http:
        http.post(f"/api/v2/anuga/runs/{run_id}/cancel/")

    assert not set(SECRETS) & set(environment), sorted(environment)
    assert not any(value in environment.values() for value in SECRETS.values())
    assert environment["OMP_NUM_THREADS"] and environment["PATH"]
    deadline = time.monotonic() + 30
    while Run.objects.get(pk=run_id).status == RunStatus.COMPUTING and time.monotonic() < deadline:
        time.sleep(0.2)


@pytest.mark.parametrize(
    ("limits", "reason"),
    [
        ({"HYDRATA_RUN_MIN_CPU_SECONDS": 1, "HYDRATA_RUN_MIN_WALL_SECONDS": 600}, "CPU-time limit of 1 s"),
        ({"HYDRATA_RUN_MIN_CPU_SECONDS": 600, "HYDRATA_RUN_MIN_WALL_SECONDS": 3}, "wall-clock limit of 3 s"),
        ({"HYDRATA_RUN_MAX_FILE_BYTES": 4096}, "larger than its limit of 4,096 bytes"),
    ],
)
def test_a_run_over_a_limit_of_its_child_ends_in_error_saying_which(queued, settings, limits, reason):
    _, run_id = queued
    settings.HYDRATA_RUN_LIMIT_MARGIN = 1e-9  # the estimate no longer counts: the floors above are the limits
    for name, value in limits.items():
        setattr(settings, name, value)

    started = time.monotonic()
    run = run_simulate(run_id=run_id)

    assert run.status == RunStatus.ERROR
    assert reason in run.error_message and reason in run.log
    assert "limit" in run.user_message and run.child_pid is None
    assert time.monotonic() - started < 60
