"""The MCP hop: each read tool through /mcp/ against the REST calls it makes, on a real small_test run.

Starts the production web command (`python -m config.serve`) on loopback with a throwaway SQLite database and
eager background tasks, arranges a small_test model and computes one real run through the REST API, then
alternates each pair (direct REST, then the same read as a tools/call) for the given number of rounds and prints
the medians, their ratios and the goals, all from one run. Each tool is called as a 2025-11-25 client calls it
(the SDK's stateless streamable HTTP transport, what most clients speak today); get_project and get_run_status
are also called as a 2026-07-28 client calls them (one self-contained POST, the SDK's lighter path).

Beside the wall-clock medians it prints the web server's CPU time per call (from /proc, summed over its processes
and spread over the calls it was spent in): on a shared machine the wall clock also counts the other work's hold
on the cores at every thread hop, the CPU time much less. One web process by default: several on one SQLite file
wait for each other's file locks, which says nothing of the hop. `--production` runs the production shape instead:
PostgreSQL, Redis and S3 (started as benchmarks/load.py starts them) and one web process per core.

    .venv/bin/python benchmarks/mcp_hop.py [--rounds 200] [--web-workers N] [--production]
"""

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.model_setup import PROJECTS, small_test_model, until  # noqa: E402
from tests.processes import agent_key, free_port, manage, web_command  # noqa: E402
from tests.production.stack import production_servers  # noqa: E402

RUNS = "/api/v2/anuga/runs/"
LEGACY, MODERN = "2025-11-25", "2026-07-28"
MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": LEGACY,
}
# What a 2026-07-28 request carries besides its method: the protocol, the client and its capabilities in _meta,
# and the method and tool named again in headers.
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "mcp_hop", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
WARM_UP_ROUNDS = 20
GOALS = {"get_project": 1.5, "get_run_status": 1.5, "get_run_results": 2.0}


@dataclass
class Pair:
    tool: str
    arguments: dict
    rest_paths: list[str]
    era: str = LEGACY
    rest_ms: list[float] = field(default_factory=list)
    mcp_ms: list[float] = field(default_factory=list)
    rest_cpu_s: float = 0.0
    mcp_cpu_s: float = 0.0


class ServerCPU:
    """CPU seconds the web command's processes (it and its worker processes) have used so far."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.tick = os.sysconf("SC_CLK_TCK")

    def seconds(self) -> float:
        return sum(self._of(pid) for pid in [self.pid, *self._children()]) / self.tick

    def _children(self) -> list[int]:
        path = Path(f"/proc/{self.pid}/task/{self.pid}/children")
        return [int(pid) for pid in path.read_text().split()] if path.exists() else []

    def _of(self, pid: int) -> int:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            return 0
        return int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks


def computed_run(url: str, key: str) -> tuple[int, int]:
    """A small_test project and one complete run of it (computed eagerly by the web process)."""
    model = small_test_model(url, key)
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=600) as http:
        base = f"{PROJECTS}{model.project_id}/"
        scenario = http.post(f"{base}scenarios/", json={"name": "hop", "resolution": 10, "duration": 300}).json()
        http.post(f"{base}scenarios/{scenario['id']}/build/").raise_for_status()
        built = until(
            lambda: http.get(f"{base}scenarios/{scenario['id']}/").json(),
            lambda s: s["computed_status"] not in ("created", "building"),
            seconds=600,
        )
        if built["computed_status"] != "built":
            raise RuntimeError(f"the build ended {built['computed_status']}")
        run = http.post(f"/api/v2/anuga/scenarios/{scenario['id']}/run/", json={}).json()
        status = until(
            lambda: http.get(f"{RUNS}{run['id']}/status/").json(),
            lambda s: s["status"] in ("complete", "error", "cancelled"),
            seconds=600,
        )
        if status["status"] != "complete":
            raise RuntimeError(f"run {run['id']} ended {status['status']}: {status['error_message']}")
    return model.project_id, run["id"]


def timed(fn: Callable[[Pair], None], pair: Pair, cpu: ServerCPU) -> tuple[float, float]:
    """Wall milliseconds of the call, and the server's CPU seconds while it ran."""
    used, start = cpu.seconds(), time.perf_counter()
    fn(pair)
    return (time.perf_counter() - start) * 1000, cpu.seconds() - used


def measure(http: httpx.Client, pairs: list[Pair], rounds: int, cpu: ServerCPU) -> None:
    def via_rest(pair: Pair) -> None:
        for path in pair.rest_paths:
            assert http.get(path).status_code == 200, path

    def via_mcp(pair: Pair) -> None:
        params: dict = {"name": pair.tool, "arguments": pair.arguments}
        headers = MCP_HEADERS
        if pair.era == MODERN:
            params["_meta"] = MODERN_META
            headers = {**MCP_HEADERS, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": pair.tool}
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
        response = http.post("/mcp/", content=json.dumps(call), headers=headers)
        assert response.status_code == 200 and not response.json()["result"]["isError"], response.text[:300]

    for _ in range(WARM_UP_ROUNDS):
        for pair in pairs:
            via_rest(pair)
            via_mcp(pair)
    for _ in range(rounds):
        for pair in pairs:
            wall, used = timed(via_rest, pair, cpu)
            pair.rest_ms.append(wall)
            pair.rest_cpu_s += used
            wall, used = timed(via_mcp, pair, cpu)
            pair.mcp_ms.append(wall)
            pair.mcp_cpu_s += used


def report(pairs: list[Pair], rounds: int, server: str, loads: tuple[str, str]) -> str:
    lines = [
        f"rounds: {rounds} per pair, interleaved (REST, then tools/call), after {WARM_UP_ROUNDS} warm-up rounds",
        f"server: python -m config.serve, {server}; load average before {loads[0]}, after {loads[1]}",
        "",
        f"{'tools/call':<16} {'era':<10} {'REST calls':<36} {'REST p50':>9} {'MCP p50':>9} {'MCP p90':>9} {'ratio':>6} "
        f"{'goal':>5} | {'server CPU per call: REST':>25} {'MCP':>8} {'ratio':>6}",
    ]
    for pair in pairs:
        rest, mcp = statistics.median(pair.rest_ms), statistics.median(pair.mcp_ms)
        rest_cpu, mcp_cpu = pair.rest_cpu_s / rounds * 1000, pair.mcp_cpu_s / rounds * 1000
        paths = " + ".join(path.removeprefix("/api/v2/anuga") for path in pair.rest_paths)
        lines.append(
            f"{pair.tool:<16} {pair.era:<10} {paths:<36} {rest:7.2f}ms {mcp:7.2f}ms {_p90(pair.mcp_ms):7.2f}ms "
            f"{mcp / rest:6.2f} {'<=' + format(GOALS[pair.tool], 'g'):>5} | "
            f"{rest_cpu:23.2f}ms {mcp_cpu:6.2f}ms {mcp_cpu / rest_cpu:6.2f}"
        )
    status = next(pair for pair in pairs if pair.tool == "get_run_status" and pair.era == LEGACY)
    lines += ["", f"get_run_status through MCP: p50 {statistics.median(status.mcp_ms):.2f} ms"]
    lines.append(f"command: {' '.join(['python', *sys.argv])}")
    return "\n".join(lines)


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument(
        "--web-workers", type=int, default=None, help="default: 1 on SQLite, one per core with --production"
    )
    parser.add_argument(
        "--production", action="store_true", help="on PostgreSQL, Redis and S3 (the production profile's servers)"
    )
    options = parser.parse_args()
    workers = options.web_workers or ((os.cpu_count() or 1) if options.production else 1)

    with contextlib.ExitStack() as stack:
        profile = stack.enter_context(production_servers()) if options.production else {}
        workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="hydrata-hop-"))
        print(run_pairs(profile, workdir=workdir, workers=workers, rounds=options.rounds))


def run_pairs(profile: dict[str, str], *, workdir: str, workers: int, rounds: int) -> str:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(
        os.environ,
        **profile,
        HYDRATA_VAR_DIR=workdir,
        HYDRATA_SITE_URL=url,
        HYDRATA_API_ORIGIN=url,
        HYDRATA_WEB_WORKERS=str(workers),
        CELERY_TASK_ALWAYS_EAGER="true",
        HYDRATA_AGENT_RATE_LIMIT="0",  # thousands of calls a minute from one key
        LOG_LEVEL="WARNING",
    )
    manage(env, "migrate", "--noinput")
    key = agent_key(env, username="bench", level="launch")
    # The access log goes to a file, kept out of the table.
    with web_command(env, port=port, log=Path(workdir) / "web.log") as server:
        project_id, run_id = computed_run(url, key)
        pairs = [
            Pair("get_project", {"project_id": project_id}, [f"{PROJECTS}{project_id}/"]),
            Pair("get_run_status", {"run_id": run_id}, [f"{RUNS}{run_id}/status/"]),
            Pair("get_run_results", {"run_id": run_id}, [f"{RUNS}{run_id}/results/", f"{RUNS}{run_id}/preview/"]),
            Pair("get_project", {"project_id": project_id}, [f"{PROJECTS}{project_id}/"], era=MODERN),
            Pair("get_run_status", {"run_id": run_id}, [f"{RUNS}{run_id}/status/"], era=MODERN),
        ]
        before = _load()
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
            measure(http, pairs, rounds, ServerCPU(server.pid))
    database = "PostgreSQL, Redis, S3" if profile else "SQLite"
    return report(pairs, rounds, f"{workers} web worker(s) on {database}", (before, _load()))


if __name__ == "__main__":
    main()
