"""Launching runs over REST: levels, pause, spend limit, compute targets, cancel while queued, the reaper."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config.celery import app as celery_app
from hydrata.agents.models import AgentSpend
from hydrata.agents.selectors import spend_used_this_month
from hydrata.agents.services import account_set_paused, account_set_spend_limit
from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.services.runs import run_cancel
from hydrata.anuga.tasks import runs_reap_stale_task
from hydrata_contract.states import RunStatus
from tests.factories import make_grant, make_project
from tests.model_setup import PROJECTS, api, small_test_model, until

pytestmark = pytest.mark.django_db(transaction=True)
# The worker's own log line once it has handled the simulation task (what it did is the test's question).
WRITE = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)
SIMULATION_DONE = re.compile(r"Task anuga\.run_simulation\[[0-9a-f-]+\] succeeded")


@pytest.fixture
def built(live_asgi, settings):
    """A built small_test scenario; the simulation is never consumed (no worker), so runs stay queued."""
    grant, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)
    with api(live_asgi.url, key) as http:
        scenario = http.post(
            f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "s", "resolution": 10, "duration": 300}
        ).json()
        assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").status_code == 202
    from config.celery import app

    app.conf.task_always_eager = False  # from here on nothing runs: start leaves the run queued
    return grant, key, scenario


def start(url: str, key: str, scenario_id: int, **body):
    with api(url, key) as http:
        return http.post(f"/api/v2/anuga/scenarios/{scenario_id}/run/", json=body)


@pytest.mark.parametrize("level", ["read", "draft"])
def test_starting_needs_a_launch_level_grant(built, live_asgi, level):
    grant, _, scenario = built
    _, key = make_grant(grant.user, level=level)

    response = start(live_asgi.url, key, scenario["id"])

    assert response.status_code == 403 and response.json()["code"] == "GRANT_LEVEL_TOO_LOW"
    assert response.json()["required_level"] == "launch"


def test_a_paused_account_cannot_start(built, live_asgi):
    grant, key, scenario = built
    account_set_paused(user=grant.user, paused=True)

    response = start(live_asgi.url, key, scenario["id"])

    assert response.status_code == 403 and response.json()["code"] == "AGENT_PAUSED"


def test_a_run_that_would_pass_the_spend_limit_is_402_and_nothing_is_charged(built, live_asgi):
    grant, key, scenario = built
    account_set_spend_limit(user=grant.user, limit=Decimal("0.00"))

    response = start(live_asgi.url, key, scenario["id"])

    assert response.status_code == 402 and response.json()["code"] == "SPEND_LIMIT_EXCEEDED"
    assert response.json()["limit"] == "0.00"
    assert not AgentSpend.objects.exists() and Run.objects.get().status == RunStatus.BUILT


def test_a_start_within_the_limit_queues_the_run_and_records_its_spend(built, live_asgi):
    grant, key, scenario = built
    account_set_spend_limit(user=grant.user, limit=Decimal("100.00"))

    response = start(live_asgi.url, key, scenario["id"])

    assert response.status_code == 202 and response.json()["status"] == "queued"
    assert response.json()["phase"] == "preparing_inputs"
    spend = AgentSpend.objects.get()
    assert spend.grant == grant and spend.reference == f"run:{response.json()['id']}"


def test_a_second_start_while_the_first_is_queued_is_409_naming_it_and_charges_once(built, live_asgi):
    _, key, scenario = built
    first = start(live_asgi.url, key, scenario["id"])
    assert first.status_code == 202

    response = start(live_asgi.url, key, scenario["id"])

    assert response.status_code == 409 and response.json()["code"] == "RUN_IN_PROGRESS"
    assert response.json()["run_id"] == first.json()["id"]
    assert Run.objects.count() == 1 and AgentSpend.objects.count() == 1


def test_a_finished_run_s_build_starts_again_as_a_new_run_of_the_same_package(built, live_asgi):
    _, key, scenario = built
    first = start(live_asgi.url, key, scenario["id"]).json()
    Run.objects.filter(pk=first["id"]).update(status=RunStatus.ERROR)  # it ended (how does not matter here)

    again = start(live_asgi.url, key, scenario["id"])

    assert again.status_code == 202 and again.json()["status"] == "queued", again.json()
    runs = Run.objects.order_by("pk")
    assert [run.pk for run in runs] == [first["id"], again.json()["id"]]
    assert runs[1].package_prefix == runs[0].package_prefix and runs[1].mesh_triangle_count
    assert AgentSpend.objects.filter(reference=f"run:{runs[1].pk}").exists()


@pytest.mark.parametrize(
    ("listed", "queue", "target", "available"),
    [
        (["local"], "flood", "batch", "local"),  # not listed
        (["local", "batch"], "", "batch", "local"),  # listed, but no job queue to submit to
        (["local", "ec2", "slurm"], "flood", "ec2", "local, slurm"),  # listed, but no ec2 backend exists
    ],
)
def test_a_compute_target_that_cannot_run_is_409_naming_the_targets_that_can(
    built, live_asgi, settings, listed, queue, target, available
):
    _, key, scenario = built
    settings.HYDRATA_COMPUTE_BACKENDS = listed
    settings.HYDRATA_BATCH_JOB_QUEUE, settings.HYDRATA_BATCH_JOB_DEFINITION = queue, "hydrata-run"

    response = start(live_asgi.url, key, scenario["id"], compute_backend=target)

    assert response.status_code == 409 and response.json()["code"] == "COMPUTE_TARGET_UNAVAILABLE"
    assert f"use one of: {available}." in response.json()["detail"]


@pytest.mark.parametrize("ranks", [0, 3])
def test_ranks_outside_one_to_the_platforms_maximum_are_400_invalid_ranks_and_nothing_is_queued(
    built, live_asgi, settings, ranks
):
    settings.HYDRATA_MAX_RANKS = 2
    _, key, scenario = built

    response = start(live_asgi.url, key, scenario["id"], ranks=ranks)

    assert response.status_code == 400 and response.json()["code"] == "INVALID_RANKS", response.text
    assert "ranks" in response.json()["detail"]
    assert not Run.objects.filter(scenario_id=scenario["id"], status=RunStatus.QUEUED).exists()


def test_a_run_started_on_two_ranks_says_so_in_its_answer(built, live_asgi, settings):
    settings.HYDRATA_MAX_RANKS = 2
    _, key, scenario = built

    response = start(live_asgi.url, key, scenario["id"], ranks=2)

    assert response.status_code == 202 and response.json()["ranks"] == 2
    assert Run.objects.get(pk=response.json()["id"]).ranks == 2


def test_an_unbuilt_scenario_is_409(live_asgi):
    _, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)
    with api(live_asgi.url, key) as http:
        scenario = http.post(
            f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "s", "resolution": 10, "duration": 300}
        ).json()

    response = start(live_asgi.url, key, scenario["id"])

    assert response.status_code == 409 and response.json()["code"] == "SCENARIO_NOT_BUILT"


@pytest.mark.parametrize("level", ["read", "draft"])
def test_cancelling_needs_a_launch_level_grant(built, live_asgi, level):
    grant, key, scenario = built
    run = start(live_asgi.url, key, scenario["id"]).json()
    _, below = make_grant(grant.user, level=level)

    with api(live_asgi.url, below) as http:
        response = http.post(f"/api/v2/anuga/runs/{run['id']}/cancel/")

    assert response.status_code == 403 and response.json()["code"] == "GRANT_LEVEL_TOO_LOW"
    assert response.json()["required_level"] == "launch"
    untouched = Run.objects.get(pk=run["id"])
    assert untouched.status == RunStatus.QUEUED and not untouched.cancel_requested


@pytest.mark.parametrize("level", ["read", "draft"])
def test_retrying_needs_a_launch_level_grant(built, live_asgi, level):
    grant, key, scenario = built
    run = start(live_asgi.url, key, scenario["id"]).json()
    Run.objects.filter(pk=run["id"]).update(status=RunStatus.ERROR, finished_at=timezone.now())
    _, below = make_grant(grant.user, level=level)

    with api(live_asgi.url, below) as http:
        refused = http.post(f"/api/v2/anuga/runs/{run['id']}/retry/")
    with api(live_asgi.url, key) as http:
        retried = http.post(f"/api/v2/anuga/runs/{run['id']}/retry/")

    assert refused.status_code == 403 and refused.json()["code"] == "GRANT_LEVEL_TOO_LOW"
    assert refused.json()["required_level"] == "launch"
    assert retried.status_code == 202 and retried.json()["retry_of"] == run["id"]  # the same call at launch level
    assert Run.objects.filter(retry_of_id=run["id"]).count() == 1


def test_a_run_cancelled_while_queued_never_starts_its_child(built, live_asgi, start_worker):
    _, key, scenario = built
    run = start(live_asgi.url, key, scenario["id"]).json()
    with api(live_asgi.url, key) as http:
        cancelled = http.post(f"/api/v2/anuga/runs/{run['id']}/cancel/")
        again = http.post(f"/api/v2/anuga/runs/{run['id']}/cancel/")

    worker = start_worker()  # now the queued task is consumed, and must do nothing
    handled = until(
        lambda: {"log": worker.log.read_text(errors="replace")},
        lambda read: SIMULATION_DONE.search(read["log"]),
        seconds=60,
    )["log"]
    run = Run.objects.get(pk=run["id"])

    assert SIMULATION_DONE.search(handled), handled[-3000:]  # the worker did take the task
    assert cancelled.status_code == 202 and cancelled.json()["status"] == "cancelled"
    assert again.status_code == 409 and again.json()["code"] == "RUN_FINISHED"
    assert run.status == RunStatus.CANCELLED and run.started_at is None and run.child_pid is None


def test_a_run_cancelled_while_queued_gives_its_whole_charge_back_to_the_months_spend(built, live_asgi):
    grant, key, scenario = built
    run = start(live_asgi.url, key, scenario["id"]).json()
    price = Run.objects.get(pk=run["id"]).compute_cost
    account_set_spend_limit(user=grant.user, limit=price)  # the month is now at its limit
    assert spend_used_this_month(user=grant.user, now=timezone.now()) == price > 0

    with api(live_asgi.url, key) as http:
        cancelled = http.post(f"/api/v2/anuga/runs/{run['id']}/cancel/")
        again = http.post(f"/api/v2/anuga/runs/{run['id']}/cancel/")
        detail = http.get(f"/api/v2/anuga/runs/{run['id']}/").json()

    assert cancelled.status_code == 202 and detail["compute_cost"] == "0.00"
    assert f"${price} of its charge was given back" in cancelled.json()["user_message"]
    assert again.status_code == 409  # and gives nothing back twice
    entries = sorted(AgentSpend.objects.filter(reference=f"run:{run['id']}").values_list("amount", flat=True))
    assert entries == [-price, price]
    assert spend_used_this_month(user=grant.user, now=timezone.now()) == 0


def test_cancelling_a_persons_own_queued_run_gives_back_nothing_it_was_not_charged(built, live_asgi):
    _, key, scenario = built
    run_id = start(live_asgi.url, key, scenario["id"]).json()["id"]
    AgentSpend.objects.all().delete()  # as if the owner had started it in the browser: no agent was charged

    run_cancel(run=Run.objects.get(pk=run_id))

    assert not AgentSpend.objects.exists()
    assert "given back" not in Run.objects.get(pk=run_id).user_message


def silent(run_id: int) -> None:
    """The run computes on a worker that stopped reporting five minutes ago."""
    Run.objects.filter(pk=run_id).update(status=RunStatus.COMPUTING, heartbeat_at=timezone.now() - timedelta(minutes=5))


def computing_run(owner: User | None = None) -> Run:
    """A run computing on a worker that reported just now."""
    scenario = Scenario.objects.create(project=make_project(owner), name="s", resolution=10, duration=60)
    return Run.objects.create(
        scenario=scenario, status=RunStatus.COMPUTING, resolution=10, duration=60, heartbeat_at=timezone.now()
    )


def test_the_periodic_sweep_ends_a_computing_run_whose_worker_went_silent(built, live_asgi, start_worker):
    _, key, scenario = built
    run = start(live_asgi.url, key, scenario["id"]).json()
    silent(run["id"])

    start_worker(beat=True)  # beat sends anuga.runs_reap_stale every HYDRATA_RUN_REAP_INTERVAL_SECONDS (1 s here)
    with api(live_asgi.url, key) as http:
        status = until(
            lambda: http.get(f"/api/v2/anuga/runs/{run['id']}/status/").json(),
            lambda read: read["status"] != RunStatus.COMPUTING,
            seconds=60,
        )

    assert status["status"] == "error" and "stopped reporting" in status["error_message"]


def test_the_sweep_ends_only_runs_whose_worker_went_silent():
    stale, alive = (computing_run() for _ in range(2))
    silent(stale.pk)

    ended = runs_reap_stale_task.apply().get()

    assert ended == 1
    assert Run.objects.get(pk=stale.pk).status == RunStatus.ERROR
    assert Run.objects.get(pk=alive.pk).status == RunStatus.COMPUTING


def test_beat_sends_the_sweep_at_the_interval_of_its_setting(settings):
    entry = next(entry for entry in settings.CELERY_BEAT_SCHEDULE.values() if entry["task"] == "anuga.runs_reap_stale")

    assert entry["schedule"] == settings.HYDRATA_RUN_REAP_INTERVAL_SECONDS
    assert "anuga.runs_reap_stale" in celery_app.tasks


@pytest.mark.parametrize("suffix", ["status/", ""])
def test_reading_a_silent_run_writes_nothing_to_the_database(client, suffix):
    grant, key = make_grant(level="read")
    run = computing_run(grant.user)
    silent(run.pk)

    path, headers = f"/api/v2/anuga/runs/{run.pk}/{suffix}", {"Authorization": f"Bearer {key}"}
    client.get(path, headers=headers)  # the key's last use is stamped at most once a minute: here, not below

    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, headers=headers)

    writes = [query["sql"] for query in queries if WRITE.match(query["sql"])]
    assert response.status_code == 200 and response.json()["status"] == "computing"
    # The one write of any agent request: its line in the account's activity log.
    assert all('INSERT INTO "agents_agentactivity"' in sql for sql in writes), writes
    assert Run.objects.get(pk=run.pk).status == RunStatus.COMPUTING


def test_a_restarted_worker_leaves_no_run_computing(built, live_asgi, start_worker):
    _, key, scenario = built
    run = start(live_asgi.url, key, scenario["id"]).json()
    first = start_worker("restarting")
    first.stop()
    Run.objects.filter(pk=run["id"]).update(
        status=RunStatus.COMPUTING, heartbeat_at=timezone.now(), worker_hostname=first.nodename
    )

    start_worker("restarting")  # the same worker comes back
    until(
        lambda: {"status": Run.objects.get(pk=run["id"]).status},
        lambda read: read["status"] != RunStatus.COMPUTING,
        seconds=60,
    )

    ended = Run.objects.get(pk=run["id"])
    assert ended.status == RunStatus.ERROR and "restarted" in ended.error_message


def test_sampling_with_a_crs_that_is_no_authority_code_is_400_invalid_crs(built, live_asgi):
    _, key, _ = built
    run = Run.objects.get()
    # Marked complete without results on purpose: the crs must be refused before any raster is opened.
    Run.objects.filter(pk=run.pk).update(status=RunStatus.COMPLETE, results_prefix=f"runs/{run.pk}/results")

    with api(live_asgi.url, key) as http:
        responses = [
            http.post(f"/api/v2/anuga/runs/{run.pk}/sample/", json={"points": [{"x": 0, "y": 0}], "crs": crs})
            for crs in ("garbage", "+init=epsg:4326", "EPSG:5711")
        ]

    assert [r.status_code for r in responses] == [400, 400, 400], [r.text for r in responses]
    assert {r.json()["code"] for r in responses} == {"INVALID_CRS"}
