"""MPI stays on this machine: a run's ranks listen on loopback alone, and the Celery worker, which builds meshes
with ANUGA, never initialises MPI itself."""

import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from hydrata.anuga.models import Run
from hydrata_contract.states import RunStatus
from tests.factories import make_grant
from tests.model_setup import PROJECTS, api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)

# Hydra's control port, which every process of a run inherits, binds every interface: in the run's own network
# namespace, where loopback is the only one.
HYDRA_CONTROL_PORT = {"0.0.0.0", "::"}  # noqa: S104  (what is left out of the check, not an address bound here)


def network_namespace(pid: int) -> str:
    return os.readlink(f"/proc/{pid}/ns/net")


def interfaces(pid: int) -> set[str]:
    """The network interfaces the process sees (its namespace's, from /proc/<pid>/net/dev)."""
    return {line.split(":")[0].strip() for line in Path(f"/proc/{pid}/net/dev").read_text().splitlines()[2:]}


def process_tree(root: int) -> list[int]:
    found, todo = [root], [root]
    while todo:
        pid = todo.pop()
        for task in os.listdir(f"/proc/{pid}/task") if os.path.exists(f"/proc/{pid}/task") else []:
            try:
                children = [int(child) for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
            except OSError:
                continue
            found += children
            todo += children
    return found


def socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        pass
    return inodes


def address(hex_address: str, *, six: bool) -> str:
    raw = bytes.fromhex(hex_address)
    if not six:
        return socket.inet_ntop(socket.AF_INET, raw[::-1])
    return socket.inet_ntop(socket.AF_INET6, b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4)))


def listening_addresses(pid: int) -> set[str]:
    """The addresses the process's own listening TCP sockets are bound to (read from /proc/net/tcp and tcp6)."""
    inodes = socket_inodes(pid)
    found = set()
    for table, six in (("tcp", False), ("tcp6", True)):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and inode in inodes:  # 0A: LISTEN
                found.add(address(local.split(":")[0], six=six))
    return found


def is_loopback(host: str) -> bool:
    return host.startswith("127.") or host in ("::1", "::ffff:127.0.0.1")


def is_rank(pid: int) -> bool:
    """A process running the simulation itself, not mpiexec or Hydra's proxy that started it."""
    try:
        program, *arguments = Path(f"/proc/{pid}/cmdline").read_text().split("\0")
    except (OSError, ValueError):
        return False
    return "hydrata.compute.simulation.simulate" in arguments and "mpiexec" not in program and "hydra" not in program


def mpi_loaded(pid: int) -> bool:
    return "libmpi" in Path(f"/proc/{pid}/maps").read_text()


@dataclass(frozen=True)
class TwoRankRun:
    rank_addresses: dict[int, set[str]]
    namespaces: set[str]
    interfaces: set[str]
    worker_addresses: set[str]
    worker_has_mpi: bool
    worker_had_mpi_after_the_build: bool


def two_rank_run(url: str, start_worker) -> TwoRankRun:
    """Build small_test on a real worker, start a two-rank run, and read its processes' sockets while it computes."""
    worker = start_worker()  # it builds the mesh, then runs the child under mpiexec
    _, key = make_grant(level="launch")
    model = small_test_model(url, key)
    with api(url, key) as http:
        scenario = http.post(
            f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "s", "resolution": 10, "duration": 6 * 3600}
        ).json()
        build = http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").json()["run"]["id"]
        deadline = time.monotonic() + 120
        while Run.objects.get(pk=build).status != RunStatus.BUILT:
            assert time.monotonic() < deadline, "the worker did not build the scenario"
            time.sleep(0.5)
        mpi_after_the_build = mpi_loaded(worker.process.pid)  # the build imported ANUGA in the worker
        run_id = http.post(f"/api/v2/anuga/scenarios/{scenario['id']}/run/", json={"ranks": 2}).json()["id"]

        ranks: list[int] = []
        deadline = time.monotonic() + 120
        while len(ranks) < 2:
            assert time.monotonic() < deadline, "the run's two ranks never started"
            child = Run.objects.get(pk=run_id).child_pid
            tree = process_tree(child) if child else []
            ranks = [pid for pid in tree if is_rank(pid)]
            time.sleep(0.2)
        time.sleep(3)  # past MPI_Init in both ranks
        launcher = Run.objects.get(pk=run_id).child_pid  # mpiexec, whose Hydra port every rank inherits
        seen = TwoRankRun(
            rank_addresses={pid: listening_addresses(pid) for pid in ranks},
            namespaces={network_namespace(pid) for pid in [launcher, *ranks]},
            interfaces={name for pid in [launcher, *ranks] for name in interfaces(pid)},
            worker_addresses=listening_addresses(worker.process.pid),
            worker_has_mpi=mpi_loaded(worker.process.pid),
            worker_had_mpi_after_the_build=mpi_after_the_build,
        )
        http.post(f"/api/v2/anuga/runs/{run_id}/cancel/")
    return seen


def ranks_listen_on_loopback_alone(seen: TwoRankRun) -> None:
    """Each rank listens (UCX's loopback transport), and on loopback alone, Hydra's control port aside."""
    assert len(seen.rank_addresses) == 2, seen.rank_addresses
    assert all(any(is_loopback(host) for host in found) for found in seen.rank_addresses.values()), seen
    own = {pid: found - HYDRA_CONTROL_PORT for pid, found in seen.rank_addresses.items()}
    assert all(is_loopback(host) for found in own.values() for host in found), seen.rank_addresses


def worker_stays_out_of_mpi(seen: TwoRankRun) -> None:
    assert not seen.worker_had_mpi_after_the_build
    assert not seen.worker_has_mpi and all(is_loopback(host) for host in seen.worker_addresses), seen


def test_a_two_rank_runs_ranks_listen_on_loopback_alone_and_the_worker_never_initialises_mpi(live_asgi, start_worker):
    seen = two_rank_run(live_asgi.url, start_worker)

    ranks_listen_on_loopback_alone(seen)
    # ... and Hydra's, which binds every interface, in a namespace of the run's own with loopback alone.
    assert seen.namespaces != {network_namespace(os.getpid())} and len(seen.namespaces) == 1, seen.namespaces
    assert seen.interfaces == {"lo"}, seen.interfaces
    worker_stays_out_of_mpi(seen)


def test_without_a_network_namespace_the_ranks_own_listeners_are_on_loopback_alone(
    live_asgi, start_worker, monkeypatch
):
    """HYDRATA_MPI_NETWORK_NAMESPACE=off, as on a machine that refuses unshare: the run shares the machine's
    network, so only UCX_NET_DEVICES=lo keeps the ranks' own listeners off it (Hydra's port is the known limit)."""
    monkeypatch.setenv("HYDRATA_MPI_NETWORK_NAMESPACE", "off")  # the worker process reads it at its start

    seen = two_rank_run(live_asgi.url, start_worker)

    assert seen.namespaces == {network_namespace(os.getpid())}, seen.namespaces
    assert seen.interfaces - {"lo"}, "the test machine has an interface besides loopback to listen on"
    ranks_listen_on_loopback_alone(seen)
    worker_stays_out_of_mpi(seen)
