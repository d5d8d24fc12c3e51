"""The simulation child's resource limits are set in one place (hydrata/compute/processes/process_limits.py), whether a
worker starts the child or a compute node's remote_run does: each child reads its own limits back from /proc."""

import re
import subprocess
import sys
from collections.abc import Callable

from hydrata.compute.processes.process_limits import CPU_HARD_GRACE_SECONDS, child_preexec
from hydrata.compute.processes.remote_run import child_limits

LIMIT_LINE = re.compile(r"^(?P<name>Max [a-z ]+?)\s{2,}(?P<soft>\S+)\s+(?P<hard>\S+)", re.MULTILINE)
LIMITS = {"cpu_seconds": 600, "address_space_bytes": 4 << 30, "file_bytes": 1 << 30}


def limits_in(preexec: Callable[[], None]) -> dict[str, tuple[str, str]]:
    """What a child started with `preexec` reads in its own /proc/self/limits: name -> (soft, hard)."""
    shown = subprocess.run(
        [sys.executable, "-c", "print(open('/proc/self/limits').read())"],
        preexec_fn=preexec,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {found["name"]: (found["soft"], found["hard"]) for found in LIMIT_LINE.finditer(shown)}


def test_the_child_takes_on_the_cpu_memory_and_file_limits_and_writes_no_core_file():
    limits = limits_in(child_preexec(**LIMITS))

    assert limits["Max cpu time"] == ("600", str(600 + CPU_HARD_GRACE_SECONDS))
    assert limits["Max address space"] == (str(4 << 30), str(4 << 30))
    assert limits["Max file size"] == (str(1 << 30), str(1 << 30))
    assert limits["Max core file size"] == ("0", "0")


def test_a_limit_of_zero_leaves_that_resource_as_it_was():
    unlimited = limits_in(lambda: None)

    limits = limits_in(child_preexec(cpu_seconds=0, address_space_bytes=0, file_bytes=0))

    for name in ("Max cpu time", "Max address space", "Max file size"):
        assert limits[name] == unlimited[name], name
    assert limits["Max core file size"] == ("0", "0")


def test_a_compute_nodes_child_gets_the_same_limits_from_its_spec_as_a_workers_child():
    assert limits_in(child_limits(LIMITS)) == limits_in(child_preexec(**LIMITS))
