"""Wall and CPU seconds per phase of a run, for its log: the simulation child's phases
(hydrata/compute/simulation/simulate.py) and the worker's around it (hydrata/anuga/services/simulation.py).
benchmarks/design_study.py --overhead reads both lines back from a run's log."""

import json
import os
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path

CHILD_PHASES_LINE = "Phases (wall s, CPU s): "
WORKER_PHASES_LINE = "[hydrata worker] Worker phases (wall s, CPU s): "  # never contains the child's


@dataclass
class PhaseClock:
    """`mark(phase)` adds the wall and CPU seconds since the last mark (or the clock's making) to `phase`."""

    phases: dict[str, list[float]] = field(default_factory=dict)
    last_wall: float = field(default_factory=time.monotonic)
    last_cpu: float = field(default_factory=time.process_time)

    def mark(self, phase: str) -> None:
        wall, cpu = time.monotonic(), time.process_time()
        self.add(phase, wall=wall - self.last_wall, cpu=cpu - self.last_cpu)
        self.last_wall, self.last_cpu = wall, cpu

    def add(self, phase: str, *, wall: float, cpu: float) -> None:
        """Seconds measured some other way: a child process's, or the process's own start."""
        spent = self.phases.setdefault(phase, [0.0, 0.0])
        spent[0] += wall
        spent[1] += cpu

    def as_json(self) -> str:
        return json.dumps({name: [round(wall, 3), round(cpu, 3)] for name, (wall, cpu) in self.phases.items()})


def seconds_since_process_start() -> float:
    """How long ago this process was forked (Linux: its start time in /proc, in clock ticks since boot)."""
    start_ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))


def children_cpu_seconds() -> float:
    """The CPU seconds of every child this process has waited for (and of their children they waited for)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
