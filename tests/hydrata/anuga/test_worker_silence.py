"""A computing run whose worker stopped reporting says so, in seconds, in its status answer (REST and the
get_run_status tool) once the heartbeat timeout has passed; reading it never writes (ending it is the sweep's)."""

import asyncio
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from hydrata.anuga.models import Run
from hydrata_contract.states import RunStatus
from tests.factories import make_computing_run, make_grant, make_project, make_user
from tests.mcp_client import mcp_client

TIMEOUT = timedelta(seconds=45)  # HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS's default, set below for certainty


@pytest.fixture(autouse=True)
def heartbeat_timeout(settings):
    settings.HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS = int(TIMEOUT.total_seconds())


def status_of(run: Run, user) -> dict:
    client = APIClient()
    client.force_login(user)
    response = client.get(f"/api/v2/anuga/runs/{run.pk}/status/")
    assert response.status_code == 200
    return response.json()


@pytest.mark.django_db
def test_a_run_whose_worker_reported_within_the_timeout_has_no_silence_figure():
    owner = make_user()
    run = make_computing_run(make_project(owner), silent_for=TIMEOUT - timedelta(seconds=30))

    assert status_of(run, owner)["worker_silent_seconds"] is None


@pytest.mark.django_db
@pytest.mark.parametrize("status", [RunStatus.COMPUTING, RunStatus.PROCESSING])
def test_a_run_whose_worker_fell_silent_past_the_timeout_says_how_many_seconds_ago(status):
    owner = make_user()
    run = make_computing_run(make_project(owner), silent_for=TIMEOUT + timedelta(seconds=75), status=status)

    answer = status_of(run, owner)

    assert answer["status"] == status
    assert 120 <= answer["worker_silent_seconds"] < 150  # the read itself takes a moment on a busy machine


@pytest.mark.django_db
def test_reading_a_silent_runs_status_writes_nothing_and_leaves_it_computing():
    owner = make_user()
    run = make_computing_run(make_project(owner), silent_for=timedelta(minutes=10))
    client = APIClient()
    client.force_login(owner)

    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/api/v2/anuga/runs/{run.pk}/status/").json()["worker_silent_seconds"] >= 600

    writes = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]
    assert [sql for sql in writes if "anuga_run" in sql] == []
    assert Run.objects.get(pk=run.pk).status == RunStatus.COMPUTING


@pytest.mark.django_db
def test_an_ended_run_has_no_silence_figure_however_old_its_last_heartbeat():
    owner = make_user()
    run = make_computing_run(make_project(owner), silent_for=timedelta(hours=1))
    Run.objects.filter(pk=run.pk).update(status=RunStatus.ERROR)

    assert status_of(run, owner)["worker_silent_seconds"] is None


@pytest.mark.django_db(transaction=True)
def test_get_run_status_tells_the_agent_the_worker_stopped_reporting(live_asgi):
    grant, key = make_grant(level="read")
    silent = make_computing_run(make_project(grant.user), silent_for=timedelta(minutes=3))
    reporting = make_computing_run(make_project(grant.user), silent_for=timedelta(seconds=1))

    async def statuses():
        async with mcp_client(live_asgi.url, key) as client:
            return [
                (await client.call_tool("get_run_status", {"run_id": run.pk})).structured_content
                for run in (silent, reporting)
            ]

    silent_answer, reporting_answer = asyncio.run(statuses())

    assert silent_answer["status"] == RunStatus.COMPUTING and silent_answer["worker_silent_seconds"] >= 180
    assert reporting_answer["worker_silent_seconds"] is None
