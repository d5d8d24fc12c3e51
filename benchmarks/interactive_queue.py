"""A build's wall time while a design study runs, over its time alone, on the embedded default as `make run` starts
it: the filesystem broker, SQLite, and the Makefile's two workers (INTERACTIVE_WORKER, and STUDIES_WORKER under
`nice -n STUDIES_NICENESS`), each with Celery's default pool (a slot per core) and the default threads per
simulation (the cores over the slots). Issue 48's promise: at most 2.

On a throwaway stack (benchmarks/run_overhead.py's: uvicorn serving config.asgi:application, a throwaway
HYDRATA_VAR_DIR), this script arranges small_test through the REST API with a launch key (project, terrain, layers)
and two scenarios: the study's base (--resolution, --duration) and the build's (--build-resolution: 10 m makes
1,219 triangles). It builds the second once untimed (the worker's first build imports the mesher), then --repeats
times alone (each build a new run of the same scenario, POST to the first answer that says built, polled every
0.1 s). Then it makes a study of --aeps x --durations x the file's ten patterns (20 members by default) on the base,
starts it, waits until its members compute, and builds the second --repeats times again while they do. It prints
each build's wall, its wait on the queue (created_at to build_started_at) and its time on the worker, the medians,
the ratio of the medians, and how many members were computing and queued during each build; then cancels the study.

    .venv/bin/python benchmarks/interactive_queue.py [--repeats N] [--aeps 1% 10%] [--durations 10] [--keep]

It needs idle cores: the study is meant to fill the machine's cores, and whatever else runs on them takes its share
from the build, so on a busy machine the ratio measures the load as well as the platform. Run it once, on an
otherwise idle machine.
"""

import argparse
import contextlib
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.design_study import INPUTS  # noqa: E402
from benchmarks.run_overhead import PROJECTS, SMALL_TEST, Stack, built_scenario, data_set, ok, wait_for  # noqa: E402

ARR = ROOT / "tests" / "data" / "arr"


def makefile_variable(name: str) -> str:
    found = re.search(rf"^{name} = (.*)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    if not found:
        raise RuntimeError(f"the Makefile has no {name}")
    return found.group(1)


class RunStack(Stack):
    """The server and `make run`'s two workers, on the embedded defaults (no HYDRATA_ANUGA_THREADS)."""

    def __init__(self) -> None:
        super().__init__(threads=0)
        self.env.pop("HYDRATA_ANUGA_THREADS", None)
        self.env.pop("HYDRATA_MAX_RANKS", None)
        self.workers: list[subprocess.Popen] = []

    def spawn_group(self, command: list[str], *, log: Path) -> subprocess.Popen:
        """A worker in a process group of its own, so that stop() ends its pool and simulations with it."""
        with log.open("ab") as stream:
            return subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=stream, stderr=stream, start_new_session=True
            )

    def stop(self) -> None:
        for worker in self.workers:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
        super().stop()

    def start(self) -> None:
        self.manage("migrate", "--noinput")
        self.key = self.manage("create_agent_key", "--username", "bench", "--level", "launch", "--create-user")
        port = self.origin.rsplit(":", 1)[1]
        server = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", port, "--log-level", "warning"]
        self.spawn([*server, "--no-access-log"], log=self.var / "server.log")
        host = socket.gethostname()
        celery = [sys.executable, "-m", "celery", "-A", "config", "worker"]
        interactive = makefile_variable("INTERACTIVE_WORKER").replace("%h", host).split()
        studies = makefile_variable("STUDIES_WORKER").replace("%h", host).split()
        nice = ["nice", "-n", makefile_variable("STUDIES_NICENESS")]
        self.workers = [
            self.spawn_group([*celery, *interactive], log=self.var / "interactive.log"),
            self.spawn_group([*nice, *celery, *studies], log=self.var / "studies.log"),
        ]
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(self.origin + "/", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start; see {self.var / 'server.log'}") from None
                time.sleep(0.2)
        for log in ("interactive.log", "studies.log"):
            while "ready." not in (self.var / log).read_text(errors="replace"):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"a worker did not start; see {self.var / log}")
                time.sleep(0.2)


def seconds(start: str | None, end: str | None) -> float:
    if not start or not end:
        return float("nan")
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def timed_build(http: httpx.Client, scenario: dict, study: str | None) -> dict[str, Any]:
    """POST the build and poll until built: the client's wall, the run's queue wait and worker time, and the study's
    members computing and queued at the start and at the end."""
    path = f"{PROJECTS}{scenario['project']}/scenarios/{scenario['id']}/"
    members_before = members(http, study)
    started = time.perf_counter()
    run_id = ok(http.post(f"{path}build/"), 202)["run"]["id"]
    done = wait_for(
        lambda: ok(http.get(path), 200),
        lambda s: s["computed_status"] not in ("created", "building"),
        seconds=3600,
        what="the build",
        interval=0.1,
    )
    wall = time.perf_counter() - started
    if done["computed_status"] != "built":
        raise RuntimeError(f"the build ended {done['computed_status']}: {done['latest_run']}")
    run = ok(http.get(f"/api/v2/anuga/runs/{run_id}/"), 200)
    return {
        "wall_s": round(wall, 2),
        "queue_wait_s": round(seconds(run["created_at"], run["build_started_at"]), 2),
        "on_worker_s": round(seconds(run["build_started_at"], run["build_finished_at"]), 2),
        "triangles": run["mesh_triangle_count"],
        "members_before": members_before,
        "members_after": members(http, study),
    }


def members(http: httpx.Client, study: str | None) -> dict[str, int]:
    if study is None:
        return {}
    counted: dict[str, int] = {}
    for member in ok(http.get(study), 200)["members"]:
        status = member["run_status"] or "none"
        counted[status] = counted.get(status, 0) + 1
    return counted


def created_study(http: httpx.Client, base: dict, *, aeps: list[str], durations: list[int]) -> str:
    project = f"{PROJECTS}{base['project']}/"
    inputs = {
        kind: ok(http.post(f"{project}design-inputs/", json={"kind": kind, "content": (ARR / name).read_text()}), 201)[
            "id"
        ]
        for kind, name in INPUTS.items()
    }
    body = {
        "name": "benchmark",
        "base_scenario": base["id"],
        **inputs,
        "aeps": aeps,
        "durations_min": durations,
        "initial_loss_mm": 10,
        "continuing_loss_mm_h": 2,
    }
    study = ok(http.post(f"{project}design-studies/", json=body), 201)
    return f"{project}design-studies/{study['id']}/"


def measure(stack: RunStack, options: argparse.Namespace) -> dict[str, Any]:
    stack.start()
    headers = {"Authorization": f"Bearer {stack.key}"}
    with httpx.Client(base_url=stack.origin, headers=headers, timeout=120) as http:
        small_test = data_set("small_test", SMALL_TEST)
        base, _ = built_scenario(http, replace(small_test, resolution=options.resolution, duration=options.duration))
        project = f"{PROJECTS}{base['project']}/"
        body = {"name": "interactive", "resolution": options.build_resolution, "duration": options.duration}
        other = ok(http.post(f"{project}scenarios/", json=body), 201)
        timed_build(http, other, None)  # untimed: the worker's first build imports the mesher
        alone = [timed_build(http, other, None) for _ in range(options.repeats)]
        study = created_study(http, base, aeps=options.aeps, durations=options.durations)
        ok(http.post(f"{study}start/"), 202)
        wait_for(
            lambda: members(http, study),
            lambda counted: counted.get("computing", 0) >= 1,
            seconds=600,
            what="the study's first member",
            interval=0.5,
        )
        during = [timed_build(http, other, study) for _ in range(options.repeats)]
        total = sum(members(http, study).values())
        ok(http.post(f"{study}cancel/"), 200, 202)
    ratio = statistics.median(b["wall_s"] for b in during) / statistics.median(b["wall_s"] for b in alone)
    return {"alone": alone, "during": during, "members": total, "ratio": ratio}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--resolution", type=float, default=5, help="the study base's mesh resolution, m")
    parser.add_argument("--build-resolution", type=float, default=10, help="the timed build's resolution, m")
    parser.add_argument("--duration", type=int, default=600, help="the scenarios' simulated seconds")
    parser.add_argument("--aeps", nargs="+", default=["1%", "10%"])
    parser.add_argument("--durations", type=int, nargs="+", default=[10], help="storm durations, minutes")
    parser.add_argument("--keep", action="store_true", help="keep the throwaway var dir")
    options = parser.parse_args()
    signal.signal(signal.SIGTERM, _terminated)
    print(f"cores {os.cpu_count()}; load {os.getloadavg()}", flush=True)
    stack = RunStack()
    try:
        result = measure(stack, options)
    finally:
        stack.stop()
        if not options.keep:
            shutil.rmtree(stack.var, ignore_errors=True)
    for label in ("alone", "during"):
        for build in result[label]:
            print(label, build)
    alone = statistics.median(b["wall_s"] for b in result["alone"])
    during = statistics.median(b["wall_s"] for b in result["during"])
    print(
        f"\nA {result['alone'][0]['triangles']:,}-triangle build: {alone:.2f} s alone, {during:.2f} s while a study "
        f"of {result['members']} members runs (medians of {options.repeats}): ratio {result['ratio']:.2f} (at most 2)"
    )
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}; load at the end {os.getloadavg()}")


def _terminated(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


if __name__ == "__main__":
    main()
