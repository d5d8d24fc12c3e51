"""The resource limits of a simulation child, set between fork and exec wherever it is started: by a worker
(hydrata/backends/local.py) or on a compute node that shares nothing with the platform
(hydrata/compute/processes/remote_run.py). No Django: the compute node has none."""

import resource
import signal
from collections.abc import Callable

CPU_HARD_GRACE_SECONDS = 10  # SIGXCPU at the soft limit; SIGKILL this much later if the child survives it


def child_preexec(*, cpu_seconds: int, address_space_bytes: int, file_bytes: int) -> Callable[[], None]:
    """What runs in the child between fork and exec: die with the process that started it, then take on the
    limits. A limit of 0 is no limit; a core file is never written."""

    def setup() -> None:
        die_with_parent()
        lower_limit(resource.RLIMIT_CORE, 0)  # a child killed by a limit leaves no core file in the output
        if cpu_seconds:
            lower_limit(resource.RLIMIT_CPU, cpu_seconds, hard=cpu_seconds + CPU_HARD_GRACE_SECONDS)
        if address_space_bytes:
            lower_limit(resource.RLIMIT_AS, address_space_bytes)
        if file_bytes:
            lower_limit(resource.RLIMIT_FSIZE, file_bytes)

    return setup


def lower_limit(kind: int, soft: int, *, hard: int | None = None) -> None:
    """Set a limit, never above the hard limit already in force (raising it would fail)."""
    _, current_hard = resource.getrlimit(kind)
    hard = soft if hard is None else hard
    if current_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, current_hard), min(hard, current_hard)
    resource.setrlimit(kind, (soft, hard))


def die_with_parent() -> None:
    """Ask Linux to SIGTERM this process when the one that started it dies, so that no child computes orphaned."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass
