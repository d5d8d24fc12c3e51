"""What the tool catalog costs a model's context: `tools/list` bytes and approximate tokens per tool.

Starts the real ASGI app under uvicorn on loopback with a throwaway database and a read key, lists the tools with
the official MCP client (once as a plain client, once as a host that negotiated MCP Apps and so also sees the
app-only tools), and measures each tool as the compact JSON the server sends for it.

    .venv/bin/python benchmarks/catalog.py [--dump FILE]

`--dump FILE` also writes the Apps host's catalog (every tool's wire JSON, by name) to FILE, so two commits' catalogs
can be compared: `scripts/catalog_diff.py BEFORE AFTER` lists each tool's fields gained or lost.
"""

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx2
from mcp.client import Client
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.processes import agent_key, free_port, manage, wait_for_port  # noqa: E402

COMMAND = ".venv/bin/python benchmarks/catalog.py"
# Measured with this script on commit 8b7d82c, before the catalog was trimmed: a model's 38 tools in 122,599 bytes
# (an Apps host's 41 in 128,613).
BEFORE_BYTES_PER_TOOL = 3226
BUDGET_BYTES_PER_TOOL = 1200
APPS_HOST = {
    "mode": "2026-07-28",
    "extensions": [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})],
}


def wire_bytes(tool) -> int:
    """A tool's size as it travels in tools/list: its compact JSON under the protocol's own field names."""
    wire = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    return len(json.dumps(wire, separators=(",", ":"), ensure_ascii=False).encode())


async def listed_tools(origin: str, key: str, **client_kwargs) -> list:
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(f"{origin}/mcp/", http_client=http), **client_kwargs) as client,
    ):
        return (await client.list_tools()).tools


def report(title: str, tools: list) -> int:
    sizes = {tool.name: wire_bytes(tool) for tool in tools}
    total = sum(sizes.values())
    print(f"\n## {title}: {len(sizes)} tools, {total:,} bytes (~{total // 4:,} tokens)\n")
    print("| tool | bytes | ~tokens |\n|---|---:|---:|")
    for name, size in sorted(sizes.items(), key=lambda item: -item[1]):
        print(f"| {name} | {size:,} | {size // 4:,} |")
    heaviest = sorted(sizes, key=sizes.__getitem__, reverse=True)[:3]
    print(f"\nheaviest: {', '.join(f'{name} ({sizes[name]:,} B)' for name in heaviest)}")
    return total // len(sizes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", type=Path, help="write the Apps host's catalog, by tool name, to this JSON file")
    options = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="hydrata-bench-")
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    env = dict(os.environ, HYDRATA_VAR_DIR=workdir, HYDRATA_SITE_URL=origin, LOG_LEVEL="WARNING")
    manage(env, "migrate", "--noinput")
    key = agent_key(env, username="bench", level="read")
    uvicorn = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port)]
    server = subprocess.Popen([*uvicorn, "--log-level", "warning", "--no-access-log"], cwd=ROOT, env=env)
    try:
        wait_for_port(port, server, name="uvicorn")
        model_catalog = asyncio.run(listed_tools(origin, key))
        apps_catalog = asyncio.run(listed_tools(origin, key, **APPS_HOST))
    finally:
        server.terminate()
        server.wait(timeout=10)

    if options.dump:
        wire = {tool.name: tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in apps_catalog}
        options.dump.write_text(json.dumps(wire, indent=1, sort_keys=True))
    per_tool = report("What a model sees (a client without MCP Apps)", model_catalog)
    report("What a host that negotiated MCP Apps lists (app-only tools included)", apps_catalog)
    print(f"\nreproduce: {COMMAND}\n")
    print("| figure | before | now | goal |\n|---|---|---|---|")
    print(
        f"| tools/list bytes per tool ({len(model_catalog)} tools) | {_kb(BEFORE_BYTES_PER_TOOL)} "
        f"| {_kb(per_tool)} | <= {_kb(BUDGET_BYTES_PER_TOOL)} |"
    )


def _kb(size: int) -> str:
    return f"{size / 1000:.3f} KB ({size:,} B)"


if __name__ == "__main__":
    main()
