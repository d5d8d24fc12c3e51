"""The agent moves the bytes, the platform makes them a model: the whole path through the official SDK client."""

import asyncio

import httpx
import pytest

from hydrata.anuga.models import InputLayer
from tests.data import BOUNDARY, DEM, RAINFALL, dem_truth
from tests.factories import make_grant
from tests.mcp_client import mcp_client
from tests.model_setup import SHARED_TLS

pytestmark = pytest.mark.django_db(transaction=True)

WAITED_BEFORE_THE_WORKER = 2  # progress notifications received before a worker is started
RAIN_ROWS = [
    {"timestamp": "2024-01-01T00:00:00Z", "value": 0.0},
    {"timestamp": "2024-01-01T00:15:00Z", "value": 50.0},
    {"timestamp": "2024-01-01T00:30:00Z", "value": 12.5},
]


async def upload_geojson(url: str, key: str, path) -> str:
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {key}"}, verify=SHARED_TLS) as http:
        response = await http.post(
            f"{url}/api/v2/uploads/upload/", files={"base_file": (path.name, path.read_bytes(), "application/geo+json")}
        )
    assert response.status_code == 201, response.text
    return response.json()["execution_id"]


async def put_terrain(client, project_id: int) -> dict:
    presigned = (
        await client.call_tool(
            "presign_terrain_upload", {"project_id": project_id, "filename": "dem.tif", "size": DEM.stat().st_size}
        )
    ).structured_content
    async with httpx.AsyncClient(verify=SHARED_TLS) as http:
        put = await http.put(
            presigned["upload_url"], content=DEM.read_bytes(), headers={"Content-Type": presigned["content_type"]}
        )
    assert put.status_code == 200, put.text
    return presigned


def test_an_agent_builds_a_model_from_terrain_layers_and_a_gauge(live_asgi):
    _, key = make_grant(level="draft")

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            project = (
                await client.call_tool("create_project", {"name": "Small test", "projection": "EPSG:28356"})
            ).structured_content
            pid = project["id"]
            presigned = await put_terrain(client, pid)
            finalized = await client.call_tool(
                "finalize_terrain_upload",
                {"project_id": pid, "staging_key": presigned["staging_key"], "process_id": presigned["process_id"]},
            )
            terrain = await client.call_tool(
                "get_terrain", {"project_id": pid, "timeout_seconds": 60, "poll_interval_seconds": 2}
            )
            boundary_exec = await upload_geojson(live_asgi.url, key, BOUNDARY)
            rainfall_exec = await upload_geojson(live_asgi.url, key, RAINFALL)
            boundary = await client.call_tool(
                "attach_input_layer", {"project_id": pid, "kind": "boundary", "execution_id": boundary_exec}
            )
            rainfall = await client.call_tool(
                "attach_input_layer", {"project_id": pid, "kind": "rainfall", "execution_id": rainfall_exec}
            )
            inputs = await client.call_tool("list_inputs", {"project_id": pid})
            series = await client.call_tool(
                "create_time_series",
                {"project_id": pid, "name": "Gauge 1", "data": {"rowData": RAIN_ROWS}, "series_type": "hyetograph"},
            )
            listed = await client.call_tool("list_time_series", {"project_id": pid})
            return pid, presigned, finalized, terrain, boundary, rainfall, inputs, series, listed

    pid, presigned, finalized, terrain, boundary, rainfall, inputs, series, listed = asyncio.run(session())

    assert set(presigned) >= {"upload_url", "staging_key", "process_id", "expires_in"}
    assert presigned["expires_in"] == 3600
    assert finalized.structured_content["status"] in {"creating", "styling", "ready"}
    assert finalized.structured_content["ui_url"].startswith(f"{live_asgi.url}/catalogue/#/map/")

    truth = dem_truth()
    waited = terrain.structured_content
    assert waited["outcome"] == "ready" and waited["terrain"]["id"] == finalized.structured_content["id"]
    assert waited["summary"]["bbox_wgs84"] == pytest.approx(truth["bbox_wgs84"], abs=1e-6)
    assert waited["summary"]["elevation_min"] == pytest.approx(truth["elevation_min"], abs=1e-3)
    assert waited["summary"]["elevation_max"] == pytest.approx(truth["elevation_max"], abs=1e-3)
    assert waited["summary"]["nodata_fraction"] == pytest.approx(truth["nodata_fraction"], abs=1e-6)
    assert waited["summary"]["native_crs"] == "EPSG:28356"
    assert {"outcome", "status", "terrain", "polls", "elapsed_seconds"} <= set(waited)

    for attached, count in ((boundary, 4), (rainfall, 1)):
        result = attached.structured_content
        assert result["outcome"] == "attached", result
        assert result["feature_count"] == count
        assert {"kind", "row_id", "dataset_pk"} <= set(result)
        assert result["summary"]["bbox_wgs84"][0] == pytest.approx(151, abs=1)
    rows = inputs.structured_content
    assert rows["boundary"][0]["has_features"] and rows["boundary"][0]["feature_count"] == 4
    assert rows["rainfall"][0]["feature_count"] == 1
    assert [len(rows[k]) for k in ("friction", "inflow", "structure", "mesh_region", "gauge", "flow_line")] == [1] * 6
    assert not rows["friction"][0]["has_features"]
    assert InputLayer.objects.filter(project_id=pid, is_default=True).count() == 11  # one per input kind

    created = series.structured_content
    assert created["row_count"] == 3 and created["summary"]["max_value"] == 50.0
    assert created["id"] and created["ui_url"]
    assert listed.structured_content["results"][0]["name"] == "Gauge 1"
    assert "rowData" not in listed.content[0].text


def test_get_terrain_sends_increasing_progress_while_a_real_worker_imports(live_asgi, start_worker):
    _, key = make_grant(level="draft")
    progress: list[tuple[float, str]] = []
    workers = []

    async def on_progress(value, total, message):
        progress.append((value, message))
        if len(progress) == WAITED_BEFORE_THE_WORKER:  # the import cannot have finished: nothing runs it yet
            workers.append(start_worker())

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            pid = (
                await client.call_tool("create_project", {"name": "Worker", "projection": "EPSG:28356"})
            ).structured_content["id"]
            presigned = await put_terrain(client, pid)
            finalized = await client.call_tool(
                "finalize_terrain_upload", {"project_id": pid, "staging_key": presigned["staging_key"]}
            )
            waited = await client.call_tool(
                "get_terrain",
                {"project_id": pid, "timeout_seconds": 120, "poll_interval_seconds": 2},
                progress_callback=on_progress,
            )
            return finalized, waited

    finalized, waited = asyncio.run(session())

    assert finalized.structured_content["status"] == "creating"  # the web request only queued the import
    assert workers, "get_terrain never reported progress while the terrain was creating"
    assert waited.structured_content["outcome"] == "ready", waited.structured_content
    values = [value for value, _ in progress]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert {message for _, message in progress[:WAITED_BEFORE_THE_WORKER]} == {"terrain creating"}
