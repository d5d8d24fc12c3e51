"""What the model-building tools refuse, and how: through the official SDK client against the live stack.

Every refusal must reach the model as something it can act on (a tool error with the platform's code, or an
outcome), and arguments the tool can check itself must be refused before any request reaches the platform.
"""

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from PIL import Image

from hydrata.agents.models import AgentActivity
from hydrata.anuga.models import InputLayer, Terrain, TimeSeries
from hydrata.anuga.services.inputs import default_inputs_seed
from tests.data import BOUNDARY
from tests.factories import make_grant, make_project
from tests.mcp_client import mcp_client
from tests.model_setup import SHARED_TLS

pytestmark = pytest.mark.django_db(transaction=True)

EXECUTION_STATUS = "/api/v2/resource-service/execution-status/"


# --- arrange helpers -------------------------------------------------------------------------------------------


def call(url: str, key: str, tool: str, arguments: dict[str, Any]):
    async def go():
        async with mcp_client(url, key) as client:
            return await client.call_tool(tool, arguments)

    return asyncio.run(go())


def text_of(result) -> str:
    return " ".join(getattr(part, "text", "") for part in result.content)


def upload_geojson(url: str, key: str, name: str, content: bytes) -> str:
    response = httpx.post(
        f"{url}/api/v2/uploads/upload/",
        headers={"Authorization": f"Bearer {key}"},
        files={"base_file": (name, content, "application/geo+json")},
        timeout=30,
    )
    assert response.status_code == 201, response.text
    return response.json()["execution_id"]


def owned_project(key_user, *, seeded: bool = False):
    project = make_project(key_user, name="Refusals")
    if seeded:
        default_inputs_seed(project=project)
    return project


def activity(*, method: str | None = None, path_contains: str):
    rows = AgentActivity.objects.filter(path__contains=path_contains)
    return rows.filter(method=method) if method else rows


def png_renamed_tif(tmp_path: Path) -> bytes:
    path = tmp_path / "dem.tif"
    Image.fromarray((np.arange(32 * 32) % 256).astype("uint8").reshape(32, 32)).save(path, format="PNG")
    return path.read_bytes()


# --- terrain ---------------------------------------------------------------------------------------------------


def test_finalize_before_the_put_is_a_tool_error_with_upload_not_found(live_asgi):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            presigned = (
                await client.call_tool("presign_terrain_upload", {"project_id": project.pk, "filename": "dem.tif"})
            ).structured_content
            return await client.call_tool(
                "finalize_terrain_upload",
                {
                    "project_id": project.pk,
                    "staging_key": presigned["staging_key"],
                    "process_id": presigned["process_id"],
                },
            )

    result = asyncio.run(session())

    assert result.is_error
    assert "UPLOAD_NOT_FOUND" in text_of(result) and "HTTP 400" in text_of(result)
    assert "http://" not in text_of(result)  # the model never sees a URL of the platform
    assert not Terrain.objects.exists()


def test_get_terrain_on_a_png_renamed_tif_reports_outcome_error_with_the_reason(live_asgi, tmp_path):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user)
    data = png_renamed_tif(tmp_path)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            presigned = (
                await client.call_tool(
                    "presign_terrain_upload", {"project_id": project.pk, "filename": "dem.tif", "size": len(data)}
                )
            ).structured_content
            async with httpx.AsyncClient(verify=SHARED_TLS) as http:
                put = await http.put(
                    presigned["upload_url"], content=data, headers={"Content-Type": presigned["content_type"]}
                )
            assert put.status_code == 200, put.text
            finalized = await client.call_tool(
                "finalize_terrain_upload",
                {
                    "project_id": project.pk,
                    "staging_key": presigned["staging_key"],
                    "process_id": presigned["process_id"],
                },
            )
            waited = await client.call_tool(
                "get_terrain",
                {
                    "project_id": project.pk,
                    "terrain_id": finalized.structured_content["id"],
                    "timeout_seconds": 30,
                    "poll_interval_seconds": 2,
                },
            )
            return finalized, waited

    finalized, waited = asyncio.run(session())

    assert not finalized.is_error and not waited.is_error
    result = waited.structured_content
    assert result["outcome"] == "error" and result["status"] == "error"
    message = result["terrain"]["error_message"]
    assert "GeoTIFF" in message and "PNG" in message
    assert message in result["say_to_user"]
    assert result["terrain"]["elevation_min"] is None
    assert not InputLayer.objects.filter(project=project).exists()


def test_get_terrain_reading_once_on_a_project_without_terrain_is_not_found(live_asgi):
    grant, key = make_grant(level="read")
    project = owned_project(grant.user)

    result = call(live_asgi.url, key, "get_terrain", {"project_id": project.pk, "timeout_seconds": 0})

    assert not result.is_error
    assert result.structured_content["outcome"] == "not_found"
    assert result.structured_content["terrain"] is None and result.structured_content["polls"] == 1


def test_get_terrain_with_an_id_from_another_project_is_not_found(live_asgi):
    grant, key = make_grant(level="read")
    project = owned_project(grant.user)
    other = make_project(grant.user, name="Other")
    terrain = Terrain.objects.create(
        project=other, title="elsewhere", source_filename="dem.tif", source_key="staging/x/dem.tif", status="ready"
    )

    result = call(
        live_asgi.url, key, "get_terrain", {"project_id": project.pk, "terrain_id": terrain.pk, "timeout_seconds": 0}
    )

    assert not result.is_error
    assert result.structured_content["outcome"] == "not_found"


def test_get_terrain_on_a_strangers_project_is_a_tool_error_not_a_missing_terrain(live_asgi):
    _, key = make_grant(level="read")
    project = make_project(name="Not yours")

    result = call(live_asgi.url, key, "get_terrain", {"project_id": project.pk, "terrain_id": 1, "timeout_seconds": 0})

    assert result.is_error and "PROJECT_NOT_FOUND" in text_of(result)


# --- attaching input layers ------------------------------------------------------------------------------------


def attach_boundary(url: str, key: str, project, execution_id: str):
    """attach_input_layer of an upload as the project's boundary, waiting up to 20 s for its import."""
    arguments = {"project_id": project.pk, "kind": "boundary", "execution_id": execution_id}
    return call(url, key, "attach_input_layer", arguments | {"timeout_seconds": 20, "poll_interval_seconds": 2})


def test_attaching_an_upload_that_is_not_json_reports_upload_failed_with_the_log(live_asgi):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user, seeded=True)
    execution_id = upload_geojson(live_asgi.url, key, "broken.geojson", b'{"type": "FeatureCollection", oops')

    result = attach_boundary(live_asgi.url, key, project, execution_id)

    assert not result.is_error
    attached = result.structured_content
    assert attached["outcome"] == "upload_failed"
    assert attached["upload_log"] and "Import failed" in attached["upload_log"]
    assert attached["row_id"] is None and attached["dataset_pk"] is None
    assert InputLayer.objects.get(project=project, kind="boundary").dataset_id is None


def test_attaching_a_boundary_without_its_properties_is_a_tool_error_naming_boundary(live_asgi):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user, seeded=True)
    original = json.loads(BOUNDARY.read_bytes())
    for feature in original["features"]:
        feature["properties"] = {}
    execution_id = upload_geojson(live_asgi.url, key, "bare.geojson", json.dumps(original).encode())

    result = attach_boundary(live_asgi.url, key, project, execution_id)

    assert result.is_error
    text = text_of(result)
    assert "FEATURES_DO_NOT_FIT_KIND" in text and "'boundary'" in text
    assert InputLayer.objects.get(project=project, kind="boundary").dataset_id is None


def test_attaching_with_an_execution_id_that_is_not_a_uuid_is_refused_before_any_request(live_asgi):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user, seeded=True)

    result = call(
        live_asgi.url,
        key,
        "attach_input_layer",
        {"project_id": project.pk, "kind": "boundary", "execution_id": "not-a-uuid"},
    )

    assert result.is_error
    assert "execution_id" in text_of(result)
    assert not activity(path_contains=EXECUTION_STATUS).exists()
    assert not AgentActivity.objects.filter(grant=grant).exists()


LINE = {"type": "LineString", "coordinates": [[151.0, -33.0], [151.001, -33.0]]}
SQUARE = {"type": "Polygon", "coordinates": [[[151.0, -33.0], [151.001, -33.0], [151.001, -33.001], [151.0, -33.0]]]}
BOX = {"name": "C1", "shape": "box", "width": 1.2, "height": 0.6}
# kind, geometry, properties, what the refusal must name (the feature's field, and what would do)
SITE_REFUSALS = [
    ("structure", SQUARE, {"method": "Weir"}, ["method=", "Reflective, Raised, Mannings"]),
    ("structure", SQUARE, {"method": "Mannings"}, ["'mannings'"]),
    ("structure", SQUARE, {"method": "Raised", "height": -1}, ["height=", "positive"]),
    ("culvert", LINE, {**BOX, "shape": "arch"}, ["shape=", "box, pipe"]),
    ("culvert", LINE, {**BOX, "blockage": 1.5}, ["blockage=", "0 (open) to 1"]),
    ("culvert", LINE, {**BOX, "width": 0}, ["width=", "positive"]),
    ("culvert", LINE, {"name": "P1", "shape": "pipe"}, ["'diameter'"]),
    ("culvert", LINE, {**BOX, "invert_elevations": [1.0]}, ["invert_elevations=", "two numbers"]),
    ("culvert", {"type": "MultiLineString", "coordinates": [LINE["coordinates"]]}, BOX, ["MultiLineString"]),
    ("weir", LINE, {}, ["neither", "'crest_elevation'"]),
    ("weir", LINE, {"height": 0}, ["height=", "positive"]),
]


@pytest.mark.parametrize(("kind", "geometry", "properties", "named"), SITE_REFUSALS)
def test_a_site_feature_the_solver_could_not_honour_is_refused_naming_the_feature_and_field(
    live_asgi, kind, geometry, properties, named
):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user, seeded=True)
    layer = {
        "type": "FeatureCollection",
        "features": [{"type": "Feature", "geometry": geometry, "properties": properties}],
    }
    execution_id = upload_geojson(live_asgi.url, key, f"{kind}.geojson", json.dumps(layer).encode())

    result = call(
        live_asgi.url, key, "attach_input_layer", {"project_id": project.pk, "kind": kind, "execution_id": execution_id}
    )

    assert result.is_error
    text = text_of(result)
    assert "FEATURES_DO_NOT_FIT_KIND" in text and "Feature 0" in text
    assert all(word in text for word in named), text
    assert InputLayer.objects.get(project=project, kind=kind).dataset_id is None  # nothing stored changed


@pytest.mark.parametrize(
    ("kind", "geometry", "properties"),
    [
        ("structure", SQUARE, {"method": "Reflective"}),
        ("breakline", LINE, {}),
        ("culvert", LINE, {**BOX, "barrels": 2, "blockage": 0.5, "invert_elevations": [1.0, 0.8]}),
        ("weir", LINE, {"crest_elevation": 12.5}),
    ],
)
def test_the_site_as_built_is_attached_by_kind(live_asgi, kind, geometry, properties):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user, seeded=True)
    layer = {
        "type": "FeatureCollection",
        "features": [{"type": "Feature", "geometry": geometry, "properties": properties}],
    }
    execution_id = upload_geojson(live_asgi.url, key, f"{kind}.geojson", json.dumps(layer).encode())

    result = call(
        live_asgi.url, key, "attach_input_layer", {"project_id": project.pk, "kind": kind, "execution_id": execution_id}
    )

    assert not result.is_error, text_of(result)
    assert result.structured_content["outcome"] == "attached" and result.structured_content["feature_count"] == 1
    assert InputLayer.objects.get(project=project, kind=kind).dataset_id is not None


def test_attaching_a_kind_outside_the_list_is_a_tool_error(live_asgi):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user, seeded=True)
    execution_id = upload_geojson(live_asgi.url, key, "boundary.geojson", BOUNDARY.read_bytes())

    result = call(
        live_asgi.url,
        key,
        "attach_input_layer",
        {"project_id": project.pk, "kind": "levee", "execution_id": execution_id},
    )

    assert result.is_error and "kind" in text_of(result)
    assert not activity(path_contains=EXECUTION_STATUS).exists()


def test_attaching_before_the_project_has_terrain_reports_no_default_row(live_asgi):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user, seeded=False)
    execution_id = upload_geojson(live_asgi.url, key, "boundary.geojson", BOUNDARY.read_bytes())

    result = attach_boundary(live_asgi.url, key, project, execution_id)

    assert not result.is_error
    attached = result.structured_content
    assert attached["outcome"] == "no_default_row"
    assert attached["row_id"] is None and attached["dataset_pk"]
    assert "terrain" in attached["say_to_user"]
    assert not InputLayer.objects.filter(project=project).exists()


def test_attaching_someone_elses_upload_is_a_tool_error_with_execution_not_found(live_asgi):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user, seeded=True)
    _, other_key = make_grant(level="draft")
    theirs = upload_geojson(live_asgi.url, other_key, "boundary.geojson", BOUNDARY.read_bytes())

    result = call(
        live_asgi.url,
        key,
        "attach_input_layer",
        {"project_id": project.pk, "kind": "boundary", "execution_id": theirs, "timeout_seconds": 0},
    )

    assert result.is_error and "EXECUTION_NOT_FOUND" in text_of(result)
    assert InputLayer.objects.get(project=project, kind="boundary").dataset_id is None


# --- time series -----------------------------------------------------------------------------------------------


def test_a_time_series_row_with_an_unreadable_timestamp_is_refused_naming_it_before_any_request(live_asgi):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user)
    rows = [
        {"timestamp": "2024-01-01T00:00:00Z", "value": 1.0},
        {"timestamp": "2024-01-01T00:15:00Z", "value": 2.0},
        {"timestamp": "yesterday", "value": 3.0},
    ]

    result = call(
        live_asgi.url,
        key,
        "create_time_series",
        {"project_id": project.pk, "name": "Gauge", "units": "mm/hr", "data": {"rowData": rows}},
    )

    assert result.is_error
    assert "data.rowData[2].timestamp" in text_of(result)
    assert not TimeSeries.objects.exists()
    assert not activity(method="POST", path_contains="/time-series/").exists()
    assert not AgentActivity.objects.filter(grant=grant).exists()


def test_a_time_series_value_that_is_not_a_number_is_refused_naming_the_row_before_any_request(live_asgi):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user)
    rows = [{"timestamp": "2024-01-01T00:00:00Z", "value": "lots"}]

    result = call(
        live_asgi.url,
        key,
        "create_time_series",
        {"project_id": project.pk, "name": "Gauge", "units": "mm/hr", "data": {"rowData": rows}},
    )

    assert result.is_error and "data.rowData[0].value" in text_of(result)
    assert not TimeSeries.objects.exists()
    assert not AgentActivity.objects.filter(grant=grant).exists()


def test_a_time_series_whose_rows_share_a_timestamp_is_refused_by_the_platform(live_asgi):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user)
    rows = [
        {"timestamp": "2024-01-01T00:00:00Z", "value": 1.0},
        {"timestamp": "2024-01-01T10:00:00+10:00", "value": 2.0},
    ]

    result = call(
        live_asgi.url,
        key,
        "create_time_series",
        {"project_id": project.pk, "name": "Gauge", "units": "mm/hr", "data": {"rowData": rows}},
    )

    assert result.is_error and "INVALID_TIME_SERIES" in text_of(result)
    assert not TimeSeries.objects.exists()


def test_a_time_series_name_used_twice_is_a_tool_error_with_time_series_exists(live_asgi):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user)
    arguments = {
        "project_id": project.pk,
        "name": "Gauge",
        "units": "mm/hr",
        "data": {"rowData": [{"timestamp": "2024-01-01T00:00:00Z", "value": 1.0}]},
    }

    first = call(live_asgi.url, key, "create_time_series", arguments)
    second = call(live_asgi.url, key, "create_time_series", arguments)

    assert not first.is_error
    assert second.is_error and "HTTP 409" in text_of(second) and "TIME_SERIES_EXISTS" in text_of(second)
    assert TimeSeries.objects.filter(project=project).count() == 1


def test_a_time_series_in_an_unknown_timezone_is_a_tool_error(live_asgi):
    grant, key = make_grant(level="draft")
    project = owned_project(grant.user)

    result = call(
        live_asgi.url,
        key,
        "create_time_series",
        {
            "project_id": project.pk,
            "name": "Gauge",
            "timezone": "Mars/Olympus_Mons",
            "units": "mm/hr",
            "data": {"rowData": [{"timestamp": "2024-01-01T00:00:00", "value": 1.0}]},
        },
    )

    assert result.is_error and "INVALID_TIME_SERIES" in text_of(result) and "IANA" in text_of(result)
    assert not TimeSeries.objects.exists()
