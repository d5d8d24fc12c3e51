"""Arrange projects, events and uploads for the observations API through the REST API itself (Django test
client; background imports and builds run eagerly when their transaction commits)."""

import json
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from tests.data import BOUNDARY, DEM, RAINFALL
from tests.factories import make_grant

PROJECTS = "/api/v2/anuga/projects/"
UPLOAD = "/api/v2/uploads/upload/"
STATUS = "/api/v2/resource-service/execution-status/"
MGA56 = "EPSG:28356"
INSIDE = (251100.0, 6271900.0)  # the middle of the small_test terrain, in MGA zone 56


def api_for(user, *, level: str = "draft") -> APIClient:
    _, key = make_grant(user, level=level)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def upload(client: APIClient, name: str, content: bytes | dict[str, Any]) -> dict[str, Any]:
    """Upload GeoJSON; the import has run by the time this returns. Returns the execution status."""
    data = content if isinstance(content, bytes) else json.dumps(content).encode()
    created = client.post(
        UPLOAD, {"base_file": SimpleUploadedFile(name, data, content_type="application/geo+json")}, format="multipart"
    )
    assert created.status_code == 201, created.content
    return client.get(f"{STATUS}{created.json()['execution_id']}").json()


def points(*features: dict[str, Any], crs: str | None = MGA56) -> dict[str, Any]:
    collection: dict[str, Any] = {"type": "FeatureCollection", "features": list(features)}
    if crs:
        collection["crs"] = {"type": "name", "properties": {"name": crs}}
    return collection


def point(x: float, y: float, **properties: Any) -> dict[str, Any]:
    return {"type": "Feature", "properties": properties, "geometry": {"type": "Point", "coordinates": [x, y]}}


def event_of(client: APIClient, project_id: int, name: str = "March 2022 flood") -> dict[str, Any]:
    response = client.post(
        f"{PROJECTS}{project_id}/events/", {"name": name, "started_at": "2022-03-01T00:00:00Z"}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def observation(client: APIClient, project_id: int, event_id: int, **fields: Any):
    body = {"event": event_id, "x": INSIDE[0], "y": INSIDE[1], "quantity": "peak_stage", "value_m": 12.3} | fields
    return client.post(f"{PROJECTS}{project_id}/observations/", body, format="json")


def with_terrain(client: APIClient, project_id: int) -> dict[str, Any]:
    with DEM.open("rb") as dem:
        uploaded = client.post(f"{PROJECTS}{project_id}/terrain/upload/", {"file": dem}, format="multipart")
    assert uploaded.status_code == 202, uploaded.content
    terrain = client.get(f"{PROJECTS}{project_id}/terrain/{uploaded.json()['id']}/").json()
    assert terrain["status"] == "ready", terrain
    return terrain


def built_run(client: APIClient, project_id: int) -> dict[str, Any]:
    """A small_test scenario meshed at a coarse resolution: a real run that is built but not computed."""
    with_terrain(client, project_id)
    rows = client.get(f"{PROJECTS}{project_id}/inputs/").json()
    for kind, segment, path in (("boundary", "boundaries", BOUNDARY), ("rainfall", "rainfalls", RAINFALL)):
        dataset = upload(client, path.name, path.read_bytes())["output_params"]["resources"][0]["id"]
        attached = client.patch(
            f"{PROJECTS}{project_id}/{segment}/{rows[kind][0]['id']}/", {"gn_layer": dataset}, format="json"
        )
        assert attached.status_code == 200, attached.content
    scenario = client.post(
        f"{PROJECTS}{project_id}/scenarios/", {"name": "coarse", "resolution": 20, "duration": 60}, format="json"
    ).json()
    build = client.post(f"{PROJECTS}{project_id}/scenarios/{scenario['id']}/build/")
    assert build.status_code == 202, build.content
    run = client.get(f"/api/v2/anuga/runs/{build.json()['run']['id']}/").json()
    assert run["status"] == "built", run
    return run
