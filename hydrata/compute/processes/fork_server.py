"""A fork server for serial simulation children: a process that has imported the simulation's modules once (numpy,
rasterio, scipy, matplotlib, ANUGA and hydrata.compute's) and forks a child for each run, so that no run pays
those imports again (about 1.2 s of a design-study member's 1.8 s beyond its evolve loop,
benchmarks/design_study.py --overhead). The worker's side is hydrata/backends/fork_server.py.

    python -m hydrata.compute.processes.fork_server FD      (FD: this end of a SOCK_SEQPACKET socket pair, inherited)

Why forking here is safe, where forking the worker is not:
- It is started fresh by exec, with the simulation child's allow-listed environment: it never held the worker's
  broker or database connections, credentials or Celery state, so a child has none to share or corrupt.
- It imports the simulation's modules with mpi4py's MPI barred (a serial child never needs MPI), and runs nothing:
  no OpenMP parallel region, no thread. It checks that it is one thread before every fork and ends, so that the
  worker goes back to exec, if ever it is not. OpenMP's runtime is loaded but starts its threads in the child, at
  the child's first parallel region, with the child's own thread count (simulate sets it at run time).
- It talks to its worker over the socket pair it was given and nothing else: no listening socket, no path. A child
  closes the server's end first. It dies with its worker, and each child with it (PR_SET_PDEATHSIG).

The protocol, one datagram each: the worker sends {"arguments", "cwd", "env", "limits"} with the child's stderr as
an SCM_RIGHTS descriptor; the server forks, and answers {"pid"} with a pidfd of the child (so the worker signals
that very process, never a recycled pid); when the child ends, {"returncode", "cpu_seconds"} (Popen's returncode:
minus the signal that ended it). Then the next request. A child runs `hydrata.compute.simulation.simulate.main` exactly
as
`python -m hydrata.compute.simulation.simulate` would, under the limits a child of the worker gets (process_limits.py).

No Django."""

import array
import contextlib
import json
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

MESSAGE_BYTES = 1 << 20
ONE_THREAD = "Threads:\t1"


def preload() -> None:
    """Import everything a simulation child imports, with mpi4py's MPI barred."""
    sys.modules.setdefault("mpi4py.MPI", None)  # type: ignore[arg-type]  # `from mpi4py import MPI`: ImportError
    import hydrata.compute.outputs.depth_frames
    import hydrata.compute.outputs.results
    import hydrata.compute.outputs.run_statistics
    import hydrata.compute.scenario.package
    import hydrata.compute.simulation.boundary_edges
    import hydrata.compute.simulation.culverts
    import hydrata.compute.simulation.forcing
    import hydrata.compute.simulation.health
    import hydrata.compute.simulation.losses
    import hydrata.compute.simulation.peaks
    import hydrata.compute.simulation.recording
    import hydrata.compute.simulation.simulate
    import hydrata.compute.simulation.solver
    import hydrata.compute.simulation.structures
    import hydrata.compute.simulation.water_state
    import hydrata.compute.simulation.weirs

    hydrata.compute.simulation.forcing.import_anuga()


def one_thread() -> bool:
    return any(line == ONE_THREAD for line in Path("/proc/self/status").read_text().splitlines())


def serve(connection: socket.socket) -> None:
    """Fork a child for each request, until the worker closes its end."""
    while True:
        try:
            request, fds = receive(connection)
        except EOFError:
            return
        if not one_thread():
            send(connection, {"error": "the fork server is not single-threaded"})
            return
        pid = os.fork()
        if pid == 0:
            run_child(connection, request, fds)  # never returns
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        try:
            send(connection, {"pid": pid}, fds=[pidfd])
        finally:
            os.close(pidfd)
        _, status, usage = os.wait4(pid, 0)
        send(
            connection,
            {"returncode": os.waitstatus_to_exitcode(status), "cpu_seconds": usage.ru_utime + usage.ru_stime},
        )


def run_child(connection: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    """In the forked child: become what `python -m hydrata.compute.simulation.simulate ARGUMENTS` run by the worker
    would be, run it, and end without returning into the server's loop."""
    code = 1
    try:
        connection.close()
        from hydrata.compute.processes.process_limits import child_preexec
        from hydrata.compute.simulation import simulate

        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE):
            signal.signal(number, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(fds[0], 2)
        os.close(null)
        os.close(fds[0])
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        child_preexec(**request["limits"])()
        code = simulate.main(list(request["arguments"]))
    except SystemExit as stop:  # a bad command line: argparse's exit, as `python -m` would end
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:  # whatever happens, the child must never return into the server's loop
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def send(connection: socket.socket, message: dict[str, Any], *, fds: list[int] | None = None) -> None:
    payload = json.dumps(message).encode()
    if fds:
        connection.sendmsg([payload], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    else:
        connection.send(payload)


def receive(connection: socket.socket, *, timeout: float | None = None) -> tuple[dict[str, Any], list[int]]:
    """One message and the descriptors sent with it; EOFError once the other end has closed."""
    connection.settimeout(timeout)
    payload, fds, _, _ = socket.recv_fds(connection, MESSAGE_BYTES, 4)
    if not payload:
        for fd in fds:
            os.close(fd)
        raise EOFError
    return json.loads(payload), fds


def main(argv: list[str]) -> int:
    connection = socket.socket(fileno=int(argv[0]))
    from hydrata.compute.processes.process_limits import die_with_parent

    die_with_parent()
    preload()
    serve(connection)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
