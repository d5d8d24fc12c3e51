"""A first flood through the MCP tools, as an agent makes one: the small_test sample (tests/data/small_test/, a
200 m x 200 m DEM under CC BY 4.0, see its LICENSE_DATA.md) from terrain to flood depths on a running server.

    make demo-flood                      # against `make run` in another terminal (a launch key is made for demo)
    HYDRATA_AGENT_KEY=hk_... python -m scripts.demo_flood [--url http://127.0.0.1:8000] [--duration 1800]

It speaks to <url>/mcp/ with the official MCP client; the two GeoJSON layers go up through the upload endpoint
(POST /api/v2/uploads/upload/, multipart field base_file), since no tool accepts file contents. Each step prints one
line; the last is the run's ui_url (sign in to open it).
"""

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from hydrata_contract.states import TERMINAL_RUN_STATES, RunStatus, TerrainStatus

SAMPLE = Path(__file__).resolve().parent.parent / "tests" / "data" / "small_test" / "inputs"
# Layer kind -> the sample's file: boundary lines carry `boundary` and `location`, the rain polygon `data` (mm/hr).
LAYERS = {"boundary": "boundary.geojson", "rainfall": "rainfall.geojson"}
TOOL_TIMEOUT_SECONDS = 340  # a waiting tool answers within its own 280 s at most


class DemoFailed(Exception):
    pass


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    if result.is_error or result.structured_content is None:
        raise DemoFailed(f"{tool} failed: {result.content[0].text if result.content else result}")
    return result.structured_content


async def upload_layer(http: httpx2.AsyncClient, url: str, path: Path) -> str:
    response = await http.post(
        f"{url}/api/v2/uploads/upload/", files={"base_file": (path.name, path.read_bytes(), "application/geo+json")}
    )
    if response.status_code != 201:
        raise DemoFailed(f"the upload of {path.name} was refused: {response.status_code} {response.text}")
    return str(response.json()["execution_id"])


async def terrain(client: Client, http: httpx2.AsyncClient, project_id: int) -> None:
    dem = SAMPLE / "dem.tif"
    presigned = await call(
        client, "presign_terrain_upload", {"project_id": project_id, "filename": dem.name, "size": dem.stat().st_size}
    )
    put = await http.put(
        presigned["upload_url"], content=dem.read_bytes(), headers={"Content-Type": presigned["content_type"]}
    )
    if put.status_code != 200:
        raise DemoFailed(f"the terrain upload was refused: {put.status_code} {put.text}")
    await call(
        client,
        "finalize_terrain_upload",
        {"project_id": project_id, "staging_key": presigned["staging_key"], "process_id": presigned["process_id"]},
    )
    waited = await call(client, "get_terrain", {"project_id": project_id, "poll_interval_seconds": 2})
    if waited["outcome"] != TerrainStatus.READY:
        raise DemoFailed(f"the terrain did not import: {waited['say_to_user']}")


async def layers(client: Client, http: httpx2.AsyncClient, url: str, project_id: int) -> None:
    for kind, name in LAYERS.items():
        execution_id = await upload_layer(http, url, SAMPLE / name)
        attached = await call(
            client,
            "attach_input_layer",
            {"project_id": project_id, "kind": kind, "execution_id": execution_id, "poll_interval_seconds": 2},
        )
        if attached["outcome"] != "attached":
            raise DemoFailed(f"the {kind} layer was not attached: {attached['say_to_user']}")
        print(f"{kind}: {attached['feature_count']} features from {name}")


async def simulate(client: Client, project_id: int, *, duration: int) -> tuple[str, dict[str, Any]]:
    """The run's ui_url (its place in the map, from start_simulation) and its results."""
    scenario = await call(
        client,
        "create_scenario",
        {"project_id": project_id, "name": "First flood", "resolution": 10, "duration": duration},
    )
    built = await call(
        client, "build_scenario", {"project_id": project_id, "scenario_id": scenario["id"], "poll_interval_seconds": 2}
    )
    if built["outcome"] != RunStatus.BUILT:
        raise DemoFailed(f"the build did not finish: {built['say_to_user']}")
    print(f"mesh: {built['mesh_triangle_count']} triangles")
    run = await call(client, "start_simulation", {"scenario_id": scenario["id"]})
    print(f"run {run['id']}: {run['status']}")
    status = run
    while status["status"] not in TERMINAL_RUN_STATES:
        await asyncio.sleep(3)
        status = await call(client, "get_run_status", {"run_id": run["id"]})
    if status["status"] != RunStatus.COMPLETE:
        raise DemoFailed(f"run {run['id']} ended {status['status']}: {status.get('error_message')}")
    return run["ui_url"], await call(client, "get_run_results", {"run_id": run["id"]})


async def flood(client: Client, http: httpx2.AsyncClient, url: str, *, duration: int) -> tuple[str, dict[str, Any]]:
    project = await call(client, "create_project", {"name": "First flood", "projection": "EPSG:28356"})
    print(f"project {project['id']}: {project['name']}")
    await terrain(client, http, project["id"])
    print("terrain: ready")
    await layers(client, http, url, project["id"])
    return await simulate(client, project["id"], duration=duration)


async def first_flood(url: str, key: str, *, duration: int) -> str:
    headers = {"Authorization": f"Bearer {key}"}
    timeout = httpx2.Timeout(60, read=TOOL_TIMEOUT_SECONDS)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        Client(streamable_http_client(f"{url}/mcp/", http_client=http)) as client,
    ):
        ui_url, results = await flood(client, http, url, duration=duration)
    statistics = results["statistics"]
    print(f"peak depth: {statistics['peak_depth_m']:.3f} m, wet area: {statistics['wet_area_m2']:.0f} m²")
    return ui_url


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=os.environ.get("HYDRATA_SITE_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--duration", type=int, default=1800, help="simulated seconds (default 1800)")
    options = parser.parse_args()
    key = os.environ.get("HYDRATA_AGENT_KEY", "")
    if not key:
        print("Set HYDRATA_AGENT_KEY to a launch-level key (make demo-flood makes one).", file=sys.stderr)
        return 2
    started, ui_url = time.monotonic(), ""
    # The MCP client's task group hands on what failed inside it as an exception group.
    try:
        ui_url = asyncio.run(first_flood(options.url.rstrip("/"), key, duration=options.duration))
    except* DemoFailed as failed:
        print(f"demo-flood stopped: {failed.exceptions[0]}", file=sys.stderr)
    except* httpx2.ConnectError:
        print(f"No server at {options.url}: start it with `make run` in another terminal.", file=sys.stderr)
    if not ui_url:
        return 1
    print(f"done in {time.monotonic() - started:.0f} s")
    print(f"ui_url: {ui_url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
