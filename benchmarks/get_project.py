"""tools/call get_project through /mcp/ against a direct GET of the same project, with the same key.

Starts the real ASGI app under uvicorn on loopback with a throwaway database, creates a user, a key and a
project, then alternates the two requests and reports medians and their ratio, all measured in one run.

    .venv/bin/python benchmarks/get_project.py [--requests 300]
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def wait_until_up(url: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    options = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="hydrata-bench-")
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    env = dict(os.environ, HYDRATA_VAR_DIR=workdir, HYDRATA_SITE_URL=origin, LOG_LEVEL="WARNING")
    manage(env, "migrate", "--noinput")
    key = manage(env, "create_agent_key", "--username", "bench", "--level", "draft", "--create-user")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        wait_until_up(origin + "/")
        with httpx.Client(base_url=origin, headers={"Authorization": f"Bearer {key}"}, timeout=30) as http:
            project = http.post("/api/v2/anuga/projects/", json={"name": "Bench", "projection": "EPSG:28356"}).json()
            rest_path = f"/api/v2/anuga/projects/{project['id']}/"
            call = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "get_project", "arguments": {"project_id": project["id"]}},
            }
            mcp_headers = {
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
                "MCP-Protocol-Version": "2025-11-25",
            }

            def via_rest() -> None:
                assert http.get(rest_path).status_code == 200

            def via_mcp() -> None:
                response = http.post("/mcp/", content=json.dumps(call), headers=mcp_headers)
                assert response.status_code == 200 and not response.json()["result"]["isError"]

            for _ in range(20):  # warm up both paths
                via_rest()
                via_mcp()
            rest, mcp = [], []
            for _ in range(options.requests):
                rest.append(timed(via_rest))
                mcp.append(timed(via_mcp))
    finally:
        server.terminate()
        server.wait(timeout=10)

    rest_median, mcp_median = statistics.median(rest), statistics.median(mcp)
    print(f"requests each:                     {options.requests} (alternating, after 20 warm-up pairs)")
    print(f"direct GET {rest_path:<24} median {rest_median:6.2f} ms  p90 {_p90(rest):6.2f} ms")
    print(f"tools/call get_project             median {mcp_median:6.2f} ms  p90 {_p90(mcp):6.2f} ms")
    print(f"ratio MCP / direct (medians):      {mcp_median / rest_median:.2f}")


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


if __name__ == "__main__":
    main()
