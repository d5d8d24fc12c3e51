"""What the simulation child is given: an allow-listed environment and resource limits, how it is launched (alone,
or under mpiexec over several ranks), and how a limit it ran into, or a rank that died, is told from its exit.

The child runs untrusted model inputs, so it gets nothing of the worker's configuration (database, broker,
storage and error-reporting credentials) and bounded CPU time, wall-clock time, memory and file sizes.
"""

import functools
import logging
import math
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from celery import current_app
from django.conf import settings

import hydrata
from hydrata.anuga.models import Run
from hydrata.anuga.selectors.runs import run_outputs, run_vcpu_hours
from hydrata.compute.processes.process_limits import child_preexec

CHILD_ENV_NAMES = frozenset(
    {"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "LD_LIBRARY_PATH", "GDAL_DATA", "PROJ_DATA", "PROJ_LIB"}
)
THREAD_ENV_NAMES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
# The child imports hydrata.compute from the same source tree as this worker, wherever that is installed.
SOURCE_ROOT = Path(hydrata.__file__).resolve().parent.parent
TASK_LIMIT_HEADROOM_SECONDS = 30  # the wall-clock limit stops the child before the Celery task limit fires
LIMIT_HINT = (
    "The run needed far more than its estimate. Check the resolution, mesh regions and duration, or ask "
    "the platform's operator to raise the run limits."
)


logger = logging.getLogger(__name__)

# MPICH's Hydra (the mpiexec of the mpich wheel, installed next to the interpreter) reports a rank that ended badly
# on its standard output: "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)".
# Rest of the line, stripped after: a lazy match before a trailing \s*$ is quadratic on a line of spaces.
HYDRA_EXIT_STRING = re.compile(r"TERMINATED WITH THE EXIT STRING:(?P<reason>[^\n]*)")
HYDRA_SIGNAL = re.compile(r"\(signal (?P<number>\d+)\)")
HYDRA_PID = re.compile(r"PID (?P<pid>\d+) RUNNING AT")
# The ranks of a run are on this machine: MPICH's UCX netmod (the wheel's default) listens on loopback alone, not on
# every address of the machine. (Hydra's own control port still binds every interface; see the security model.)
MPI_LOOPBACK_ENV = {"UCX_NET_DEVICES": "lo"}


@dataclass(frozen=True)
class ChildLimits:
    cpu_seconds: int
    wall_seconds: int
    address_space_bytes: int  # 0: no limit
    file_bytes: int  # 0: no limit

    def process_limits(self) -> dict[str, int]:
        """What the child's process takes on itself (process_limits.child_preexec's arguments), wherever it is
        started: by exec, by the fork server or on a compute node. The wall clock is its watcher's."""
        return {
            "cpu_seconds": self.cpu_seconds,
            "address_space_bytes": self.address_space_bytes,
            "file_bytes": self.file_bytes,
        }


def child_limits(*, run: Run) -> ChildLimits:
    """CPU and wall-clock time from the run's estimate times the margin (never below the floors); the rest fixed.
    The CPU limit is per process, so each of several ranks gets its share of the run's CPU time."""
    allowed = math.ceil(run_vcpu_hours(run=run) * 3600 * settings.HYDRATA_RUN_LIMIT_MARGIN)
    task_limit = settings.HYDRATA_TASK_TIME_LIMITS["run_simulation"] - TASK_LIMIT_HEADROOM_SECONDS
    return ChildLimits(
        cpu_seconds=max(settings.HYDRATA_RUN_MIN_CPU_SECONDS, math.ceil(allowed / max(run.ranks, 1))),
        wall_seconds=min(max(settings.HYDRATA_RUN_MIN_WALL_SECONDS, allowed), task_limit),
        address_space_bytes=settings.HYDRATA_RUN_MAX_ADDRESS_SPACE_BYTES,
        file_bytes=settings.HYDRATA_RUN_MAX_FILE_BYTES,
    )


def simulation_threads() -> int:
    """OpenMP threads of one simulation: HYDRATA_ANUGA_THREADS when set; else the machine's cores shared out between
    the worker's pool slots (config/celery.py records the pool's size as the worker starts; one slot outside a
    worker), so that slots x threads never exceed the cores."""
    if settings.HYDRATA_ANUGA_THREADS > 0:
        return settings.HYDRATA_ANUGA_THREADS
    slots = current_app.conf.get("hydrata_pool_size") or 1
    return max(1, (os.cpu_count() or 1) // slots)


def threads_per_rank(*, ranks: int) -> int:
    """The simulation's threads shared out between the run's ranks, at least one each."""
    return max(1, simulation_threads() // max(ranks, 1))


def child_arguments(*, run: Run, threads: int) -> list[str]:
    """The simulation's options after its package and output folders, wherever it runs."""
    arguments = ["--threads", str(threads), "--depth-frames", str(settings.HYDRATA_RUN_DEPTH_FRAMES)]
    arguments += ["--outputs", run_outputs(run=run).value]
    if settings.HYDRATA_RUN_YIELD_SECONDS > 0:
        arguments += ["--yield-seconds", str(settings.HYDRATA_RUN_YIELD_SECONDS)]
    return arguments


def child_command(*, ranks: int, arguments: list[str]) -> list[str]:
    """`python -m hydrata.compute.simulation.simulate ...`, under mpiexec when the run has several ranks, and then in a
    network namespace of its own with loopback alone where this machine allows one (`loopback_namespace`)."""
    command = [sys.executable, "-m", "hydrata.compute.simulation.simulate", *arguments]
    if ranks == 1:
        return command
    launcher = mpiexec(python=Path(sys.executable), ranks=ranks)
    if loopback_namespace():
        launcher = [*LOOPBACK_NAMESPACE, sys.executable, "-m", "hydrata.compute.processes.loopback_exec", *launcher]
    return [*launcher, *command]


def mpiexec(*, python: Path, ranks: int) -> list[str]:
    """mpiexec from the MPI wheels beside `python` (this worker's interpreter, or a compute node's), for `ranks`
    processes; under Slurm it starts them across the job's allocation."""
    return [str(python.parent / "mpiexec"), "-n", str(ranks)]


# A user namespace (no privilege needed where the kernel allows unprivileged ones) holding a network namespace with
# only loopback: Hydra's control port, which binds every interface, then binds this run's loopback alone.
LOOPBACK_NAMESPACE = ["unshare", "--user", "--map-root-user", "--net", "--"]


@functools.cache
def loopback_namespace() -> bool:
    """Whether a multi-rank run goes into a network namespace with loopback alone: HYDRATA_MPI_NETWORK_NAMESPACE
    `auto` (the default) when `unshare` can make one here, tried once per process; `off` never."""
    if settings.HYDRATA_MPI_NETWORK_NAMESPACE == "off" or shutil.which(LOOPBACK_NAMESPACE[0]) is None:
        return False
    probe = [*LOOPBACK_NAMESPACE, sys.executable, "-m", "hydrata.compute.processes.loopback_exec", "true"]
    try:
        made = subprocess.run(  # noqa: S603  (a fixed command: unshare and this interpreter)
            probe, capture_output=True, timeout=30, check=False, env=child_environment(threads=1)
        )
    except (OSError, subprocess.SubprocessError):
        return False
    if made.returncode != 0:
        logger.warning(
            "No network namespace for MPI runs (unshare exited %s): Hydra binds every interface",
            made.returncode,
        )
    return made.returncode == 0


def rank_failure(launcher_output: str, *, ranks: int) -> tuple[str, int | None] | None:
    """What mpiexec said of a rank that ended badly (its exit string, and the signal that ended it, if one did);
    None when it said nothing of the kind."""
    found = HYDRA_EXIT_STRING.search(launcher_output)
    if not found:
        return None
    reason = found.group("reason").strip()
    pid = HYDRA_PID.search(launcher_output)
    which = f" (process {pid.group('pid')})" if pid else ""
    number = HYDRA_SIGNAL.search(reason)
    message = (
        f"One of the run's {ranks} MPI ranks{which} ended unexpectedly: {reason}. mpiexec stopped every other rank."
    )
    return message, int(number.group("number")) if number else None


def child_environment(*, threads: int) -> dict[str, str]:
    """An allow-list, so a variable added to the worker's environment tomorrow never reaches the child."""
    env = {name: value for name, value in os.environ.items() if name in CHILD_ENV_NAMES or name.startswith("LC_")}
    env |= {name: str(threads) for name in THREAD_ENV_NAMES}
    env["PYTHONPATH"] = str(SOURCE_ROOT)
    # Under its file-size limit a byte-code write is cut short without an error, and Python would rename the
    # truncated .pyc into the shared __pycache__ for every later process to fail on.
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env |= MPI_LOOPBACK_ENV
    return env


def child_setup(limits: ChildLimits) -> Callable[[], None]:
    """What runs in the child between fork and exec: die with the worker, then take on the limits (the same
    function a compute node's remote_run uses, so one place sets them)."""
    return child_preexec(**limits.process_limits())


def limit_exceeded(
    *, limits: ChildLimits, returncode: int | None, timed_out: bool, last_progress: dict[str, Any]
) -> str | None:
    """The limit the child ran into, in a sentence; None when it ended for another reason."""
    margin = settings.HYDRATA_RUN_LIMIT_MARGIN
    if timed_out:
        return (
            f"The simulation ran past its wall-clock limit of {limits.wall_seconds} s (its estimate times "
            f"{margin:g}, at least {settings.HYDRATA_RUN_MIN_WALL_SECONDS} s) and was stopped."
        )
    if returncode == -signal.SIGXCPU:
        return (
            f"The simulation used up its CPU-time limit of {limits.cpu_seconds} s (its estimate times "
            f"{margin:g}, at least {settings.HYDRATA_RUN_MIN_CPU_SECONDS} s) and was stopped."
        )
    if returncode == -signal.SIGXFSZ:  # the child restores the signal's default action, which Python ignores
        return f"The simulation tried to write a file larger than its limit of {limits.file_bytes:,} bytes."
    if "MemoryError" in str(last_progress.get("error", "")):
        return (
            f"The simulation ran out of memory within its address-space limit of {limits.address_space_bytes:,} bytes."
        )
    return None
