"""Work on a user's file in a child process under limits, off the process that serves requests. No Django.

A parse that holds the interpreter (a regular expression backtracking, a quadratic loop) stops every thread of the
process it runs in: the review found one upload of a Data Hub file stopping the whole web process for minutes. The
readers are linear now (benchmarks/parsers.py), and this is the wall behind them: the web process hands the text to
a new Python process and waits on its pipe, holding no lock, so its other threads keep answering; the child has a
CPU-time limit, an address-space limit and no core file, and the parent a wall-clock limit after which it kills the
child. A process, not a worker: a design input is read while its request waits (the agent gets the refusal with
every bad row, or the stored input, in one call), it needs nothing a worker has, and a child costs a quarter of a
second. The limits are set by the child itself as it starts, not between fork and exec: the web process has
threads, and a preexec function is unsafe in a process with threads.

    call_bounded("hydrata.compute.arr.reading:design_input_read_json", {"kind": ..., "text": ...}, limits=...)

The function named takes and returns JSON values. A `CodedError` it raises comes back raised (its code, message and
extra); going over a limit raises `OverLimit` naming which; anything else is a RuntimeError (a bug, not the file).
"""

import importlib
import json
import os
import resource
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hydrata.compute.errors import CodedError
from hydrata.compute.processes.process_limits import CPU_HARD_GRACE_SECONDS, die_with_parent, lower_limit
from hydrata_contract.errors import ErrorCode

ROOT = Path(__file__).resolve().parents[3]  # where `hydrata` is imported from, for the child
MEMORY_EXIT = 3  # the child's exit status when its address space ran out (MemoryError)
# One thread for numpy's BLAS in the child: its thread stacks alone would use up a small address-space limit.
CHILD_ENVIRONMENT = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int  # SIGXCPU at this much CPU time
    wall_seconds: float  # killed by the parent after this long, whatever it did (stopped, starved of CPU)
    memory_bytes: int  # its address space


class OverLimit(Exception):
    """The child went over a limit: `limit` is "cpu", "memory" or "wall"."""

    def __init__(self, limit: str) -> None:
        super().__init__(f"the work went over its {limit} limit")
        self.limit = limit


def call_bounded(target: str, argument: Any, *, limits: Limits) -> Any:
    """`module:function` called with `argument` in a new Python process under `limits`; its JSON result."""
    command = [sys.executable, "-m", "hydrata.compute.processes.bounded", target, str(limits.cpu_seconds)]
    command.append(str(limits.memory_bytes))
    environment = {**os.environ, **CHILD_ENVIRONMENT, "PYTHONPATH": _python_path()}
    try:
        finished = subprocess.run(  # noqa: S603  # our interpreter and module; the file goes in on stdin
            command,
            input=json.dumps(argument, allow_nan=False).encode(),
            capture_output=True,
            timeout=limits.wall_seconds,
            cwd=ROOT,
            env=environment,
            check=False,
        )
    except subprocess.TimeoutExpired:  # run() has killed the child and waited for it
        raise OverLimit("wall") from None
    if finished.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise OverLimit("cpu")
    if finished.returncode == MEMORY_EXIT:
        raise OverLimit("memory")
    if finished.returncode != 0:
        tail = finished.stderr.decode(errors="replace")[-2000:]
        raise RuntimeError(f"{target} failed in its child process (exit {finished.returncode}): {tail}")
    answer = json.loads(finished.stdout)
    if "refused" in answer:
        refused = answer["refused"]
        raise CodedError(ErrorCode(refused["code"]), refused["message"], **refused["extra"])
    return answer["value"]


def _python_path() -> str:
    inherited = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join([str(ROOT), *([inherited] if inherited else [])])


def child_main(arguments: list[str]) -> int:
    """The child: take on the limits, read the argument from stdin, write the answer to stdout."""
    target, cpu_seconds, memory_bytes = arguments[0], int(arguments[1]), int(arguments[2])
    die_with_parent()
    lower_limit(resource.RLIMIT_CORE, 0)
    lower_limit(resource.RLIMIT_CPU, cpu_seconds, hard=cpu_seconds + CPU_HARD_GRACE_SECONDS)
    lower_limit(resource.RLIMIT_AS, memory_bytes)
    try:
        module, _, name = target.partition(":")
        function = getattr(importlib.import_module(module), name)
        argument = json.loads(sys.stdin.buffer.read())
        try:
            answer: dict[str, Any] = {"value": function(argument)}
        except CodedError as refused:
            answer = {"refused": {"code": str(refused.code), "message": refused.message, "extra": refused.extra}}
        sys.stdout.write(json.dumps(answer, allow_nan=False))
        sys.stdout.flush()
    except MemoryError:
        os._exit(MEMORY_EXIT)  # nothing more can be allocated, not even a traceback
    return 0


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))
