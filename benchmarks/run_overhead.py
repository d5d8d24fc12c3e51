"""Wall time of a simulation through the platform against a bare ANUGA evolve of the same mesh, interleaved.

For each data set (small_test from tests/data, merewether from the shared data folder), this script:

1. starts the real stack on loopback with a throwaway HYDRATA_VAR_DIR: uvicorn serving config.asgi:application
   and ONE Celery worker (solo pool), both with the same HYDRATA_ANUGA_THREADS;
2. arranges the model through the REST API with a launch-level key, as an agent would: project, terrain
   (multipart), GeoJSON uploads attached to the default rows, a scenario, its build;
3. then, --repeats times: starts the run and polls its status until complete (the platform's wall time,
   client-observed: POST to the first status read that says complete; and worker-side: the run's started_at to
   finished_at), then runs benchmarks/bare_anuga.py on the SAME built package (read from the var dir's media
   folder) with the same threads, yield step and duration (and, with --child, the simulation child alone,
   python -m hydrata.compute.simulation.simulate, as the worker starts it): platform, bare, platform, bare, ... so that
   the machine's noise falls on both and shows as spread;

then prints a Markdown table per data set (medians, ranges and every round, sim-seconds per wall-second and
triangle-steps per second), where the platform's extra seconds go, and the figure's row for the issue's table.

    .venv/bin/python benchmarks/run_overhead.py [--only small_test|merewether] [--merewether PATH] [--threads N]
                                                [--repeats N] [--duration S] [--child] [--settle SECONDS] [--keep]

The ratio is the platform's whole run as a client sees it (request, queue, package download, the child's
interpreter, imports, mesh and forcing set-up, evolve with its recorder, .sww and progress, post-processing,
result upload, the poll that sees it complete) over the bare evolve loop alone (bare_anuga.py's clock starts
after its imports, mesh and forcing set-up): everything the platform adds is counted against it.

The status is polled every 0.2 s except while the run computes, when the poll waits a quarter of the run's ETA
(at most 5 s), so that the client's own requests do not compete with ANUGA's threads for the cores yet the moment
of completion is still seen within about 0.2 s.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.processes import celery_worker_command, free_port  # noqa: E402

SMALL_TEST = ROOT / "tests" / "data" / "small_test"
DEFAULT_MEREWETHER = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "merewether"
BARE_SCRIPT = Path(__file__).resolve().parent / "bare_anuga.py"
PROJECTS = "/api/v2/anuga/projects/"
KIND_PATHS = {"boundary": "boundaries", "friction": "frictions", "inflow": "inflows", "rainfall": "rainfalls"}
# Settings that would point the stack at a developer's database, media, broker or run options: the benchmark uses
# the embedded defaults under its throwaway var dir, and the child's default yield step (as bare_anuga.py does).
CLEARED_ENV = (
    "DATABASE_URL",
    "MEDIA_ROOT",
    "CELERY_BROKER_URL",
    "CELERY_TASK_ALWAYS_EAGER",
    "HYDRATA_STORAGE_BACKEND",
    "HYDRATA_API_ORIGIN",
    "HYDRATA_RUN_YIELD_SECONDS",
    "OMP_NUM_THREADS",
)
TERMINAL = ("complete", "error", "cancelled")
THREAD_ENV_NAMES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


@dataclass(frozen=True)
class DataSet:
    name: str
    folder: Path
    epsg: str
    resolution: float
    duration: int
    model_start: str | None
    dem: Path
    layers: dict[str, Path]  # input kind -> GeoJSON file with at least one feature


def data_set(name: str, folder: Path) -> DataSet:
    """A data set from its scenario.json (projection, resolution, duration, start) and its inputs/ folder."""
    manifest = json.loads((folder / "scenario.json").read_text())
    inputs = folder / "inputs"
    layers = {}
    for kind in KIND_PATHS:
        relative = manifest.get(kind)
        if relative and (inputs / relative).is_file() and json.loads((inputs / relative).read_text()).get("features"):
            layers[kind] = inputs / relative
    return DataSet(
        name=name,
        folder=folder,
        epsg=str(manifest["epsg"]),
        resolution=float(manifest["resolution"]),
        duration=int(manifest["duration"]),
        model_start=manifest.get("model_start"),
        dem=inputs / str(manifest.get("elevation") or "dem.tif"),
        layers=layers,
    )


# --- processes -------------------------------------------------------------------------------------------------


def load() -> tuple[float, float, float]:
    return os.getloadavg()


class Stack:
    """The server and the worker on a throwaway var dir, and every other subprocess this script starts, so that
    all of them can be stopped however the script ends."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.var = Path(tempfile.mkdtemp(prefix="hydrata-overhead-"))
        self.origin = f"http://127.0.0.1:{free_port()}"
        self.env = {key: value for key, value in os.environ.items() if key not in CLEARED_ENV}
        self.env |= {
            "HYDRATA_VAR_DIR": str(self.var),
            "HYDRATA_SITE_URL": self.origin,
            "LOG_LEVEL": "WARNING",
            "HYDRATA_ANUGA_THREADS": str(threads),
        }
        self.processes: list[subprocess.Popen] = []
        self.key = ""

    def manage(self, *args: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, check=True, capture_output=True, text=True
        ).stdout.strip()

    def spawn(
        self, command: list[str], *, log: Path, env: dict[str, str] | None = None, cwd: Path = ROOT, stdout: Any = None
    ) -> subprocess.Popen:
        with log.open("ab") as stream:  # a file, not a pipe: a full pipe would stall a long-lived process
            process = subprocess.Popen(command, cwd=cwd, env=env or self.env, stdout=stdout or stream, stderr=stream)
        self.processes.append(process)
        return process

    def start(self) -> None:
        self.manage("migrate", "--noinput")
        self.key = self.manage("create_agent_key", "--username", "bench", "--level", "launch", "--create-user")
        port = self.origin.rsplit(":", 1)[1]
        self.spawn(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "config.asgi:application",
                "--port",
                port,
                "--log-level",
                "warning",
                "--no-access-log",
            ],
            log=self.var / "server.log",
        )
        self.spawn(
            celery_worker_command(f"bench@{socket.gethostname()}", "--without-heartbeat"),
            log=self.var / "worker.log",
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(self.origin + "/", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start; see {self.var / 'server.log'}") from None
                time.sleep(0.2)
        while "ready." not in (self.var / "worker.log").read_text(errors="replace"):
            if time.monotonic() > deadline or self.processes[1].poll() is not None:
                raise RuntimeError(f"the worker did not start; see {self.var / 'worker.log'}")
            time.sleep(0.2)

    def timed(
        self, command: list[str], *, log: Path, env: dict[str, str], cwd: Path = ROOT, capture: bool = False
    ) -> tuple[float, int, str]:
        """Run a command to its end: (wall seconds, exit code, stdout when captured)."""
        started = time.perf_counter()
        process = self.spawn(
            command, log=log, env=env, cwd=cwd, stdout=subprocess.PIPE if capture else subprocess.DEVNULL
        )
        output = process.communicate()[0] if capture else ""
        process.wait()
        wall = time.perf_counter() - started
        self.processes.remove(process)
        return wall, process.returncode, (output or b"").decode(errors="replace") if capture else ""

    def stop(self) -> None:
        """SIGTERM each, then SIGKILL what is still there (a solo worker finishes its task before it stops; its
        simulation child dies with it)."""
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in reversed(self.processes):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()

    def tail(self, name: str, lines: int = 40) -> str:
        path = self.var / name
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""


# --- the model through the REST API ----------------------------------------------------------------------------


def wait_for(read, done, *, seconds: float, what: str, interval: float = 0.3) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        value = read()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not finish within {seconds:g} s; last reading: {value}")
        time.sleep(interval)


def ok(response: httpx.Response, *expected: int) -> dict:
    if response.status_code not in expected:
        raise RuntimeError(
            f"{response.request.method} {response.request.url.path} answered "
            f"{response.status_code}: {response.text[:2000]}"
        )
    return response.json()


def upload_geojson(http: httpx.Client, path: Path) -> int:
    execution = ok(
        http.post(
            "/api/v2/uploads/upload/", files={"base_file": (path.name, path.read_bytes(), "application/geo+json")}
        ),
        201,
    )
    status_path = f"/api/v2/resource-service/execution-status/{execution['execution_id']}"
    status = wait_for(
        lambda: ok(http.get(status_path), 200),
        lambda s: s["status"] in ("finished", "failed"),
        seconds=300,
        what=f"the import of {path.name}",
    )
    if status["status"] != "finished":
        raise RuntimeError(f"the import of {path.name} failed: {status}")
    return status["output_params"]["resources"][0]["id"]


def built_scenario(http: httpx.Client, data: DataSet) -> tuple[dict, int]:
    """Project, terrain, layers, scenario and build; returns the scenario and its built run's id."""
    project = ok(http.post(PROJECTS, json={"name": f"Overhead {data.name}", "projection": data.epsg}), 201)
    base = f"{PROJECTS}{project['id']}/"
    terrain = ok(
        http.post(f"{base}terrain/upload/", files={"file": (data.dem.name, data.dem.read_bytes(), "image/tiff")}),
        201,
        202,
    )
    terrain = wait_for(
        lambda: ok(http.get(f"{base}terrain/{terrain['id']}/"), 200),
        lambda t: t["status"] in ("ready", "error"),
        seconds=600,
        what="the terrain import",
    )
    if terrain["status"] != "ready":
        raise RuntimeError(f"the terrain import failed: {terrain}")
    rows = {kind: found[0]["id"] for kind, found in ok(http.get(f"{base}inputs/"), 200).items() if found}
    for kind, path in data.layers.items():
        dataset_id = upload_geojson(http, path)
        ok(http.patch(f"{base}{KIND_PATHS[kind]}/{rows[kind]}/", json={"gn_layer": dataset_id}), 200)
    scenario = ok(
        http.post(
            f"{base}scenarios/",
            json={
                "name": data.name,
                "resolution": data.resolution,
                "duration": data.duration,
                "model_start": data.model_start,
            },
        ),
        201,
    )
    return scenario, build(http, scenario)


def build(http: httpx.Client, scenario: dict) -> int:
    """Build the scenario (again: a scenario whose run completed is built anew before its next run); returns the
    built run's id."""
    path = f"{PROJECTS}{scenario['project']}/scenarios/{scenario['id']}/"
    built = ok(http.post(f"{path}build/"), 202)
    scenario = wait_for(
        lambda: ok(http.get(path), 200),
        lambda s: s["computed_status"] not in ("created", "building"),
        seconds=1800,
        what="the build",
        interval=0.5,
    )
    if scenario["computed_status"] != "built":
        raise RuntimeError(f"the build ended {scenario['computed_status']}: {scenario['latest_run']}")
    return built["run"]["id"]


def poll_interval(status: dict) -> float:
    eta = status.get("eta_seconds")
    if status["status"] == "computing" and eta:
        return min(5.0, max(0.2, eta / 4))
    return 0.2


@dataclass
class PlatformRun:
    run_id: int
    client_seconds: float
    posted_at: float  # time.time() just before the POST
    seen_at: float  # time.time() when the first complete status arrived
    detail: dict
    load: tuple[float, float, float]
    status_reads: int

    def moment(self, name: str) -> float:
        return datetime.fromisoformat(self.detail[name].replace("Z", "+00:00")).timestamp()

    @property
    def worker_seconds(self) -> float:
        return self.moment("finished_at") - self.moment("started_at")


def platform_run(http: httpx.Client, scenario_id: int) -> PlatformRun:
    start_load = load()
    posted_at, started = time.time(), time.perf_counter()
    run = ok(http.post(f"/api/v2/anuga/scenarios/{scenario_id}/run/", json={}), 202)
    reads = 0
    while True:
        status = ok(http.get(f"/api/v2/anuga/runs/{run['id']}/status/"), 200)
        reads += 1
        if status["status"] in TERMINAL:
            break
        time.sleep(poll_interval(status))
    client_seconds, seen_at = time.perf_counter() - started, time.time()
    detail = ok(http.get(f"/api/v2/anuga/runs/{run['id']}/"), 200)
    if status["status"] != "complete":
        raise RuntimeError(
            f"run {run['id']} ended {status['status']}: {status['error_message']} {detail['log_tail'][-10:]}"
        )
    return PlatformRun(
        run_id=run["id"],
        client_seconds=client_seconds,
        posted_at=posted_at,
        seen_at=seen_at,
        detail=detail,
        load=start_load,
        status_reads=reads,
    )


# --- the same package, outside the platform --------------------------------------------------------------------


@dataclass
class ProcessRun:
    wall_seconds: float  # the subprocess, from Popen to exit
    load: tuple[float, float, float]
    report: dict = field(default_factory=dict)


def bare_run(stack: Stack, package: Path) -> ProcessRun:
    start_load = load()
    env = stack.env | {name: str(stack.threads) for name in THREAD_ENV_NAMES}  # as the worker sets them for the child
    wall, code, output = stack.timed(
        [sys.executable, str(BARE_SCRIPT), str(package), "--threads", str(stack.threads), "--json"],
        log=stack.var / "bare.log",
        env=env,
        capture=True,
    )
    if code != 0:
        raise RuntimeError(f"bare_anuga.py exited {code}:\n{stack.tail('bare.log')}")
    return ProcessRun(wall_seconds=wall, load=start_load, report=json.loads(output.strip().splitlines()[-1]))


def child_run(stack: Stack, package: Path, output: Path) -> ProcessRun:
    """The simulation child as the worker starts it (same command, environment filter and working directory)."""
    output.mkdir(parents=True)
    env = {key: value for key, value in stack.env.items() if not key.startswith(("DJANGO", "AWS_", "SECRET"))}
    env |= {name: str(stack.threads) for name in THREAD_ENV_NAMES}
    start_load = load()
    wall, code, _ = stack.timed(
        [
            sys.executable,
            "-m",
            "hydrata.compute.simulation.simulate",
            "--package",
            str(package),
            "--output",
            str(output),
            "--threads",
            str(stack.threads),
        ],
        log=stack.var / "child.stderr",
        env=env,
        cwd=output,
    )
    if code != 0:
        raise RuntimeError(f"the simulation child exited {code}:\n{stack.tail('child.stderr')}")
    return ProcessRun(wall_seconds=wall, load=start_load, report=child_phases(output))


def child_phases(output: Path) -> dict[str, float]:
    """Seconds per phase from the child's progress.jsonl (wall_seconds counts from its first line)."""
    lines = [json.loads(line) for line in (output / "progress.jsonl").read_text().splitlines() if line.strip()]
    computing = [line for line in lines if line["phase"] == "computing"]
    post = [line for line in lines if line["phase"] == "post_processing"]
    statistics = json.loads((output / "statistics.json").read_text())
    return {
        "setup": computing[0]["wall_seconds"],
        "evolve": computing[-1]["wall_seconds"] - computing[0]["wall_seconds"],
        "post_processing": post[-1]["wall_seconds"] - computing[-1]["wall_seconds"],
        "last_line": post[-1]["wall_seconds"],
        "sim_seconds": statistics["sim_seconds"],
        "triangles": statistics["triangles"],
        "statistics_wall": statistics["wall_seconds"],
        "sww_mb": (output / "run.sww").stat().st_size / 1e6,
        "results_mb": sum(path.stat().st_size for path in output.iterdir() if path.is_file()) / 1e6,
    }


# --- one data set, interleaved ---------------------------------------------------------------------------------


@dataclass
class Rounds:
    """Every measurement of one data set, in the order taken: platform, bare(, child), platform, bare, ..."""

    data: DataSet
    platform: list[PlatformRun] = field(default_factory=list)
    bare: list[ProcessRun] = field(default_factory=list)
    child: list[ProcessRun] = field(default_factory=list)


def measure(stack: Stack, rounds: Rounds, *, settle: float, repeats: int, with_child: bool) -> None:
    """Build once, then alternate the platform and bare ANUGA on the same package, so that the machine's noise
    falls on both alike and shows as spread. Appends to `rounds` as it goes: an interrupted benchmark still
    reports the rounds it finished."""
    data = rounds.data
    with httpx.Client(base_url=stack.origin, headers={"Authorization": f"Bearer {stack.key}"}, timeout=120) as http:
        print(f"[{data.name}] arranging the model through the REST API ...", flush=True)
        scenario, run_id = built_scenario(http, data)
        for index in range(1, repeats + 1):
            if index > 1:
                run_id = build(http, scenario)
            package = built_package(stack, run_id)
            print(f"[{data.name}] round {index}: built package {package}", flush=True)
            time.sleep(settle)
            platform = platform_run(http, scenario["id"])
            time.sleep(settle)
            rounds.bare.append(bare_run(stack, package))
            rounds.platform.append(platform)
            line = (
                f"[{data.name}] round {index}/{repeats}: platform {rounds.platform[-1].client_seconds:.1f} s, "
                f"bare evolve {rounds.bare[-1].report['evolve_wall_seconds']:.1f} s"
            )
            if with_child:
                time.sleep(settle)
                rounds.child.append(child_run(stack, package, stack.var / f"child-{data.name}-{index}"))
                line += f", child alone {rounds.child[-1].wall_seconds:.1f} s"
            print(f"{line} (load {_load(load())})", flush=True)


def built_package(stack: Stack, run_id: int) -> Path:
    """The package the run's build wrote: its mesh is what the platform's run and the bare run both evolve."""
    package = stack.var / "media" / "runs" / str(run_id) / "package"
    if not (package / "scenario.json").is_file():
        raise RuntimeError(f"no built package at {package}")
    return package


def _load(values: tuple[float, float, float]) -> str:
    return " / ".join(f"{value:.2f}" for value in values)


def spread(values: list[float], digits: int = 2) -> str:
    """median (min-max) and every value in the order taken."""
    each = ", ".join(f"{value:.{digits}f}" for value in values)
    low, high = min(values), max(values)
    return f"{statistics.median(values):.{digits}f} ({low:.{digits}f}-{high:.{digits}f}) | {each}"


def ratio(rounds: Rounds) -> list[float]:
    """Platform (client-observed) over the bare evolve of the same round."""
    pairs = zip(rounds.platform, rounds.bare, strict=True)
    return [platform.client_seconds / bare.report["evolve_wall_seconds"] for platform, bare in pairs]


def report(rounds: Rounds, threads: int) -> str:
    data, platform, bare = rounds.data, rounds.platform, rounds.bare
    sim = float(bare[0].report["sim_seconds"])
    triangles, steps = int(bare[0].report["triangles"]), int(bare[0].report["steps"])
    meshes = sorted({(int(run.report["triangles"]), int(run.report["steps"])) for run in bare})
    same = "every round's build made the same mesh" if len(meshes) == 1 else f"the rounds' meshes differ: {meshes}"
    mega_steps = triangles * steps / 1e6
    per_worker = [
        run.worker_seconds / run_bare.report["evolve_wall_seconds"]
        for run, run_bare in zip(platform, bare, strict=True)
    ]
    evolve = [run.report["evolve_wall_seconds"] for run in bare]
    client = [run.client_seconds for run in platform]
    worker = [run.worker_seconds for run in platform]
    rows = [
        ("bare ANUGA evolve wall, s", spread(evolve)),
        ("bare ANUGA evolve CPU, s", spread([run.report["evolve_cpu_seconds"] for run in bare])),
        ("bare ANUGA whole process wall, s", spread([run.wall_seconds for run in bare])),
        ("platform, client-observed (POST → first complete status), s", spread(client)),
        ("platform, worker-side (started_at → finished_at), s", spread(worker)),
        ("platform's child, start to post-processing (its wall_seconds), s", spread([child_wall(r) for r in platform])),
    ]
    if rounds.child:
        rows.append(("simulation child alone, process wall, s", spread([run.wall_seconds for run in rounds.child])))
    rows += [
        ("**platform (client) / bare evolve, same round**", f"**{spread(ratio(rounds), 3)}**"),
        ("platform (worker-side) / bare evolve, same round", spread(per_worker, 3)),
        ("sim-seconds per wall-second, platform (client)", spread([sim / value for value in client])),
        ("sim-seconds per wall-second, bare evolve", spread([sim / value for value in evolve])),
        ("million triangle-steps per wall-second, platform (client)", spread([mega_steps / v for v in client])),
        ("million triangle-steps per wall-second, bare evolve", spread([mega_steps / v for v in evolve])),
        ("1-min load average at the start, platform", spread([run.load[0] for run in platform])),
        ("1-min load average at the start, bare", spread([run.load[0] for run in bare])),
    ]
    lines = [
        f"### {data.name}: {triangles:,} triangles, {sim:g} sim-s, {steps:,} internal steps, OpenMP threads "
        f"{threads}, {os.cpu_count()} cores, {len(platform)} rounds ({same})",
        "",
        "| measure | median (range) | each round, in order |",
        "|---|---|---|",
    ]
    lines += [f"| {name} | {value} |" for name, value in rows]
    lines += ["", *breakdown(rounds)]
    return "\n".join(lines)


def child_wall(run: PlatformRun) -> float:
    return float((run.detail.get("statistics") or {}).get("wall_seconds") or 0.0)


def breakdown(rounds: Rounds) -> list[str]:
    """Where the platform's seconds beyond the bare evolve go, as medians over the rounds."""
    platform = rounds.platform
    median = statistics.median
    evolve = median(run.report["evolve_wall_seconds"] for run in rounds.bare)
    parts = [
        ("POST → run queued (request, spend, commit)", median(r.moment("queued_at") - r.posted_at for r in platform)),
        ("queued → worker started the task", median(r.moment("started_at") - r.moment("queued_at") for r in platform)),
        (
            "worker-side minus its child's own wall (download, spawn, interpreter, result upload, DB)",
            median(r.worker_seconds - child_wall(r) for r in platform),
        ),
        (
            "its child's wall minus the bare evolve (interpreter, set-up, recorder, .sww, progress, post-processing)",
            median(child_wall(r) for r in platform) - evolve,
        ),
        ("finished → client saw complete (poll)", median(r.seen_at - r.moment("finished_at") for r in platform)),
    ]
    lines = [
        f"Where the platform's {median(r.client_seconds for r in platform) - evolve:.2f} s beyond the bare evolve go "
        "(medians over the rounds, so the rows add up only roughly):",
        "",
        "| component | seconds |",
        "|---|---:|",
    ]
    lines += [f"| {name} | {seconds:.2f} |" for name, seconds in parts]
    if rounds.child:
        phases = {
            key: median(run.report[key] for run in rounds.child) for key in ("setup", "evolve", "post_processing")
        }
        lines += [
            "",
            "The simulation child alone (medians): "
            f"set-up before its first yield {phases['setup']:.2f} s, evolve {phases['evolve']:.2f} s "
            f"(bare {evolve:.2f} s), post-processing {phases['post_processing']:.2f} s.",
        ]
    return lines


BEFORE = {"merewether": "1.143", "small_test": "2.669 (one run, before issue 15)"}


def goal_row(rounds: Rounds) -> str:
    return (
        f"| {rounds.data.name} ({rounds.data.duration} model-s) run through the platform / bare ANUGA | "
        f"{BEFORE[rounds.data.name]} | "
        f"{statistics.median(ratio(rounds)):.3f} (range {min(ratio(rounds)):.3f}-{max(ratio(rounds)):.3f}, "
        f"{len(rounds.platform)} interleaved rounds) | <= 1.05 |"
    )


# --- main ------------------------------------------------------------------------------------------------------


def _terminated(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("small_test", "merewether"), default=None)
    parser.add_argument("--merewether", type=Path, default=DEFAULT_MEREWETHER)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=3, help="rounds of platform then bare, interleaved")
    parser.add_argument(
        "--duration", type=int, default=None, help="model seconds instead of the data set's (a shorter measurement)"
    )
    parser.add_argument("--child", action="store_true", help="add the simulation child alone to every round")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds of quiet before each measurement")
    parser.add_argument("--keep", action="store_true", help="keep the throwaway var dir (logs, packages)")
    options = parser.parse_args()

    sets: list[DataSet] = []
    if options.only in (None, "small_test"):
        sets.append(data_set("small_test", SMALL_TEST))
    if options.only in (None, "merewether"):
        if (options.merewether / "scenario.json").is_file():
            sets.append(data_set("merewether", options.merewether))
        else:
            print(f"merewether skipped: no scenario.json in {options.merewether}", flush=True)
    if not sets:
        return
    if options.duration:
        sets = [replace(data, duration=options.duration) for data in sets]

    signal.signal(signal.SIGTERM, _terminated)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started in the background
    stack = Stack(options.threads)
    results, failed = [Rounds(data=data) for data in sets], False
    print(
        f"var dir {stack.var}; server {stack.origin}; OpenMP threads {options.threads}; cores {os.cpu_count()}",
        flush=True,
    )
    try:
        stack.start()
        for rounds in results:
            measure(stack, rounds, settle=options.settle, repeats=options.repeats, with_child=options.child)
    except KeyboardInterrupt:
        failed = True
        print("interrupted; stopping the server, the worker and any simulation", file=sys.stderr, flush=True)
    except Exception:
        failed = True
        print(
            f"worker log tail:\n{stack.tail('worker.log')}\n\nserver log tail:\n{stack.tail('server.log')}",
            file=sys.stderr,
            flush=True,
        )
        raise
    finally:
        stack.stop()
        if options.keep or failed:
            print(f"kept {stack.var}", file=sys.stderr, flush=True)
        else:
            shutil.rmtree(stack.var, ignore_errors=True)

    print()
    results = [result for result in results if result.platform]  # --repeats 0 only builds (with --keep: a package)
    for result in results:
        print(report(result, options.threads))
        print()
    print("| figure | before | now | goal |\n|---|---|---|---|")
    for result in results:
        print(goal_row(result))
    print(f"\ncommand: {' '.join([Path(sys.executable).name, *sys.argv])}; load at the end {_load(load())}")


if __name__ == "__main__":
    main()
