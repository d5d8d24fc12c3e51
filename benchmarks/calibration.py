"""A calibration study's wall time with 1 worker and with 2 (each one solo process, 1 ANUGA thread): the speedup of
running its members as separate Celery tasks on every worker while the optimiser proposes them.

For each worker count, on a fresh throwaway stack (design_study.py's StudyStack: benchmarks/run_overhead.py's Stack,
uvicorn serving config.asgi:application and the workers, a throwaway HYDRATA_VAR_DIR), this script arranges
small_test through the REST API with a launch key (project, terrain, boundary, rainfall and a friction layer whose
one polygon, "floodplain", covers the whole model with n = 0.045, a scenario of --resolution m and --duration
seconds and its build), runs that base scenario once as the synthetic truth (as tests/hydrata/calibration/helpers.py
does in-process), reads its peak stage at the 8 deepest points of a 10 m grid through POST /runs/<id>/sample/,
posts them as a flood event's observations, makes an optimising study of --budget members (24 by default) over the
floodplain's n in [0.02, 0.10] with in_flight = the worker count, starts it and polls it until complete. It reports
the wall time from the start's POST to the first answer that says complete, the members' own span (the first
member's start to the last member's end, from their runs), the median member (its run's started_at to
finished_at, and its evolve loop's wall and CPU seconds from the child's `Phases` line), the workers' idle seconds
per member (workers x span less the members' own seconds, over the members), the best n found, the load average
and the speedup of 2 workers over 1.

    .venv/bin/python benchmarks/calibration.py [--workers 1 2] [--budget 24] [--resolution 5] [--duration 1500]
                                               [--keep]

The defaults (small_test at 5 m, 1,500 simulated seconds) make a member's evolve loop take about 5-10 s on a
2-core machine that is otherwise idle, so that the speedup measures parallel compute rather than what a member costs
beyond its evolve loop (about 0.5 s, design_study.py --overhead): the table prints the median evolve to check it.

The optimiser keeps `in_flight` members computing and proposes the next as each ends: a member's end queues the
study's advance task (it reads the member against the observations and asks optuna's TPE for the next values), and
only then is the next member's run queued, so each member costs its worker that gap as well, on 1 worker and on 2
alike; the idle column shows it. Each worker's first member also waits for its fork server's imports (about 1.5 s,
once; the first worker's is warm from the truth run).

Run it on an otherwise idle machine with at least as many cores as workers: two workers on a busy machine share its
cores with everything else, and the speedup measures the load rather than the platform.
"""

import argparse
import json
import os
import shutil
import signal
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.design_study import FINISHED, StudyStack, _median, _seconds, _span  # noqa: E402
from benchmarks.run_overhead import (  # noqa: E402
    PROJECTS,
    SMALL_TEST,
    built_scenario,
    data_set,
    ok,
    platform_run,
    wait_for,
)
from hydrata.compute.simulation.phase_clock import CHILD_PHASES_LINE  # noqa: E402

TRUE_N = 0.045
EXTENT = (251000.0, 6271800.0, 251200.0, 6272000.0)  # small_test's 200 m square, EPSG:28356
FRICTION = {
    "type": "FeatureCollection",
    "crs": {"type": "name", "properties": {"name": "EPSG:28356"}},
    "features": [
        {
            "type": "Feature",
            "properties": {"name": "floodplain", "mannings": TRUE_N},
            "geometry": {
                "type": "Polygon",
                "coordinates": [
                    [
                        [EXTENT[0], EXTENT[1]],
                        [EXTENT[2], EXTENT[1]],
                        [EXTENT[2], EXTENT[3]],
                        [EXTENT[0], EXTENT[3]],
                        [EXTENT[0], EXTENT[1]],
                    ]
                ],
            },
        }
    ],
}
OBSERVATIONS = 8


@dataclass(frozen=True)
class Measured:
    workers: int
    members: int
    wall_s: float
    members_span_s: float
    member_median_s: float
    evolve_median_s: float
    evolve_cpu_median_s: float
    idle_per_member_s: float
    best_n: float | None
    status: str
    loads: tuple[tuple[float, float, float], tuple[float, float, float]]


def measure(stack: StudyStack, *, budget: int, resolution: float, duration: int) -> Measured:
    stack.start()
    with httpx.Client(base_url=stack.origin, headers={"Authorization": f"Bearer {stack.key}"}, timeout=120) as http:
        path = created_study(
            http, stack.var, budget=budget, in_flight=stack.workers, resolution=resolution, duration=duration
        )
        load_start = os.getloadavg()
        started = time.perf_counter()
        ok(http.post(f"{path}start/"), 202)
        final = wait_for(
            lambda: ok(http.get(path), 200),
            lambda s: s["status"] in FINISHED,
            seconds=24 * 3600,
            what="the calibration study",
            interval=0.5,
        )
        wall = time.perf_counter() - started
        load_end = os.getloadavg()
        runs = [ok(http.get(f"/api/v2/anuga/runs/{m['run']}/"), 200) for m in final["members"] if m["run"]]
    (stack.var / "study.json").write_text(json.dumps({"study": final, "runs": runs}))  # kept with --keep
    if final["status"] != "complete":
        raise RuntimeError(f"the study ended {final['status']}: {final['status_message']}")
    incomplete = [run["id"] for run in runs if run["status"] != "complete"]
    if incomplete:
        raise RuntimeError(f"members' runs {incomplete} did not complete")
    member_seconds = [_seconds(run["started_at"], run["finished_at"]) for run in runs]
    span = _span(runs)
    best = ((final.get("results") or {}).get("best") or {}).get("values") or {}
    return Measured(
        workers=stack.workers,
        members=len(runs),
        wall_s=wall,
        members_span_s=span,
        member_median_s=_median(member_seconds),
        evolve_median_s=_median([evolve_seconds(run)[0] for run in runs]),
        evolve_cpu_median_s=_median([evolve_seconds(run)[1] for run in runs]),
        idle_per_member_s=(stack.workers * span - sum(member_seconds)) / len(runs),
        best_n=best.get("friction:floodplain"),
        status=final["status"],
        loads=(load_start, load_end),
    )


def created_study(
    http: httpx.Client, var: Path, *, budget: int, in_flight: int, resolution: float, duration: int
) -> str:
    """small_test with the floodplain's friction arranged and built through the REST API, run once as the truth, its
    peak stages posted as a flood event's observations and a study made of them; returns the study's path."""
    friction = var / "friction.geojson"
    friction.write_text(json.dumps(FRICTION))
    small_test = data_set("small_test", SMALL_TEST)
    data = replace(
        small_test,
        resolution=resolution,
        duration=duration,
        layers={**small_test.layers, "friction": friction},
    )
    scenario, _ = built_scenario(http, data)
    truth = platform_run(http, scenario["id"])
    project = f"{PROJECTS}{scenario['project']}/"
    event = ok(http.post(f"{project}events/", json={"name": "the truth", "started_at": "2024-01-01T00:00:00Z"}), 201)
    for x, y, stage in deepest_points(http, truth.run_id):
        ok(
            http.post(
                f"{project}observations/",
                json={"event": event["id"], "x": x, "y": y, "quantity": "peak_stage", "value_m": stage},
            ),
            201,
        )
    study = ok(
        http.post(
            f"{project}calibration-studies/",
            json={
                "name": "benchmark",
                "base_scenario": scenario["id"],
                "event": event["id"],
                "method": "optimise",
                "parameters": [{"target": "friction", "name": "floodplain", "low": 0.02, "high": 0.10}],
                "budget": budget,
                "in_flight": in_flight,
            },
        ),
        201,
    )
    return f"{project}calibration-studies/{study['id']}/"


def deepest_points(http: httpx.Client, run_id: int, count: int = OBSERVATIONS) -> list[tuple[float, float, float]]:
    """The `count` deepest of a 10 m grid of points inside the model, no two within 20 m, with the run's peak stage
    there (helpers.py's deepest_points, read through the REST API)."""
    grid = [{"x": EXTENT[0] + 10 + 10 * i, "y": EXTENT[1] + 10 + 10 * j} for i in range(19) for j in range(19)]
    sampled = ok(http.post(f"/api/v2/anuga/runs/{run_id}/sample/", json={"points": grid}), 200)["points"]
    ranked = sorted(
        (
            (point["peak_depth"], point["x"], point["y"], point["peak_stage"])
            for point in sampled
            if point["peak_depth"] is not None and point["peak_stage"] is not None
        ),
        reverse=True,
    )
    chosen: list[tuple[float, float, float]] = []
    for _, x, y, stage in ranked:
        if all(abs(x - a) >= 20 or abs(y - b) >= 20 for a, b, _ in chosen):
            chosen.append((x, y, stage))
        if len(chosen) == count:
            break
    if len(chosen) < count:
        raise RuntimeError(f"the truth run is wet at only {len(chosen)} spaced points: {ranked[:5]}")
    return chosen


def evolve_seconds(run: dict[str, Any]) -> tuple[float, float]:
    """The member's evolve loop, wall and CPU seconds, from its child's `Phases` line (nan if its log tail has
    none): CPU well under wall means the loop waited for a core that something else had."""
    found = [line.split(CHILD_PHASES_LINE, 1)[1] for line in run["log_tail"] if CHILD_PHASES_LINE in line]
    if not found:
        return float("nan"), float("nan")
    wall, cpu = json.loads(found[-1])["evolve"]
    return float(wall), float(cpu)


def _load(load: tuple[float, float, float]) -> str:
    return " / ".join(f"{value:.2f}" for value in load)


def report(results: list[Measured]) -> str:
    lines = [
        "| workers = in_flight (1 thread each) | members | wall, start to complete (s) | members' span (s) | "
        "median member (s) | median evolve, wall / CPU (s) | workers idle per member (s) | best n | speedup (wall) | "
        "speedup (span) | load (1, 5, 15 min) at start; end |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    one = next((r for r in results if r.workers == 1), None)
    for result in results:
        speedup = f"{one.wall_s / result.wall_s:.2f}" if one else "n/a"
        span = f"{one.members_span_s / result.members_span_s:.2f}" if one else "n/a"
        best = f"{result.best_n:.4f}" if result.best_n is not None else "n/a"
        lines.append(
            f"| {result.workers} | {result.members} | {result.wall_s:.1f} | {result.members_span_s:.1f} | "
            f"{result.member_median_s:.1f} | {result.evolve_median_s:.1f} / {result.evolve_cpu_median_s:.1f} | "
            f"{result.idle_per_member_s:.2f} | "
            f"{best} | {speedup} | {span} | {_load(result.loads[0])}; {_load(result.loads[1])} |"
        )
    return "\n".join(lines)


def _terminated(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--budget", type=int, default=24, help="the study's members")
    parser.add_argument("--resolution", type=float, default=5, help="the base scenario's mesh resolution, m")
    parser.add_argument("--duration", type=int, default=1500, help="the base scenario's simulated seconds")
    parser.add_argument("--keep", action="store_true", help="keep each throwaway var dir")
    options = parser.parse_args()
    signal.signal(signal.SIGTERM, _terminated)
    print(f"cores {os.cpu_count()}; load {os.getloadavg()}", flush=True)
    results = []
    for workers in options.workers:
        stack = StudyStack(workers=workers)
        try:
            result = measure(stack, budget=options.budget, resolution=options.resolution, duration=options.duration)
            results.append(result)
            print(result, flush=True)
        except Exception:
            print(
                f"kept {stack.var}\nworker log tail:\n{stack.tail('worker.log')}\n\n"
                f"server log tail:\n{stack.tail('server.log')}",
                file=sys.stderr,
                flush=True,
            )
            options.keep = True
            raise
        finally:
            stack.stop()
            if not options.keep:
                shutil.rmtree(stack.var, ignore_errors=True)
    print()
    print(report(results))
    print(f"\ncommand: {' '.join([Path(sys.executable).name, *sys.argv])}; load at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
