"""Many MCP clients at once against the production web command, on the production shape or the default one.

`--shape production` (the default) starts the production profile's servers (tests/production/stack.py:
PostgreSQL, Redis, S3); `--shape default` uses what a plain checkout uses (SQLite in a scratch folder, each
process's own memory cache, local files). Either way it migrates, starts the Procfile's web command `python -m
config.serve` (HYDRATA_WEB_WORKERS processes, default the core count), arranges a small_test project with a built
scenario through the REST API, then measures one client alone and N clients together, each an official SDK client
with its own session calling get_project, list_scenarios, get_run_status and get_run in turn, and create_project
every WRITE_EVERY calls. Stops by itself after the given seconds; talks only to 127.0.0.1.

All clients use one draft key, and the per-key rate limit is off (HYDRATA_AGENT_RATE_LIMIT=0): the benchmark
measures the server, and one key at these rates would be throttled by design (600 requests a minute per key).

    .venv/bin/python benchmarks/load.py [--clients 32] [--seconds 60] [--shape production|default]
                                        [--web-workers N] [--json]

Prints calls, errors by code, throughput and p50/p95/p99, the web command's loopback failures and retries, and
exits 1 when an error occurred or p95 reached 10x the single client's median (the goal).
"""

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.mcp_client import mcp_client  # noqa: E402
from tests.model_setup import PROJECTS, api, small_test_model  # noqa: E402
from tests.processes import agent_key, free_port, manage, web_command  # noqa: E402
from tests.production.stack import production_servers  # noqa: E402

WRITE_EVERY = 20
GOAL_P95_OVER_SINGLE_MEDIAN = 10


@dataclass
class Target:
    url: str
    key: str
    project_id: int
    run_id: int


@dataclass
class Tally:
    latencies_ms: list[float] = field(default_factory=list)
    by_tool: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    error_codes: Counter[str] = field(default_factory=Counter)

    def failed(self, code: str, text: str) -> None:
        self.errors.append(text[:300])
        self.error_codes[code] += 1


# A tool error names the platform's status and code as "(HTTP 404, PROJECT_NOT_FOUND)"; the client's own failures
# are told apart by their wording (hydrata_mcp/client.py).
CODE_IN_TEXT = re.compile(r"\(HTTP (\d{3})(?:, ([A-Z_]+))?\)")
CLIENT_FAILURES = {
    "could not be reached": "PLATFORM_UNREACHABLE",
    "did not answer within": "PLATFORM_TIMEOUT",
    "unreadable": "UNREADABLE_RESPONSE",
}


def error_code(text: str) -> str:
    for wording, code in CLIENT_FAILURES.items():
        if wording in text:
            return code
    named = CODE_IN_TEXT.search(text)
    if named:
        return named.group(2) or f"HTTP_{named.group(1)}"
    return "OTHER"


def calls(target: Target) -> list[tuple[str, dict]]:
    return [
        ("get_project", {"project_id": target.project_id}),
        ("list_scenarios", {"project_id": target.project_id}),
        ("get_run_status", {"run_id": target.run_id}),
        ("get_run", {"run_id": target.run_id}),
    ]


async def one_client(target: Target, deadline: float, tally: Tally, offset: int) -> None:
    """One SDK session calling until the deadline. A call that raised (not a tool error: the session's transport
    broke) is counted, and the client opens a new session, as an MCP host reconnects."""
    n = offset
    while time.monotonic() < deadline:
        broken = False
        try:
            async with mcp_client(target.url, target.key) as client:
                n, broken = await calls_until(client, target, deadline, tally, n, offset)
        except Exception as failure:  # the session failed to open or to close: counted once with its call
            if not broken:
                tally.failed(f"SESSION_{type(failure).__name__}", f"session: {failure!r}")
                n += 1
                await asyncio.sleep(0.5)  # not a busy loop against a server that is down


async def calls_until(client, target: Target, deadline: float, tally: Tally, n: int, offset: int) -> tuple[int, bool]:
    """Calls in turn until the deadline or until one raises; the next call's number, and whether one raised."""
    reads = calls(target)
    while time.monotonic() < deadline:
        name, arguments = reads[n % len(reads)]
        if n % WRITE_EVERY == WRITE_EVERY - 1:
            name, arguments = "create_project", {"name": f"load {offset}-{n}", "projection": "EPSG:28356"}
        started = time.perf_counter()
        raised = False
        try:
            result = await client.call_tool(name, arguments)
            if result.is_error:
                text = result.content[0].text
                tally.failed(error_code(text), f"{name}: {text[:200]}")
        except Exception as failure:  # a failed call is counted, the load goes on in a new session
            tally.failed(f"CALL_{type(failure).__name__}", f"{name}: {failure!r}")
            raised = True
        elapsed = (time.perf_counter() - started) * 1000
        tally.latencies_ms.append(elapsed)
        tally.by_tool.setdefault(name, []).append(elapsed)
        n += 1
        if raised:
            return n, True
    return n, False


def machine_cpu_seconds() -> tuple[float, float]:
    """(busy, idle) CPU seconds of the whole machine since boot, all cores (/proc/stat): the web processes, the
    database, the broker and this client together."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(fields) - idle) / tick, idle / tick


def client_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(target: Target, *, clients: int, seconds: float) -> dict:
    tally = Tally()
    busy_before, idle_before = machine_cpu_seconds()
    client_before = client_cpu_seconds()

    async def everyone() -> None:
        deadline = time.monotonic() + seconds
        await asyncio.gather(*(one_client(target, deadline, tally, offset) for offset in range(clients)))

    started = time.perf_counter()
    asyncio.run(everyone())
    wall = time.perf_counter() - started
    busy_after, idle_after = machine_cpu_seconds()
    busy, idle = busy_after - busy_before, idle_after - idle_before
    client_cpu = client_cpu_seconds() - client_before
    ordered = sorted(tally.latencies_ms)

    def percentile(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))], 1) if ordered else 0.0

    return {
        "clients": clients,
        "seconds": round(wall, 1),
        "calls": len(ordered),
        "calls_per_second": round(len(ordered) / wall, 1),
        "p50_ms": round(statistics.median(ordered), 1) if ordered else 0.0,
        "p95_ms": percentile(95),
        "p99_ms": percentile(99),
        "errors": len(tally.errors),
        "errors_by_code": dict(tally.error_codes),
        "first_errors": tally.errors[:5],
        "p50_ms_by_tool": {name: round(statistics.median(values), 1) for name, values in tally.by_tool.items()},
        "machine_busy_pct": round(100 * busy / (busy + idle), 1) if busy + idle else 0.0,
        "cpu_ms_per_call": round(1000 * busy / len(ordered), 1) if ordered else 0.0,
        "client_cpu_ms_per_call": round(1000 * client_cpu / len(ordered), 1) if ordered else 0.0,
    }


def loopback_events(logged: list[str]) -> dict[str, int]:
    """How often the web command's REST client logged each kind of loopback failure or retry."""
    marker = " hydrata_mcp.client "
    return dict(Counter(line.split(marker, 1)[1] for line in logged if marker in line))


def arrange(url: str, key: str) -> Target:
    model = small_test_model(url, key)
    with api(url, key) as http:
        scenario = http.post(
            f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "load", "resolution": 10, "duration": 300}
        ).json()
        built = http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/")
        if built.status_code != 202:
            raise RuntimeError(f"the build was refused: {built.text}")
        run_id = built.json()["run"]["id"]
    return Target(url, key, model.project_id, run_id)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--single-seconds", type=float, default=10)
    parser.add_argument("--web-workers", type=int, default=None, help="default: HYDRATA_WEB_WORKERS's default")
    parser.add_argument(
        "--shape",
        choices=("production", "default"),
        default="production",
        help="production: PostgreSQL, Redis and S3; default: SQLite, each process's memory cache, local files",
    )
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()

    servers = production_servers() if options.shape == "production" else contextlib.nullcontext({})
    with servers as profile, tempfile.TemporaryDirectory(prefix="hydrata-load-") as scratch:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        # Background work runs inside the web process here (eager), so arranging needs no worker.
        env = dict(
            os.environ,
            **profile,
            HYDRATA_VAR_DIR=scratch,
            HYDRATA_SITE_URL=url,
            HYDRATA_API_ORIGIN=url,
            HYDRATA_AGENT_RATE_LIMIT="0",
            CELERY_TASK_ALWAYS_EAGER="1",
            LOG_LEVEL="WARNING",
            PYTHONPATH=str(ROOT),
        )
        if options.web_workers:
            env["HYDRATA_WEB_WORKERS"] = str(options.web_workers)
        manage(env, "migrate", "--noinput")
        key = agent_key(env, username="load")
        with web_command(env, port=port, log=Path(scratch) / "web.log"):
            target = arrange(url, key)
            measure(target, clients=1, seconds=2)  # warm every process's imports and connections
            single = measure(target, clients=1, seconds=options.single_seconds)
            loaded = measure(target, clients=options.clients, seconds=options.seconds)
        logged = (Path(scratch) / "web.log").read_text().splitlines()
        loopback = loopback_events(logged)
        if loaded["errors"]:
            warnings = [line for line in logged if " WARNING " in line or " ERROR " in line]
            print("the web command's warnings and errors:", *warnings[-40:], sep="\n")
    goal_ms = GOAL_P95_OVER_SINGLE_MEDIAN * single["p50_ms"]
    # Little's law: N clients always waiting keep N calls in flight, so when every core is busy the mean latency
    # cannot fall below N x (CPU per call) / cores, however the server is arranged.
    cores = os.cpu_count() or 1
    floor_ms = options.clients * loaded["cpu_ms_per_call"] / cores
    report = {
        "shape": options.shape,
        "web_workers": int(env.get("HYDRATA_WEB_WORKERS", os.cpu_count() or 1)),
        "cores": os.cpu_count(),
        "single": single,
        "loaded": loaded,
        "goal_p95_ms": round(goal_ms, 1),
        "mean_latency_floor_ms": round(floor_ms, 1),
        "loopback_events": loopback,
        "met": loaded["errors"] == 0 and loaded["p95_ms"] < goal_ms,
    }
    if options.json:
        print(json.dumps(report))
    else:
        print(
            f"{options.shape} shape, web processes {report['web_workers']} on {report['cores']} cores, "
            "one draft key for all clients, rate limit off"
        )
        for label, row in (("1 client", single), (f"{options.clients} clients", loaded)):
            print(
                f"{label:>11}: {row['calls']} calls in {row['seconds']} s = {row['calls_per_second']}/s, "
                f"p50 {row['p50_ms']} ms, p95 {row['p95_ms']} ms, p99 {row['p99_ms']} ms, errors {row['errors']}"
                + (f" {row['errors_by_code']}" if row["errors"] else "")
            )
            print(" " * 13 + "p50 by tool: " + ", ".join(f"{k} {v} ms" for k, v in row["p50_ms_by_tool"].items()))
            print(
                " " * 13 + f"machine busy {row['machine_busy_pct']} %, CPU per call {row['cpu_ms_per_call']} ms "
                f"(this client's share {row['client_cpu_ms_per_call']} ms)"
            )
        print(
            f"the cores bound the mean latency of {options.clients} clients to at least {floor_ms:.0f} ms "
            f"({options.clients} x {loaded['cpu_ms_per_call']} ms of CPU per call / {cores} cores)"
        )
        print(
            "the web command's loopback failures and retries (whole run): "
            + (", ".join(f"{count} x {event}" for event, count in loopback.items()) or "none")
        )
        print(f"goal: no errors and p95 under {goal_ms:.0f} ms: {'met' if report['met'] else 'NOT met'}")
        for error in loaded["first_errors"]:
            print("  error:", error)
    return 0 if report["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
