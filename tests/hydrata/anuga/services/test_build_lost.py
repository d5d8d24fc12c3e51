"""A build is started by exactly one delivery of its task, and a build whose worker was lost does not hold its
scenario forever: the reaper ends it after the build's hard time limit, and a restarted worker ends its own."""

from datetime import timedelta

import pytest
from django.utils import timezone

from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.services.build import run_build
from hydrata.anuga.services.runs import runs_fail_for_worker, runs_reap_stale
from hydrata_contract.states import BUILD_IN_FLIGHT, RunStatus
from tests.factories import make_project

pytestmark = pytest.mark.django_db


def a_run(*, status: str, started_ago: timedelta = timedelta(0), worker: str = "worker-a") -> Run:
    scenario = Scenario.objects.create(project=make_project(), name="s", resolution=10, duration=60)
    return Run.objects.create(
        scenario=scenario,
        status=status,
        resolution=10,
        duration=60,
        build_started_at=timezone.now() - started_ago,
        worker_hostname=worker,
    )


def build_limit(settings) -> timedelta:
    limit = settings.HYDRATA_TASK_TIME_LIMITS["run_build"] + settings.HYDRATA_TASK_HARD_LIMIT_GRACE_SECONDS
    return timedelta(seconds=limit)


def test_a_build_task_delivered_again_while_its_build_runs_changes_nothing():
    run = a_run(status=RunStatus.BUILDING, worker="first")
    before = Run.objects.get(pk=run.pk)

    again = run_build(run_id=run.pk, worker="second")

    after = Run.objects.get(pk=run.pk)
    assert again.status == RunStatus.BUILDING
    assert (after.worker_hostname, after.build_started_at, after.updated_at) == (
        "first",
        before.build_started_at,
        before.updated_at,
    )


def test_a_build_still_going_after_its_hard_time_limit_is_ended_in_error_and_frees_its_scenario(settings):
    run = a_run(status=RunStatus.BUILDING, started_ago=build_limit(settings) + timedelta(seconds=1))

    assert runs_reap_stale() == 1

    ended = Run.objects.get(pk=run.pk)
    assert ended.status == RunStatus.ERROR and ended.status not in BUILD_IN_FLIGHT
    assert "build_scenario" in ended.user_message and "lost" in ended.error_message
    assert ended.finished_at is not None


def test_a_build_within_its_time_limit_is_left_building(settings):
    run = a_run(status=RunStatus.BUILDING, started_ago=build_limit(settings) - timedelta(seconds=30))

    assert runs_reap_stale() == 0

    assert Run.objects.get(pk=run.pk).status == RunStatus.BUILDING


def test_a_restarted_worker_ends_the_builds_it_held_and_no_other_workers_builds():
    mine = a_run(status=RunStatus.BUILDING, worker="restarting")
    theirs = a_run(status=RunStatus.BUILDING, worker="elsewhere")

    assert runs_fail_for_worker(hostname="restarting") == 1

    assert Run.objects.get(pk=mine.pk).status == RunStatus.ERROR
    assert Run.objects.get(pk=theirs.pk).status == RunStatus.BUILDING
