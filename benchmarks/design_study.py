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
"""

import argparse
import os
import shutil
import signal
import socket
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
        scenario, _ = built_scenario(http, replace(data_set("small_test", SMALL_TEST), duration=duration))
        project = f"{PROJECTS}{scenario['project']}/"
        inputs = {
            kind: ok(
                http.post(f"{project}design-inputs/", json={"kind": kind, "content": (ARR / name).read_text()}), 201
            )["id"]
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
        path = f"{project}design-studies/{study['id']}/"
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--duration", type=int, default=600, help="the base scenario's simulated seconds")
    parser.add_argument("--aeps", nargs="+", default=["1%", "10%", "63.2%"])
    parser.add_argument("--durations", type=int, nargs="+", default=[10], help="storm durations, minutes")
    parser.add_argument("--keep", action="store_true", help="keep each throwaway var dir")
    options = parser.parse_args()
    signal.signal(signal.SIGTERM, _terminated)
    print(f"cores {os.cpu_count()}; load {os.getloadavg()}", flush=True)
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
