"""A serial run's child forked by the worker's fork server (hydrata/compute/processes/fork_server.py): the child is the
server's, the server holds nothing of the worker and stays one thread, it serves run after run, a server that has
died is replaced, one that dies mid-run takes its child with it, and with HYDRATA_FORK_SERVER off the worker starts
its child by exec as before."""

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from hydrata.anuga.models import Run
from hydrata.anuga.services.simulation import run_simulate
from hydrata.backends.fork_server import close_fork_server, fork_server_pid
from hydrata_contract.states import RunStatus
from tests.hydrata.anuga.services.test_simulation import SECRETS

pytestmark = pytest.mark.django_db(transaction=True)

SHORT = 120  # simulated seconds


@pytest.fixture(autouse=True)
def fresh_server():
    """Each test starts without a server in this process, and leaves none."""
    close_fork_server()
    yield
    close_fork_server()


def two_runs(queue_run) -> tuple[int, int]:
    """Two queued runs: queue_run leaves the tasks no longer eager, for a worker or run_simulate to take them."""
    from config.celery import app

    _, first = queue_run(SHORT)
    app.conf.task_always_eager = True
    _, second = queue_run(SHORT)
    return first, second


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def watch_child(run_id: int, seen: dict[str, int], *, seconds: float = 120) -> threading.Thread:
    """A thread that records the run's child and that child's parent while the run computes."""

    def watch() -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and "parent" not in seen:
            pid = Run.objects.filter(pk=run_id).values_list("child_pid", flat=True).first()
            if pid:
                try:
                    seen["parent"], seen["child"] = parent_of(pid), pid
                except (FileNotFoundError, ProcessLookupError):
                    return
            time.sleep(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def server_facts(pid: int) -> dict:
    status = Path(f"/proc/{pid}/status").read_text()
    links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
    raw = Path(f"/proc/{pid}/environ").read_bytes().decode()
    return {
        "threads": next(line for line in status.splitlines() if line.startswith("Threads:")).split()[1],
        "sockets": sum(link.startswith("socket:") for link in links),
        "environment": dict(item.split("=", 1) for item in raw.split("\0") if "=" in item),
    }


def test_a_serial_runs_child_is_forked_by_a_server_of_one_thread_that_holds_nothing_of_the_worker(
    queue_run, monkeypatch
):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    first, second = two_runs(queue_run)
    seen: dict[str, int] = {}
    watcher = watch_child(first, seen)

    assert run_simulate(run_id=first).status == RunStatus.COMPLETE
    watcher.join()
    server = fork_server_pid()
    assert server is not None and seen["parent"] == server != os.getpid()
    assert run_simulate(run_id=second).status == RunStatus.COMPLETE
    assert fork_server_pid() == server  # one server, run after run

    facts = server_facts(server)
    assert facts["threads"] == "1"
    assert facts["sockets"] == 1  # its end of the pair: no broker, database or listening socket
    assert not set(SECRETS) & set(facts["environment"])
    assert facts["environment"]["OMP_NUM_THREADS"] == "1"


def test_a_server_that_has_died_is_replaced_at_the_next_run(queue_run):
    first, second = two_runs(queue_run)
    assert run_simulate(run_id=first).status == RunStatus.COMPLETE
    dead = fork_server_pid()
    assert dead is not None
    os.kill(dead, signal.SIGKILL)
    time.sleep(0.2)

    assert run_simulate(run_id=second).status == RunStatus.COMPLETE
    assert fork_server_pid() not in (None, dead)


def test_a_server_that_dies_mid_run_takes_its_child_with_it_and_the_run_ends_in_error(queue_run):
    _, run_id = queue_run(6 * 3600)
    seen: dict[str, int] = {}
    watcher = watch_child(run_id, seen)

    def kill_the_server() -> None:
        watcher.join()
        os.kill(seen["parent"], signal.SIGKILL)

    killer = threading.Thread(target=kill_the_server, daemon=True)
    killer.start()
    run = run_simulate(run_id=run_id)
    killer.join()

    assert run.status == RunStatus.ERROR
    deadline = time.monotonic() + 30
    while Path(f"/proc/{seen['child']}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{seen['child']}").exists()  # PR_SET_PDEATHSIG: no orphan computes on


def test_with_the_fork_server_off_the_worker_starts_its_child_by_exec(queue_run, settings):
    settings.HYDRATA_FORK_SERVER = False
    _, run_id = queue_run(SHORT)
    seen: dict[str, int] = {}
    watcher = watch_child(run_id, seen)

    assert run_simulate(run_id=run_id).status == RunStatus.COMPLETE
    watcher.join()
    assert seen["parent"] == os.getpid() and fork_server_pid() is None
