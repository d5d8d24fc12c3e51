"""The worker's side of the simulation fork server (hydrata/compute/processes/fork_server.py, where why it is safe is
said): a serial run's child forked from a process that has already imported the simulation's modules, instead of a fresh
`python -m hydrata.compute.simulation.simulate` paying them again.

One server per worker process, started at its first serial run and kept for the next: `forked_child` hands back a
`ForkedChild`, which the run's watch treats as it treats a `subprocess.Popen`. It is used from the process's main
thread alone (where Celery's prefork and solo pools run their tasks): Linux ends a child with PR_SET_PDEATHSIG when
the *thread* that started it ends, and one server runs one child at a time. Elsewhere, or with
HYDRATA_FORK_SERVER off, or when the server cannot be started or has died, `forked_child` returns None and the run
starts its child by exec as before. Several ranks always go by mpiexec."""

import contextlib
import logging
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

from django.conf import settings

from hydrata.backends.local import SOURCE_ROOT, ChildLimits, child_environment
from hydrata.compute.processes.fork_server import receive, send
from hydrata.compute.processes.process_limits import die_with_parent

logger = logging.getLogger(__name__)

START_TIMEOUT_SECONDS = 120.0  # the server's imports, on a starved machine
ANSWER_TIMEOUT_SECONDS = 30.0


class ForkServerGone(Exception):
    """The server ended, or answered what it should not."""


class ForkedChild:
    """A child of the fork server, as the watch sees a Popen: pid, poll(), wait(), terminate(), kill() and
    returncode; and its own CPU seconds, which the worker's RUSAGE_CHILDREN does not count (it is not the worker's
    child). Signals go through the pidfd the server sent, so they reach this child even after its pid is free."""

    def __init__(self, server: "ForkServer", pid: int, pidfd: int) -> None:
        self.server, self.pid, self.pidfd = server, pid, pidfd
        self.returncode: int | None = None
        self.cpu_seconds = 0.0

    def poll(self) -> int | None:
        if self.returncode is None:
            self._ended(timeout=0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self._ended(timeout=timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(["fork server child", str(self.pid)], timeout or 0.0)
        return self.returncode

    def send_signal(self, number: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self.pidfd, number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def exit_descriptor(self) -> int:
        """A descriptor readable once the server has word of the child's end (the caller closes it)."""
        return os.dup(self.server.connection.fileno())

    def _ended(self, *, timeout: float | None) -> bool:
        """Read the server's word that the child ended, waiting at most `timeout` seconds (None: as long as it
        takes). A server that died with its child says nothing: the child is then reported killed."""
        connection = self.server.connection
        readable, _, _ = select.select([connection], [], [], timeout)
        if not readable:
            return False
        try:
            answer, fds = receive(connection)
            for fd in fds:
                os.close(fd)
        except (EOFError, OSError, ValueError):
            self.server.close()
            answer = {"returncode": -signal.SIGKILL, "cpu_seconds": 0.0}
        self.returncode = int(answer["returncode"])
        self.cpu_seconds = float(answer.get("cpu_seconds", 0.0))
        os.close(self.pidfd)
        self.server.busy = False
        return True


class ForkServer:
    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self.process = subprocess.Popen(  # noqa: S603  (this interpreter and a module of ours)
                [sys.executable, "-m", "hydrata.compute.processes.fork_server", str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                env=child_environment(threads=1),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                cwd=SOURCE_ROOT,
                preexec_fn=die_with_parent,
            )
        self.connection = ours
        self.busy = False

    def fork(
        self, *, arguments: list[str], cwd: Path, env: dict[str, str], limits: ChildLimits, stderr: int
    ) -> ForkedChild:
        request = {
            "arguments": arguments,
            "cwd": str(cwd),
            "env": env,
            "limits": limits.process_limits(),
        }
        try:
            send(self.connection, request, fds=[stderr])
            answer, fds = receive(self.connection, timeout=START_TIMEOUT_SECONDS)
        except (EOFError, OSError, ValueError) as error:
            raise ForkServerGone(str(error)) from error
        if "pid" not in answer or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            raise ForkServerGone(str(answer.get("error", "no child")))
        self.busy = True
        return ForkedChild(self, int(answer["pid"]), fds[0])

    def alive(self) -> bool:
        return self.process.poll() is None and self.connection.fileno() >= 0

    def close(self) -> None:
        self.connection.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=ANSWER_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


_server: dict[int, ForkServer] = {}  # by process id: a forked worker process never uses its parent's server


def forked_child(
    *, arguments: list[str], cwd: Path, env: dict[str, str], limits: ChildLimits, stderr: int
) -> ForkedChild | None:
    """The run's serial child, forked by this process's fork server; None when the run should start its child by
    exec instead (off, not the main thread, or no server to be had)."""
    if not settings.HYDRATA_FORK_SERVER or threading.current_thread() is not threading.main_thread():
        return None
    for attempt in (1, 2):  # a server that has died since the last run is started afresh, once
        server = _server.get(os.getpid())
        if server is None or not server.alive() or server.busy:
            if server is not None:
                server.close()
            try:
                server = _server[os.getpid()] = ForkServer()
            except OSError as error:
                logger.warning("No simulation fork server (%s): children start by exec", error)
                return None
        try:
            return server.fork(arguments=arguments, cwd=cwd, env=env, limits=limits, stderr=stderr)
        except ForkServerGone as error:
            server.close()
            del _server[os.getpid()]
            if attempt == 2:
                logger.warning("The simulation fork server failed (%s): this run's child starts by exec", error)
    return None


def close_fork_server() -> None:
    """End this process's fork server, if it has one (a worker process that shuts down ends its own; it would
    also end with the process, by PR_SET_PDEATHSIG)."""
    server = _server.pop(os.getpid(), None)
    if server is not None:
        server.close()


def fork_server_pid() -> int | None:
    """The pid of this process's fork server, while it runs."""
    server = _server.get(os.getpid())
    return server.process.pid if server is not None and server.alive() else None
