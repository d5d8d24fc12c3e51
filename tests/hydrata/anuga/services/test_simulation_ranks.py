"""A run over two MPI ranks through the real stack: started over REST with `ranks`, its child launched by the worker
as in production (the mpich wheel's mpiexec), completing, cancelled, and losing a rank."""

import os
import signal
import time
from pathlib import Path

import pytest

from hydrata.anuga.models import Run
from hydrata.anuga.services.simulation import run_simulate
from hydrata_contract.states import RunStatus
from tests.model_setup import api
from tests.run_files import statistics_match_the_stored_files

pytestmark = pytest.mark.django_db(transaction=True)

LONG_RUN_SECONDS = 6 * 3600  # outlasts the test: it is cancelled or loses a rank long before its end


@pytest.fixture(autouse=True)
def two_ranks_allowed(settings):
    settings.HYDRATA_MAX_RANKS = 2


@pytest.fixture
def long_two_rank_run(queue_run):
    """Queued before the worker starts: the model's own imports run eagerly until then."""
    return queue_run(LONG_RUN_SECONDS, ranks=2)


def processes_under(parent: int) -> list[int]:
    """Every process descended from `parent`, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, waiting = [], [parent]
    while waiting:
        for child in children.get(waiting.pop(), []):
            found.append(child)
            waiting.append(child)
    return found


def is_rank(pid: int) -> bool:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"hydrata.compute.simulation.simulate" in command and not command[0].endswith(b"mpiexec")


def computing_ranks(run_id: int, *, seconds: float = 120) -> list[int]:
    """The ranks of the run's child, once the run reports computing progress."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        ranks = [pid for pid in processes_under(run.child_pid) if is_rank(pid)] if run.child_pid else []
        if len(ranks) == 2 and run.status == RunStatus.COMPUTING and (run.sim_time or 0) > 0:
            return ranks
        time.sleep(0.2)
    raise AssertionError(f"the run never computed on two ranks: {Run.objects.get(pk=run_id).status}")


def ended(run_id: int, *, seconds: float = 60) -> Run:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.status in (RunStatus.ERROR, RunStatus.CANCELLED, RunStatus.COMPLETE):
            return run
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} is still {Run.objects.get(pk=run_id).status}")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def until_gone(pids: list[int], *, seconds: float = 15) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [pid for pid in pids if alive(pid)]


@pytest.mark.long_running
def test_a_two_rank_run_completes_under_mpiexec_and_its_answer_carries_its_ranks(queue_run, live_asgi):
    key, run_id = queue_run(300, ranks=2)

    run = run_simulate(run_id=run_id)
    with api(live_asgi.url, key) as http:
        answer = http.get(f"/api/v2/anuga/runs/{run_id}/").json()

    assert run.status == RunStatus.COMPLETE, run.error_message
    assert answer["ranks"] == 2 and answer["status"] == "complete"
    assert "2 rank(s)" in run.log and "Distributed over 2 ranks" in run.log
    assert run.statistics["mass_balance_error_pct"] < 1e-6 and run.statistics["triangles"] > 1000
    statistics_match_the_stored_files(run_id, run.statistics)  # the ranks' merged files, read independently


def test_cancelling_a_two_rank_run_ends_every_rank(long_two_rank_run, live_asgi, start_worker):
    key, run_id = long_two_rank_run
    start_worker()
    ranks = computing_ranks(run_id)

    with api(live_asgi.url, key) as http:
        assert http.post(f"/api/v2/anuga/runs/{run_id}/cancel/").status_code == 202
    run = ended(run_id)

    assert run.status == RunStatus.CANCELLED and run.child_pid is None
    assert until_gone(ranks) == []


def test_a_rank_that_dies_ends_the_run_in_error_saying_so_and_stops_the_other_rank(long_two_rank_run, start_worker):
    _, run_id = long_two_rank_run
    start_worker()
    ranks = computing_ranks(run_id)

    os.kill(ranks[-1], signal.SIGKILL)
    run = ended(run_id)

    assert run.status == RunStatus.ERROR
    assert "One of the run's 2 MPI ranks" in run.error_message and "Killed (signal 9)" in run.error_message
    assert run.user_message == "Retry it with retry_run." and run.child_pid is None
    assert until_gone(ranks) == []
