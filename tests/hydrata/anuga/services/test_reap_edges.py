"""The reaper's two windows, on both sides of each edge: a computing run silent for exactly the heartbeat timeout
is still computing, one silent an instant longer has lost its worker; the same for a build and its hard limit."""

from datetime import timedelta

import pytest
from django.utils import timezone

from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.services.runs import runs_reap_stale
from hydrata_contract.states import RunStatus
from tests.factories import make_project

pytestmark = pytest.mark.django_db

INSTANT = timedelta(microseconds=1)


def runs_at(status: str, field: str, ages: dict[str, timedelta], now) -> dict[str, int]:
    """One run per age, `field` set that long before `now`."""
    scenario = Scenario.objects.create(project=make_project(), name="s", resolution=10, duration=60)
    return {
        name: Run.objects.create(scenario=scenario, status=status, resolution=10, duration=60, **{field: now - age}).pk
        for name, age in ages.items()
    }


def statuses(runs: dict[str, int]) -> dict[str, str]:
    return {name: Run.objects.get(pk=pk).status for name, pk in runs.items()}


@pytest.mark.parametrize("status", [RunStatus.COMPUTING, RunStatus.PROCESSING])
def test_a_run_silent_for_exactly_the_heartbeat_timeout_computes_on_and_one_silent_an_instant_longer_is_ended(
    settings, status
):
    now, timeout = timezone.now(), timedelta(seconds=settings.HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS)
    runs = runs_at(status, "heartbeat_at", {"at the edge": timeout, "past it": timeout + INSTANT}, now)

    assert runs_reap_stale(now=now) == 1

    assert statuses(runs) == {"at the edge": status, "past it": RunStatus.ERROR}


def test_a_build_going_for_exactly_its_hard_limit_builds_on_and_one_going_an_instant_longer_is_ended(settings):
    now = timezone.now()
    limit = timedelta(
        seconds=settings.HYDRATA_TASK_TIME_LIMITS["run_build"] + settings.HYDRATA_TASK_HARD_LIMIT_GRACE_SECONDS
    )
    runs = runs_at(RunStatus.BUILDING, "build_started_at", {"at the edge": limit, "past it": limit + INSTANT}, now)

    assert runs_reap_stale(now=now) == 1

    assert statuses(runs) == {"at the edge": RunStatus.BUILDING, "past it": RunStatus.ERROR}
