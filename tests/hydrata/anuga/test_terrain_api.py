"""Terrain through the REST API: presign, PUT to the signed URL, finalize, and the import that follows.

Transactional, so the finalize's on_commit hook fires and the (eager) import runs as it would on a worker.
"""

import warnings
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
import rasterio
from django.test import Client
from django.utils import timezone
from PIL import Image
from rasterio.errors import NotGeoreferencedWarning
from rasterio.warp import Resampling, calculate_default_transform, reproject
from rest_framework.test import APIClient

from hydrata.anuga.models import InputLayer, Terrain, TerrainUpload
from hydrata.compute.rasters.terrain_raster import crs_label
from tests.data import DEM, dem_truth
from tests.factories import make_grant, make_project, make_user

pytestmark = pytest.mark.django_db(transaction=True)

PROJECTS = "/api/v2/anuga/projects/"
TIFF = "image/tiff"
DEFAULT_TITLES = [
    "Boundary 01",
    "Friction 01",
    "Inflow 01",
    "Rainfall 01",
    "Structure 01",
    "Breaklines 01",
    "Culverts 01",
    "Weirs 01",
    "MeshRegion 01",
    "Gauges 01",
    "Flow lines 01",
    "Initial conditions 01",
    "Soils 01",
]


# --- arrange helpers -------------------------------------------------------------------------------------------


def api_for(user, *, level: str = "draft") -> APIClient:
    _, key = make_grant(user, level=level)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def path_and_query(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def presign(
    client: APIClient,
    project_id: int,
    *,
    filename: str = "dem.tif",
    content_type: str = TIFF,
    size: int | str | None = None,
):
    body = {"filename": filename, "content_type": content_type}
    if size is not None:
        body["size"] = size
    return client.post(f"{PROJECTS}{project_id}/terrain/upload/presign/", body, format="json")


def put(url: str, data: bytes, *, content_type: str = TIFF):
    """The PUT a browser or agent makes to the signed URL: no credential, only the signature."""
    return Client().put(path_and_query(url), data=data, content_type=content_type)


def finalize(client: APIClient, project_id: int, staging_key: str, process_id: str = "", title: str = ""):
    return client.post(
        f"{PROJECTS}{project_id}/terrain/upload/finalize/",
        {"staging_key": staging_key, "process_id": process_id, "title": title},
        format="json",
    )


def upload_terrain(client: APIClient, project_id: int, data: bytes, *, filename: str = "dem.tif") -> dict:
    """presign -> PUT -> finalize; returns the finalize response body."""
    presigned = presign(client, project_id, filename=filename, size=len(data))
    assert presigned.status_code == 200, presigned.content
    stored = put(presigned.json()["upload_url"], data, content_type=presigned.json()["headers"]["Content-Type"])
    assert stored.status_code == 200, stored.content
    finalized = finalize(client, project_id, presigned.json()["staging_key"], presigned.json()["process_id"])
    assert finalized.status_code == 202, finalized.content
    return finalized.json()


def terrain_read(client: APIClient, project_id: int, terrain_id: int) -> dict:
    response = client.get(f"{PROJECTS}{project_id}/terrain/{terrain_id}/")
    assert response.status_code == 200, response.content
    return response.json()


def stored_files(media_root: Path) -> list[Path]:
    return [path for path in media_root.rglob("*") if path.is_file()] if media_root.exists() else []


def png_bytes(tmp_path: Path) -> bytes:
    path = tmp_path / "picture.png"
    Image.fromarray(np.arange(64 * 64, dtype="uint32").reshape(64, 64).astype("uint8")).save(path, format="PNG")
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return data


def dem_without_crs(tmp_path: Path) -> bytes:
    with rasterio.open(DEM) as src:
        band = src.read(1)
        profile = {
            "driver": "GTiff",
            "width": src.width,
            "height": src.height,
            "count": 1,
            "dtype": band.dtype,
            "crs": None,
            "transform": src.transform,
            "nodata": src.nodata,
        }
    path = tmp_path / "no_crs.tif"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotGeoreferencedWarning)
        with rasterio.open(path, "w", **profile) as dst:
            dst.write(band, 1)
    with rasterio.open(path) as check:
        assert check.crs is None
    return path.read_bytes()


def dem_in_wgs84(tmp_path: Path) -> bytes:
    """The small_test DEM reprojected to longitude/latitude, as a surveyor might deliver it."""
    path = tmp_path / "dem_4326.tif"
    with rasterio.open(DEM) as src:
        transform, width, height = calculate_default_transform(src.crs, "EPSG:4326", src.width, src.height, *src.bounds)
        profile = {
            **src.profile,
            "crs": "EPSG:4326",
            "transform": transform,
            "width": width,
            "height": height,
            "nodata": -9999.0,
        }
        with rasterio.open(path, "w", **profile) as dst:
            reproject(
                source=rasterio.band(src, 1),
                destination=rasterio.band(dst, 1),
                src_nodata=src.nodata,
                dst_nodata=-9999.0,
                dst_crs="EPSG:4326",
                resampling=Resampling.nearest,
            )
    with rasterio.open(path) as check:
        assert check.crs.to_epsg() == 4326
    return path.read_bytes()


# --- the happy path --------------------------------------------------------------------------------------------


def test_presign_put_finalize_makes_a_ready_terrain_that_reads_what_rasterio_reads_and_seeds_a_row_of_each_input_kind():
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    truth = dem_truth()

    presigned = presign(client, project.pk, size=DEM.stat().st_size)
    body = presigned.json()
    stored = put(body["upload_url"], DEM.read_bytes(), content_type=body["headers"]["Content-Type"])
    finalized = finalize(client, project.pk, body["staging_key"], body["process_id"])
    terrain = terrain_read(client, project.pk, finalized.json()["id"])

    assert presigned.status_code == 200
    assert body["method"] == "PUT" and body["headers"] == {"Content-Type": TIFF} and body["expires_in"] == 3600
    assert body["staging_key"].startswith(f"staging/terrain/{project.pk}/") and body["staging_key"].endswith("/dem.tif")
    assert stored.status_code == 200 and stored.json()["size"] == DEM.stat().st_size
    assert finalized.status_code == 202 and finalized.json()["project"] == project.pk
    assert terrain["status"] == "ready" and terrain["error_message"] == ""
    assert terrain["title"] == "dem" and terrain["source_filename"] == "dem.tif"
    assert terrain["crs"] == terrain["native_crs"] == truth["crs"] == "EPSG:28356"
    assert terrain["reprojected"] is False
    assert terrain["width"] == 200 and terrain["height"] == 200
    assert terrain["resolution"] == pytest.approx([1.0, 1.0], abs=1e-3)
    assert terrain["elevation_min"] == pytest.approx(truth["elevation_min"], abs=1e-3)
    assert terrain["elevation_max"] == pytest.approx(truth["elevation_max"], abs=1e-3)
    assert terrain["nodata_fraction"] == pytest.approx(truth["nodata_fraction"], abs=1e-6)
    assert terrain["bbox_wgs84"] == pytest.approx(truth["bbox_wgs84"], abs=1e-6)
    rows = InputLayer.objects.filter(project=project)
    assert rows.count() == len(DEFAULT_TITLES) and all(row.is_default and row.dataset is None for row in rows)
    assert sorted(rows.values_list("title", flat=True)) == sorted(DEFAULT_TITLES)


def test_a_ready_terrain_links_a_hillshade_png_that_downloads():
    user = make_user()
    client = api_for(user)
    project = make_project(user)

    terrain = terrain_read(client, project.pk, upload_terrain(client, project.pk, DEM.read_bytes())["id"])
    response = Client().get(path_and_query(terrain["s3_hillshade_url"]))

    assert response.status_code == 200
    assert b"".join(response.streaming_content).startswith(b"\x89PNG\r\n\x1a\n")


def test_finalizing_the_same_staging_key_twice_returns_the_same_terrain_and_makes_no_duplicate():
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    presigned = presign(client, project.pk).json()
    put(presigned["upload_url"], DEM.read_bytes())

    first = finalize(client, project.pk, presigned["staging_key"], presigned["process_id"])
    second = finalize(client, project.pk, presigned["staging_key"], presigned["process_id"])
    without_process_id = finalize(client, project.pk, presigned["staging_key"])

    assert first.status_code == second.status_code == without_process_id.status_code == 202
    assert first.json()["id"] == second.json()["id"] == without_process_id.json()["id"]
    assert second.json()["status"] == "ready"
    assert Terrain.objects.filter(project=project).count() == 1
    assert InputLayer.objects.filter(project=project).count() == len(DEFAULT_TITLES)


def test_a_wrong_process_id_for_a_real_staging_key_is_upload_not_found():
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    presigned = presign(client, project.pk).json()
    put(presigned["upload_url"], DEM.read_bytes())

    for process_id in ("not-a-uuid", "00000000-0000-0000-0000-000000000000"):
        response = finalize(client, project.pk, presigned["staging_key"], process_id)

        assert response.status_code == 400
        assert response.json()["code"] == "UPLOAD_NOT_FOUND"
    assert not Terrain.objects.exists()


# --- files that cannot become terrain --------------------------------------------------------------------------


def test_a_png_renamed_to_tif_ends_in_error_with_a_message_that_says_to_upload_a_geotiff(tmp_path):
    user = make_user()
    client = api_for(user)
    project = make_project(user)

    terrain = terrain_read(client, project.pk, upload_terrain(client, project.pk, png_bytes(tmp_path))["id"])

    assert terrain["status"] == "error"
    message = terrain["error_message"]
    assert "GeoTIFF" in message and "PNG" in message
    # The file is not a GeoTIFF at all: advice about assigning a CRS to it would send the person the wrong way.
    assert "coordinate reference system" not in message
    assert terrain["elevation_min"] is None and terrain["s3_hillshade_url"] is None
    assert not Terrain.objects.filter(status="ready").exists()
    assert not InputLayer.objects.filter(project=project).exists()


def test_a_geotiff_without_a_crs_ends_in_error_saying_it_has_no_coordinate_reference_system(tmp_path):
    user = make_user()
    client = api_for(user)
    project = make_project(user)

    terrain = terrain_read(client, project.pk, upload_terrain(client, project.pk, dem_without_crs(tmp_path))["id"])

    assert terrain["status"] == "error"
    assert "no coordinate reference system" in terrain["error_message"]
    assert not InputLayer.objects.filter(project=project).exists()


def test_a_dem_in_wgs84_is_reprojected_to_the_project_crs_and_keeps_its_elevations_and_extent(tmp_path):
    user = make_user()
    client = api_for(user)
    project = make_project(user, projection="EPSG:28356")
    truth = dem_truth()

    terrain = terrain_read(
        client, project.pk, upload_terrain(client, project.pk, dem_in_wgs84(tmp_path), filename="dem_4326.tif")["id"]
    )

    assert terrain["status"] == "ready", terrain["error_message"]
    assert terrain["crs"] == "EPSG:28356" and terrain["native_crs"] == "EPSG:4326"
    assert terrain["reprojected"] is True
    # Bilinear resampling blends each cell with its neighbours (about 10 cm apart in height at the lowest corner).
    assert terrain["elevation_min"] == pytest.approx(truth["elevation_min"], abs=0.1)
    assert terrain["elevation_max"] == pytest.approx(truth["elevation_max"], abs=0.1)
    # The warped grid is the envelope of a slightly rotated one: a few metres wider on each side.
    assert terrain["bbox_wgs84"] == pytest.approx(truth["bbox_wgs84"], abs=1e-4)  # about 10 m
    west, south, east, north = terrain["bbox_native"]
    assert 250985 < west < 251000 and 6271785 < south < 6271801 and 251199 < east < 251215
    assert 6272000 < north < 6272015
    assert InputLayer.objects.filter(project=project).count() == len(DEFAULT_TITLES)


# --- the signed URL refuses ------------------------------------------------------------------------------------


def test_a_put_with_another_content_type_is_refused_and_finalize_then_finds_no_upload(media_root):
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    presigned = presign(client, project.pk).json()

    stored = put(presigned["upload_url"], DEM.read_bytes(), content_type="application/octet-stream")
    finalized = finalize(client, project.pk, presigned["staging_key"], presigned["process_id"])

    assert stored.status_code == 403
    assert stored.json()["code"] == "CONTENT_TYPE_MISMATCH" and TIFF in stored.json()["detail"]
    assert finalized.status_code == 400 and finalized.json()["code"] == "UPLOAD_NOT_FOUND"
    assert not Terrain.objects.exists()
    assert stored_files(media_root) == []


def test_an_expired_upload_url_is_refused_and_nothing_is_stored(settings, media_root):
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    settings.HYDRATA_UPLOAD_URL_EXPIRY_SECONDS = -1
    presigned = presign(client, project.pk).json()

    stored = put(presigned["upload_url"], DEM.read_bytes())
    finalized = finalize(client, project.pk, presigned["staging_key"], presigned["process_id"])

    assert stored.status_code == 403 and stored.json()["code"] == "URL_EXPIRED"
    assert stored_files(media_root) == []
    assert finalized.status_code == 400 and finalized.json()["code"] == "UPLOAD_NOT_FOUND"
    assert not Terrain.objects.exists()


# --- finalize refuses ------------------------------------------------------------------------------------------


def test_finalize_after_the_upload_slot_expired_is_upload_expired_and_makes_no_terrain():
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    presigned = presign(client, project.pk).json()
    put(presigned["upload_url"], DEM.read_bytes())
    TerrainUpload.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    response = finalize(client, project.pk, presigned["staging_key"], presigned["process_id"])

    assert response.status_code == 400 and response.json()["code"] == "UPLOAD_EXPIRED"
    assert "presign" in response.json()["detail"]
    assert not Terrain.objects.exists()


def test_an_upload_slot_can_be_finalized_for_a_grace_period_after_its_url_expired(settings):
    settings.HYDRATA_UPLOAD_URL_EXPIRY_SECONDS = 60
    settings.HYDRATA_UPLOAD_FINALIZE_GRACE_SECONDS = 600
    user = make_user()
    presign(api_for(user), make_project(user).pk)

    remaining = (TerrainUpload.objects.get().expires_at - timezone.now()).total_seconds()

    assert 600 < remaining <= 660


def test_finalize_before_the_put_is_upload_not_found():
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    presigned = presign(client, project.pk).json()

    response = finalize(client, project.pk, presigned["staging_key"], presigned["process_id"])

    assert response.status_code == 400
    assert response.json()["code"] == "UPLOAD_NOT_FOUND"
    assert "PUT" in response.json()["detail"]
    assert not Terrain.objects.exists()


def test_finalize_with_a_staging_key_reserved_for_another_project_is_upload_not_found():
    user = make_user()
    client = api_for(user)
    mine, other = make_project(user, name="Mine"), make_project(user, name="Other")
    presigned = presign(client, other.pk).json()
    assert put(presigned["upload_url"], DEM.read_bytes()).status_code == 200

    response = finalize(client, mine.pk, presigned["staging_key"], presigned["process_id"])

    assert response.status_code == 400
    assert response.json()["code"] == "UPLOAD_NOT_FOUND"
    assert not Terrain.objects.exists()


def test_finalize_by_another_editor_with_the_owners_staging_key_is_upload_not_found():
    owner, editor = make_user(), make_user()
    project = make_project(owner, members={editor: "editor"})
    presigned = presign(api_for(owner), project.pk).json()
    assert put(presigned["upload_url"], DEM.read_bytes()).status_code == 200

    response = finalize(api_for(editor), project.pk, presigned["staging_key"], presigned["process_id"])

    assert response.status_code == 400
    assert response.json()["code"] == "UPLOAD_NOT_FOUND"
    assert not Terrain.objects.exists()


def test_finalize_with_a_staging_key_that_was_never_reserved_is_upload_not_found(media_root):
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    key = f"staging/terrain/{project.pk}/planted/dem.tif"
    (media_root / key).parent.mkdir(parents=True)
    (media_root / key).write_bytes(DEM.read_bytes())  # bytes that got there without a presign

    response = finalize(client, project.pk, key)

    assert response.status_code == 400
    assert response.json()["code"] == "UPLOAD_NOT_FOUND"
    assert not Terrain.objects.exists()


# --- presign refuses -------------------------------------------------------------------------------------------


def test_presign_of_a_file_over_5_gib_is_refused_before_anything_is_created():
    user = make_user()
    project = make_project(user)

    response = presign(api_for(user), project.pk, size=5 * 1024**3 + 1)

    assert response.status_code == 400
    assert response.json()["code"] == "UPLOAD_TOO_LARGE"
    assert "GiB" in response.json()["detail"]
    assert not TerrainUpload.objects.exists()


@pytest.mark.parametrize(
    ("size", "code"),
    [
        (10**400, "NUMBER_OUT_OF_RANGE"),  # refused by the JSON parser, beyond what any number holds
        ("9" * 500, "INVALID_SIZE"),
        (2**63, "INVALID_SIZE"),
        (0, "INVALID_SIZE"),
        (-1, "INVALID_SIZE"),
    ],
    ids=["10**400", "500 digits as text", "2**63", "zero", "negative"],
)
def test_presign_of_a_size_no_file_has_is_400_with_a_code_not_a_500(size, code):
    user = make_user()
    project = make_project(user)

    response = presign(api_for(user), project.pk, size=size)

    assert response.status_code == 400, response.content
    assert (response.json()["code"], response.json()["field"]) == (code, "size")
    assert not TerrainUpload.objects.exists()


def test_presign_of_a_content_type_that_is_not_a_geotiff_is_refused():
    user = make_user()
    project = make_project(user)

    response = presign(api_for(user), project.pk, content_type="image/png")

    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_CONTENT_TYPE"
    assert not TerrainUpload.objects.exists()


def test_presign_with_a_read_level_key_is_refused_as_grant_level_too_low():
    user = make_user()
    project = make_project(user)

    response = presign(api_for(user, level="read"), project.pk)

    assert response.status_code == 403
    assert response.json()["code"] == "GRANT_LEVEL_TOO_LOW"
    assert not TerrainUpload.objects.exists()


def test_presign_by_a_viewer_of_the_project_is_refused_as_read_only():
    viewer = make_user()
    project = make_project(make_user(), members={viewer: "viewer"})

    response = presign(api_for(viewer), project.pk)

    assert response.status_code == 403
    assert response.json()["code"] == "PROJECT_READ_ONLY"
    assert not TerrainUpload.objects.exists()


def test_presign_by_a_stranger_is_project_not_found():
    project = make_project(make_user())

    response = presign(api_for(make_user()), project.pk)

    assert response.status_code == 404
    assert response.json()["code"] == "PROJECT_NOT_FOUND"
    assert not TerrainUpload.objects.exists()


def test_finalize_by_a_viewer_with_the_owners_staging_key_is_refused_as_read_only():
    owner, viewer = make_user(), make_user()
    project = make_project(owner, members={viewer: "viewer"})
    presigned = presign(api_for(owner), project.pk).json()
    put(presigned["upload_url"], DEM.read_bytes())

    response = finalize(api_for(viewer), project.pk, presigned["staging_key"], presigned["process_id"])

    assert response.status_code == 403
    assert response.json()["code"] == "PROJECT_READ_ONLY"
    assert not Terrain.objects.exists()


# --- the multipart fallback ------------------------------------------------------------------------------------


def test_the_multipart_upload_is_accepted_and_becomes_a_ready_terrain():
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    truth = dem_truth()

    with DEM.open("rb") as dem:
        response = client.post(
            f"{PROJECTS}{project.pk}/terrain/upload/", {"file": dem, "title": "Survey 2024"}, format="multipart"
        )
    terrain = terrain_read(client, project.pk, response.json()["id"])

    assert response.status_code == 202
    assert terrain["status"] == "ready" and terrain["title"] == "Survey 2024"
    assert terrain["elevation_max"] == pytest.approx(truth["elevation_max"], abs=1e-3)
    assert InputLayer.objects.filter(project=project).count() == len(DEFAULT_TITLES)


def test_the_multipart_upload_without_the_file_field_is_file_missing():
    user = make_user()
    project = make_project(user)

    response = api_for(user).post(f"{PROJECTS}{project.pk}/terrain/upload/", {"title": "x"}, format="multipart")

    assert response.status_code == 400
    assert response.json()["code"] == "FILE_MISSING"
    assert not Terrain.objects.exists()


def test_the_multipart_upload_with_a_read_level_key_is_refused():
    user = make_user()
    project = make_project(user)

    with DEM.open("rb") as dem:
        response = api_for(user, level="read").post(
            f"{PROJECTS}{project.pk}/terrain/upload/", {"file": dem}, format="multipart"
        )

    assert response.status_code == 403
    assert response.json()["code"] == "GRANT_LEVEL_TOO_LOW"
    assert not Terrain.objects.exists()


# --- reading terrain -------------------------------------------------------------------------------------------


def test_terrain_is_listed_and_read_in_its_project_and_is_not_found_through_another():
    user = make_user()
    client = api_for(user, level="draft")
    project, other = make_project(user, name="Mine"), make_project(user, name="Other")
    terrain_id = upload_terrain(client, project.pk, DEM.read_bytes())["id"]
    reader = api_for(user, level="read")

    listed = reader.get(f"{PROJECTS}{project.pk}/terrain/")
    detail = reader.get(f"{PROJECTS}{project.pk}/terrain/{terrain_id}/")
    elsewhere = reader.get(f"{PROJECTS}{other.pk}/terrain/{terrain_id}/")
    other_listed = reader.get(f"{PROJECTS}{other.pk}/terrain/")

    assert listed.status_code == 200 and [t["id"] for t in listed.json()["results"]] == [terrain_id]
    assert detail.status_code == 200 and detail.json()["id"] == terrain_id and detail.json()["status"] == "ready"
    assert elsewhere.status_code == 404 and elsewhere.json()["code"] == "TERRAIN_NOT_FOUND"
    assert other_listed.status_code == 200 and other_listed.json()["results"] == []


def test_a_strangers_terrain_is_project_not_found():
    owner = make_user()
    project = make_project(owner)
    terrain_id = upload_terrain(api_for(owner), project.pk, DEM.read_bytes())["id"]
    stranger = api_for(make_user(), level="read")

    listed = stranger.get(f"{PROJECTS}{project.pk}/terrain/")
    detail = stranger.get(f"{PROJECTS}{project.pk}/terrain/{terrain_id}/")

    assert listed.status_code == detail.status_code == 404
    assert listed.json()["code"] == detail.json()["code"] == "PROJECT_NOT_FOUND"


def test_a_compound_crs_without_one_epsg_code_is_kept_whole_where_the_terrain_stores_it():
    # GDA2020 / MGA zone 56 + AHD height, a common DEM's CRS, has no EPSG code of its own: its label is its WKT, which a
    # 100-character column cut short (PostgreSQL refused the whole terrain; SQLite kept it, so only production failed).
    label = crs_label(rasterio.crs.CRS.from_string("EPSG:7856+5711"))

    assert len(label) > 100 and "AHD" in label
    column = Terrain._meta.get_field("native_crs")
    assert column.max_length is None or column.max_length >= len(label)
