"""A design study's wall time with 1 worker and with 2 (each one solo process, 1 ANUGA thread): the speedup of
running its members as separate Celery tasks on every worker.

For each worker count, on a fresh throwaway stack (benchmarks/run_overhead.py's Stack: uvicorn serving
config.asgi:application and the workers, a throwaway HYDRATA_VAR_DIR), this script arranges small_test through the
REST API with a launch key (project, terrain, layers, a scenario of --duration seconds and its build), uploads the
synthetic ARR inputs (tests/data/arr), makes a study of --aeps x --durations x the file's ten patterns (30 members
by default), starts it and polls it until complete. It reports the wall time from the start's POST to the first
answer that says complete (the members and the envelopes), the members' own span (the first member's start to the
last member's end, from their runs), and the speedup of 2 workers over 1.

    .venv/bin/python benchmarks/design_study.py [--workers 1 2] [--duration S] [--aeps 1% 10% 63.2%]
                                                [--durations 10] [--keep]

Run it on an otherwise idle machine with at least as many cores as workers: two workers on a busy machine share its
cores with everything else, and the speedup measures the load rather than the platform.

--overhead measures instead what a member costs beyond its evolve loop (issue 29's goal: at most 2 s), on one
worker: a study of --aeps x --durations x 10 patterns (by default one AEP and one duration: 10 members), then, per
member, the phases its run's log records (the simulation child's `Phases` line, hydrata/compute/simulation/simulate.py,
and the worker's around it, hydrata/anuga/services/simulation.py), the worker-side rest (its run's started_at to
finished_at less those), the gap to the next member on the same worker (the study's advance task and Celery's next
delivery), and the worker process's own CPU per member from /proc over the members' span. Wall and CPU seconds, medians
over the members, with the load average: CPU seconds are what the platform spends whatever the machine's load.

    .venv/bin/python benchmarks/design_study.py --overhead [--duration S] [--aeps 1%] [--durations 10]
"""

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import sys
import time
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.run_overhead import (  # noqa: E402
    PROJECTS,
    SMALL_TEST,
    Stack,
    built_scenario,
    data_set,
    ok,
    wait_for,
)
from hydrata.compute.simulation.phase_clock import CHILD_PHASES_LINE, WORKER_PHASES_LINE  # noqa: E402
from tests.processes import celery_worker_command  # noqa: E402

ARR = ROOT / "tests" / "data" / "arr"
INPUTS = {"ifd": "Synthetic_IFD_Depths.csv", "temporal_patterns": "Synthetic_Increments.csv"}
FINISHED = ("complete", "error", "cancelled")


@dataclass(frozen=True)
class Measured:
    workers: int
    members: int
    wall_s: float
    members_span_s: float
    member_median_s: float
    status: str


class StudyStack(Stack):
    """run_overhead's stack with `workers` Celery workers, each its own solo process."""

    def __init__(self, *, workers: int) -> None:
        super().__init__(threads=1)
        self.workers = workers

    def start(self) -> None:
        super().start()  # the server and the first worker
        for number in range(1, self.workers):
            log = self.var / f"worker-{number}.log"
            self.spawn(celery_worker_command(f"bench{number}@{socket.gethostname()}", "--without-heartbeat"), log=log)
            deadline = time.monotonic() + 60
            while "ready." not in log.read_text(errors="replace"):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"worker {number} did not start; see {log}")
                time.sleep(0.2)


def measure(stack: StudyStack, *, duration: int, aeps: list[str], durations: list[int]) -> Measured:
    stack.start()
    with httpx.Client(base_url=stack.origin, headers={"Authorization": f"Bearer {stack.key}"}, timeout=120) as http:
        path = created_study(http, duration=duration, aeps=aeps, durations=durations)
        started = time.perf_counter()
        ok(http.post(f"{path}start/"), 202)
        final = wait_for(
            lambda: ok(http.get(path), 200),
            lambda s: s["status"] in FINISHED,
            seconds=24 * 3600,
            what="the study",
            interval=1.0,
        )
        wall = time.perf_counter() - started
        runs = [ok(http.get(f"/api/v2/anuga/runs/{m['run']}/"), 200) for m in final["members"]]
    return Measured(
        workers=stack.workers,
        members=len(runs),
        wall_s=wall,
        members_span_s=_span(runs),
        member_median_s=_median([_seconds(run["started_at"], run["finished_at"]) for run in runs]),
        status=final["status"],
    )


def created_study(http: httpx.Client, *, duration: int, aeps: list[str], durations: list[int]) -> str:
    """small_test arranged and built through the REST API, the synthetic ARR inputs uploaded and a study made of
    them; returns the study's path."""
    scenario, _ = built_scenario(http, replace(data_set("small_test", SMALL_TEST), duration=duration))
    project = f"{PROJECTS}{scenario['project']}/"
    inputs = {
        kind: ok(http.post(f"{project}design-inputs/", json={"kind": kind, "content": (ARR / name).read_text()}), 201)[
            "id"
        ]
        for kind, name in INPUTS.items()
    }
    study = ok(
        http.post(
            f"{project}design-studies/",
            json={
                "name": "benchmark",
                "base_scenario": scenario["id"],
                **inputs,
                "aeps": aeps,
                "durations_min": durations,
                "initial_loss_mm": 10,
                "continuing_loss_mm_h": 2,
            },
        ),
        201,
    )
    return f"{project}design-studies/{study['id']}/"


# --- --overhead: a member's cost beyond its evolve loop ---------------------------------------------------------


def process_cpu_seconds(pid: int) -> float:
    """A process's own CPU (user + system, not its children's), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def logged_phases(run: dict[str, Any], marker: str) -> dict[str, list[float]]:
    found = [line.split(marker, 1)[1] for line in run["log_tail"] if marker in line]
    if not found:
        raise RuntimeError(f"run {run['id']} logged no {marker.strip()!r} line: {run['log_tail'][-5:]}")
    return json.loads(found[-1])


@dataclass(frozen=True)
class MemberCost:
    """One member's seconds as [wall, CPU] per component; `evolve` is what is not overhead."""

    run_id: int
    parts: dict[str, list[float]]
    evolve: list[float]

    def overhead(self, which: int) -> float:
        return sum(value[which] for value in self.parts.values())


def member_costs(runs: list[dict[str, Any]], *, worker_cpu_per_member: float) -> list[MemberCost]:
    ordered = sorted(runs, key=lambda run: run["started_at"])
    costs = []
    for index, run in enumerate(ordered):
        child, worker = logged_phases(run, CHILD_PHASES_LINE), logged_phases(run, WORKER_PHASES_LINE)
        evolve = child.pop("evolve")
        child_wall = worker["watch"][0]
        inside = sum(wall for wall, _ in child.values())
        parts = {f"child: {name}": value for name, value in child.items()}
        parts["child: exit, after its last line"] = [child_wall - inside - evolve[0], 0.0]
        parts["child: CPU not in its phases (exit)"] = [
            0.0,
            worker["child"][1] - sum(cpu for _, cpu in child.values()) - evolve[1],
        ]
        parts["worker: package download"] = [worker["package_download"][0], 0.0]
        parts["worker: results upload"] = [worker["results_upload"][0], 0.0]
        worker_side = _seconds(run["started_at"], run["finished_at"])
        accounted = worker["package_download"][0] + child_wall + worker["results_upload"][0]
        parts["worker: task start, DB updates, the rest"] = [worker_side - accounted, 0.0]
        after = ordered[index + 1] if index + 1 < len(ordered) else None
        gap = _seconds(run["finished_at"], after["started_at"]) if after else float("nan")
        parts["worker: to the next member (advance task, Celery)"] = [gap, 0.0]
        parts["worker process CPU (all of the above on its side)"] = [0.0, worker_cpu_per_member]
        costs.append(MemberCost(run_id=run["id"], parts=parts, evolve=evolve))
    return costs


def overhead_report(costs: list[MemberCost], *, loads: list[tuple[float, float, float]], settling: float) -> str:
    def median(values: list[float]) -> float:
        values = [value for value in values if value == value]  # the last member has no gap
        return statistics.median(values) if values else float("nan")

    names = list(costs[0].parts)
    lines = [
        f"{len(costs)} members on 1 worker (solo pool, 1 ANUGA thread); medians over the members, seconds",
        "",
        "| component | wall | CPU |",
        "|---|---:|---:|",
    ]
    for name in names:
        wall = median([cost.parts[name][0] for cost in costs if name in cost.parts])
        cpu = median([cost.parts[name][1] for cost in costs if name in cost.parts])
        lines.append(f"| {name} | {wall:.3f} | {cpu:.3f} |")
    overhead_wall = median([cost.overhead(0) for cost in costs[:-1]] or [cost.overhead(0) for cost in costs])
    lines += [
        f"| **beyond the evolve loop** | **{overhead_wall:.2f}** | **{median([c.overhead(1) for c in costs]):.2f}** |",
        f"| the evolve loop (not overhead) | {median([c.evolve[0] for c in costs]):.2f} | "
        f"{median([c.evolve[1] for c in costs]):.2f} |",
        "",
        f"Once a study, not per member: from the last member's end to the study leaving `running` (its advance task, "
        f"Celery's delivery, this script's poll every 0.2 s), {settling:.2f} s wall.",
        "load averages (1, 5, 15 min) at the start and the end: " + "; ".join(_load(load) for load in loads),
    ]
    return "\n".join(lines)


def _load(load: tuple[float, float, float]) -> str:
    return " / ".join(f"{value:.2f}" for value in load)


def measure_overhead(stack: StudyStack, *, duration: int, aeps: list[str], durations: list[int]) -> str:
    stack.start()
    worker_pid = stack.processes[1].pid  # the Stack's second process is its first worker
    with httpx.Client(base_url=stack.origin, headers={"Authorization": f"Bearer {stack.key}"}, timeout=120) as http:
        path = created_study(http, duration=duration, aeps=aeps, durations=durations)
        loads = [os.getloadavg()]
        worker_cpu = process_cpu_seconds(worker_pid)
        ok(http.post(f"{path}start/"), 202)
        wait_for(
            lambda: ok(http.get(path), 200),
            lambda s: s["status"] != "running",
            seconds=24 * 3600,
            what="the members",
            interval=0.2,
        )
        worker_cpu = process_cpu_seconds(worker_pid) - worker_cpu
        left_running = datetime.now().astimezone()
        loads.append(os.getloadavg())
        final = wait_for(
            lambda: ok(http.get(path), 200), lambda s: s["status"] in FINISHED, seconds=3600, what="the study"
        )
        runs = [ok(http.get(f"/api/v2/anuga/runs/{m['run']}/"), 200) for m in final["members"]]
    (stack.var / "member_runs.json").write_text(json.dumps(runs))  # kept with --keep: the report again, offline
    incomplete = [run["id"] for run in runs if run["status"] != "complete"]
    if incomplete:
        raise RuntimeError(f"members' runs {incomplete} did not complete")
    settling = (left_running - max(_moment(run["finished_at"]) for run in runs)).total_seconds()
    costs = member_costs(runs, worker_cpu_per_member=worker_cpu / len(runs))
    return overhead_report(costs, loads=loads, settling=settling)


def _moment(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _seconds(start: str | None, end: str | None) -> float:
    return (_moment(end) - _moment(start)).total_seconds() if start and end else float("nan")


def _span(runs: list[dict[str, Any]]) -> float:
    starts = [_moment(run["started_at"]) for run in runs if run.get("started_at")]
    ends = [_moment(run["finished_at"]) for run in runs if run.get("finished_at")]
    return (max(ends) - min(starts)).total_seconds() if starts and ends else float("nan")


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def report(results: list[Measured]) -> str:
    lines = [
        "| workers (1 thread each) | members | wall, start to envelopes (s) | members' span (s) | "
        "median member (s) | speedup (wall) | speedup (span) |",
        "|---|---|---|---|---|---|---|",
    ]
    one = next((r for r in results if r.workers == 1), None)
    for result in results:
        speedup = f"{one.wall_s / result.wall_s:.2f}" if one else "n/a"
        span = f"{one.members_span_s / result.members_span_s:.2f}" if one else "n/a"
        lines.append(
            f"| {result.workers} | {result.members} | {result.wall_s:.1f} | {result.members_span_s:.1f} | "
            f"{result.member_median_s:.1f} | {speedup} | {span} |"
        )
    return "\n".join(lines)


def _terminated(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def overhead(options: argparse.Namespace) -> None:
    stack = StudyStack(workers=1)
    try:
        print(measure_overhead(stack, duration=options.duration, aeps=options.aeps, durations=options.durations))
    finally:
        stack.stop()
        if not options.keep:
            shutil.rmtree(stack.var, ignore_errors=True)
    print(f"\ncommand: {' '.join([Path(sys.executable).name, *sys.argv])}; load at the end {os.getloadavg()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--duration", type=int, default=600, help="the base scenario's simulated seconds")
    parser.add_argument("--aeps", nargs="+", default=None, help="default: 1%% 10%% 63.2%% (--overhead: 1%%)")
    parser.add_argument("--durations", type=int, nargs="+", default=[10], help="storm durations, minutes")
    parser.add_argument("--keep", action="store_true", help="keep each throwaway var dir")
    parser.add_argument(
        "--overhead", action="store_true", help="one worker: what each member costs beyond its evolve loop"
    )
    options = parser.parse_args()
    signal.signal(signal.SIGTERM, _terminated)
    print(f"cores {os.cpu_count()}; load {os.getloadavg()}", flush=True)
    options.aeps = options.aeps or (["1%"] if options.overhead else ["1%", "10%", "63.2%"])
    if options.overhead:
        overhead(options)
        return
    results = []
    for workers in options.workers:
        stack = StudyStack(workers=workers)
        try:
            result = measure(stack, duration=options.duration, aeps=options.aeps, durations=options.durations)
            results.append(result)
            print(result, flush=True)
        finally:
            stack.stop()
            if not options.keep:
                shutil.rmtree(stack.var, ignore_errors=True)
    print()
    print(report(results))
    print(f"\ncommand: {' '.join([Path(sys.executable).name, *sys.argv])}; load at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
