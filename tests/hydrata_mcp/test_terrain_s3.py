"""Terrain on the S3 backend: the agent PUTs straight to S3, and the import reads the DEM back from the bucket.

moto's `mock_aws` intercepts boto3 and `requests` calls to AWS hosts in-process (in every thread, so the live
server's too); other hosts, such as the loopback server, pass through untouched.
"""

import asyncio
from pathlib import Path

import boto3
import pytest
import requests
from moto import mock_aws
from rest_framework.test import APIClient

from hydrata.anuga.models import InputLayer, Terrain
from tests.data import DEM, dem_truth
from tests.factories import make_grant, make_project
from tests.mcp_client import mcp_client

pytestmark = pytest.mark.django_db(transaction=True)

BUCKET = "hydrata-terrain-test"
REGION = "ap-southeast-2"
PROJECTS = "/api/v2/anuga/projects/"


@pytest.fixture
def bucket(settings):
    settings.HYDRATA_STORAGE_BACKEND = "s3"
    settings.HYDRATA_S3_BUCKET = BUCKET
    settings.HYDRATA_S3_REGION = REGION
    settings.HYDRATA_S3_ENDPOINT_URL = None
    with mock_aws():
        s3 = boto3.client("s3", region_name=REGION)
        s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
        yield s3


def keys_in(s3) -> list[str]:
    return sorted(item["Key"] for item in s3.list_objects_v2(Bucket=BUCKET).get("Contents", []))


def local_files(media_root: Path) -> list[Path]:
    return [path for path in media_root.rglob("*") if path.is_file()] if media_root.exists() else []


def api_for(user) -> APIClient:
    _, key = make_grant(user, level="draft")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def assert_matches_truth(terrain: dict) -> None:
    truth = dem_truth()
    assert terrain["status"] == "ready", terrain.get("error_message")
    assert terrain["elevation_min"] == pytest.approx(truth["elevation_min"], abs=1e-3)
    assert terrain["elevation_max"] == pytest.approx(truth["elevation_max"], abs=1e-3)
    assert terrain["nodata_fraction"] == pytest.approx(truth["nodata_fraction"], abs=1e-6)
    assert terrain["bbox_wgs84"] == pytest.approx(truth["bbox_wgs84"], abs=1e-6)


def test_an_agent_puts_a_dem_to_s3_and_the_import_reads_it_back_into_a_ready_terrain(live_asgi, bucket, media_root):
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            presigned = (
                await client.call_tool(
                    "presign_terrain_upload",
                    {"project_id": project.pk, "filename": "dem.tif", "size": DEM.stat().st_size},
                )
            ).structured_content
            put = await asyncio.to_thread(
                requests.put,
                presigned["upload_url"],
                data=DEM.read_bytes(),
                headers={"Content-Type": presigned["content_type"]},
                timeout=30,
            )
            finalized = await client.call_tool(
                "finalize_terrain_upload",
                {
                    "project_id": project.pk,
                    "staging_key": presigned["staging_key"],
                    "process_id": presigned["process_id"],
                },
            )
            waited = await client.call_tool(
                "get_terrain", {"project_id": project.pk, "timeout_seconds": 30, "poll_interval_seconds": 2}
            )
            return presigned, put, finalized, waited

    presigned, put, finalized, waited = asyncio.run(session())

    assert presigned["upload_url"].startswith(f"https://{BUCKET}.s3.{REGION}.amazonaws.com/staging/terrain/")
    assert put.status_code == 200
    assert not finalized.is_error, finalized.content
    result = waited.structured_content
    assert result["outcome"] == "ready", result
    assert_matches_truth(result["terrain"])
    assert result["summary"]["native_crs"] == "EPSG:28356"
    terrain = Terrain.objects.get(pk=finalized.structured_content["id"])
    assert keys_in(bucket) == sorted([presigned["staging_key"], terrain.dem_key, terrain.hillshade_key])
    assert bucket.head_object(Bucket=BUCKET, Key=terrain.hillshade_key)["ContentType"] == "image/png"
    assert InputLayer.objects.filter(project=project, is_default=True).count() == 11  # one per input kind
    assert local_files(media_root) == []  # nothing fell back to the local disk


def test_finalize_before_the_put_to_s3_is_a_tool_error_with_upload_not_found(live_asgi, bucket):
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)

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

    assert result.is_error and "UPLOAD_NOT_FOUND" in result.content[0].text
    assert not Terrain.objects.exists()
    assert keys_in(bucket) == []


def test_the_rest_path_presign_put_finalize_on_s3_makes_a_ready_terrain_with_a_hillshade_link(bucket, media_root):
    project = make_project()
    client = api_for(project.owner)

    presigned = client.post(
        f"{PROJECTS}{project.pk}/terrain/upload/presign/",
        {"filename": "dem.tif", "size": DEM.stat().st_size},
        format="json",
    ).json()
    put = requests.put(presigned["upload_url"], data=DEM.read_bytes(), headers=presigned["headers"], timeout=30)
    finalized = client.post(
        f"{PROJECTS}{project.pk}/terrain/upload/finalize/",
        {"staging_key": presigned["staging_key"], "process_id": presigned["process_id"]},
        format="json",
    )
    detail = client.get(f"{PROJECTS}{project.pk}/terrain/{finalized.json()['id']}/")

    assert put.status_code == 200
    assert finalized.status_code == 202
    assert detail.status_code == 200
    terrain = detail.json()
    assert_matches_truth(terrain)
    assert terrain["crs"] == terrain["native_crs"] == "EPSG:28356"
    hillshade = requests.get(terrain["s3_hillshade_url"], timeout=30)
    assert hillshade.status_code == 200 and hillshade.content.startswith(b"\x89PNG\r\n\x1a\n")
    assert local_files(media_root) == []


def test_finalize_before_the_put_to_s3_is_upload_not_found_over_rest(bucket):
    project = make_project()
    client = api_for(project.owner)
    presigned = client.post(
        f"{PROJECTS}{project.pk}/terrain/upload/presign/", {"filename": "dem.tif"}, format="json"
    ).json()

    response = client.post(
        f"{PROJECTS}{project.pk}/terrain/upload/finalize/", {"staging_key": presigned["staging_key"]}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "UPLOAD_NOT_FOUND"
    assert not Terrain.objects.exists()
