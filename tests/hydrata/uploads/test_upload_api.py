"""GeoNode-compatible GeoJSON uploads: upload, poll the execution, read the dataset; scoped to who may see them."""

import json

import pytest
from pyproj import Transformer

from hydrata.uploads.models import Dataset, UploadExecution
from hydrata.uploads.selectors import dataset_features
from tests.factories import make_project, make_user
from tests.hydrata.uploads.helpers import (
    DATASETS,
    STATUS,
    UPLOAD,
    api_for,
    feature,
    feature_collection,
    geojson_file,
    sample_bytes,
)

pytestmark = pytest.mark.django_db


def upload_and_import(client, name, content, capture):
    """Upload, let the on_commit hook queue the (eager) import, and return the execution id."""
    with capture(execute=True):
        response = client.post(UPLOAD, {"base_file": geojson_file(name, content)}, format="multipart")
    assert response.status_code == 201, response.content
    return response.json()["execution_id"]


@pytest.mark.django_db(transaction=True)
def test_uploading_boundary_geojson_imports_it_after_commit_into_a_dataset_in_mga56_near_sydney():
    user = make_user()
    client = api_for(user)
    original = json.loads(sample_bytes("boundary.geojson"))

    created = client.post(
        UPLOAD, {"base_file": geojson_file("boundary.geojson", sample_bytes("boundary.geojson"))}, format="multipart"
    )
    execution_id = created.json()["execution_id"]
    status = client.get(f"{STATUS}{execution_id}").json()
    dataset_id = status["output_params"]["resources"][0]["id"]
    body = client.get(f"{DATASETS}{dataset_id}/").json()

    assert created.status_code == 201 and set(created.json()) == {"execution_id"}
    assert status["exec_id"] == execution_id and status["status"] == "finished" and status["func_name"] == "upload"
    assert {"created", "last_updated", "log"} <= set(status) and "Import finished" in status["log"]
    dataset = body["dataset"]
    assert dataset["pk"] == dataset_id and dataset["name"] == "boundary" and dataset["title"] == "boundary"
    assert dataset["owner"] == user.username and dataset["crs"] == "EPSG:28356"
    assert dataset["feature_count"] == len(original["features"]) == 4
    assert dataset["geometry_types"] == ["LineString"]
    assert dataset["property_names"] == ["boundary", "location"]
    xs = [x for f in original["features"] for x, _ in f["geometry"]["coordinates"]]
    ys = [y for f in original["features"] for _, y in f["geometry"]["coordinates"]]
    expected = Transformer.from_crs("EPSG:28356", "EPSG:4326", always_xy=True).transform_bounds(
        min(xs), min(ys), max(xs), max(ys)
    )
    assert dataset["bbox_wgs84"] == pytest.approx(list(expected), abs=1e-9)
    west, south, east, north = dataset["bbox_wgs84"]
    assert 150.0 < west < east < 151.5 and -34.0 < south < north < -33.5  # west of Sydney, New South Wales
    assert Dataset.objects.get(pk=dataset_id).bbox_native == [min(xs), min(ys), max(xs), max(ys)]


def test_the_stored_features_are_the_uploaded_ones_with_a_crs_member_naming_their_crs(
    django_capture_on_commit_callbacks,
):
    user = make_user()
    original = json.loads(sample_bytes("rainfall.geojson"))
    execution_id = upload_and_import(
        api_for(user), "rainfall.geojson", sample_bytes("rainfall.geojson"), django_capture_on_commit_callbacks
    )

    dataset = UploadExecution.objects.get(pk=execution_id).dataset
    stored = dataset_features(dataset=dataset)

    assert dataset.geometry_types == ["Polygon"] and dataset.property_names == ["type", "data", "description"]
    assert stored["type"] == "FeatureCollection" and stored["features"] == original["features"]
    assert stored["crs"] == {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::28356"}}
    assert dataset.storage_key.startswith("datasets/") and dataset.storage_key.endswith("/features.geojson")


def test_the_execution_status_is_served_with_and_without_a_trailing_slash(django_capture_on_commit_callbacks):
    client = api_for(make_user())
    execution_id = upload_and_import(
        client, "rainfall.geojson", sample_bytes("rainfall.geojson"), django_capture_on_commit_callbacks
    )

    bare = client.get(f"{STATUS}{execution_id}")
    slashed = client.get(f"{STATUS}{execution_id}/")

    assert bare.status_code == slashed.status_code == 200
    assert bare.json() == slashed.json()


def test_an_execution_is_ready_with_empty_output_params_until_the_import_has_run(django_capture_on_commit_callbacks):
    client = api_for(make_user())

    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = client.post(
            UPLOAD, {"base_file": geojson_file("b.geojson", sample_bytes("boundary.geojson"))}, format="multipart"
        )
    status = client.get(f"{STATUS}{response.json()['execution_id']}").json()

    assert len(queued) == 1
    assert status["status"] == "ready" and status["output_params"] == {}
    assert "Received b.geojson" in status["log"]


def test_the_uploaded_file_is_kept_under_the_execution_id(django_capture_on_commit_callbacks):
    from hydrata.storage import get_storage

    execution_id = upload_and_import(
        api_for(make_user()),
        "My Boundary.GeoJSON",
        sample_bytes("boundary.geojson"),
        django_capture_on_commit_callbacks,
    )
    execution = UploadExecution.objects.get(pk=execution_id)

    assert execution.storage_key == f"uploads/{execution_id}/my-boundary.geojson"
    assert execution.filename == "My Boundary.GeoJSON" and execution.dataset.title == "My Boundary"
    with get_storage().open(key=execution.storage_key) as stream:
        assert stream.read() == sample_bytes("boundary.geojson")


def test_a_read_level_key_cannot_upload():
    client = api_for(make_user(), level="read")

    response = client.post(
        UPLOAD, {"base_file": geojson_file("b.geojson", sample_bytes("boundary.geojson"))}, format="multipart"
    )

    assert response.status_code == 403 and response.json()["code"] == "GRANT_LEVEL_TOO_LOW"
    assert not UploadExecution.objects.exists()


def test_an_upload_without_base_file_is_a_400_naming_the_field():
    response = api_for(make_user()).post(UPLOAD, {"file": "nothing"}, format="multipart")

    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_ERROR" and response.json()["detail"].startswith("base_file:")
    assert not UploadExecution.objects.exists()


@pytest.mark.parametrize("name", ["boundary.shp", "boundary.zip", "boundary", "boundary.geojson.exe"])
def test_a_file_that_is_not_geojson_by_its_extension_is_refused_before_anything_is_kept(name):
    response = api_for(make_user()).post(
        UPLOAD, {"base_file": geojson_file(name, sample_bytes("boundary.geojson"))}, format="multipart"
    )

    assert response.status_code == 400 and response.json()["code"] == "NOT_GEOJSON"
    assert ".geojson" in response.json()["detail"]
    assert not UploadExecution.objects.exists()


def test_a_file_over_the_size_limit_is_refused_before_anything_is_kept(settings):
    settings.HYDRATA_GEOJSON_MAX_BYTES = 1000
    data = sample_bytes("boundary.geojson")  # 1841 bytes

    response = api_for(make_user()).post(UPLOAD, {"base_file": geojson_file("b.geojson", data)}, format="multipart")

    assert response.status_code == 400 and response.json()["code"] == "UPLOAD_TOO_LARGE"
    assert response.json()["max_bytes"] == 1000 and response.json()["size"] == len(data)
    assert not UploadExecution.objects.exists()


def test_another_user_cannot_see_the_execution_and_a_malformed_id_is_the_same_404(
    django_capture_on_commit_callbacks,
):
    execution_id = upload_and_import(
        api_for(make_user()), "b.geojson", sample_bytes("boundary.geojson"), django_capture_on_commit_callbacks
    )
    stranger = api_for(make_user())

    theirs = stranger.get(f"{STATUS}{execution_id}")
    malformed = stranger.get(f"{STATUS}not-a-uuid")

    assert theirs.status_code == malformed.status_code == 404
    assert theirs.json()["code"] == malformed.json()["code"] == "EXECUTION_NOT_FOUND"


def test_another_user_cannot_see_the_dataset(django_capture_on_commit_callbacks):
    execution_id = upload_and_import(
        api_for(make_user()), "b.geojson", sample_bytes("boundary.geojson"), django_capture_on_commit_callbacks
    )
    dataset_id = UploadExecution.objects.get(pk=execution_id).dataset_id

    theirs = api_for(make_user()).get(f"{DATASETS}{dataset_id}/")
    missing = api_for(make_user()).get(f"{DATASETS}999999/")

    assert theirs.status_code == missing.status_code == 404
    assert theirs.json()["code"] == missing.json()["code"] == "DATASET_NOT_FOUND"


def test_a_member_of_an_unrelated_project_cannot_see_the_dataset(django_capture_on_commit_callbacks):
    uploader, outsider = make_user(), make_user()
    make_project(uploader)
    make_project(outsider)
    execution_id = upload_and_import(
        api_for(uploader), "b.geojson", sample_bytes("boundary.geojson"), django_capture_on_commit_callbacks
    )
    dataset_id = UploadExecution.objects.get(pk=execution_id).dataset_id

    assert api_for(outsider).get(f"{DATASETS}{dataset_id}/").status_code == 404


def test_a_failed_import_reports_failed_with_empty_output_params(django_capture_on_commit_callbacks):
    client = api_for(make_user())
    collection = feature_collection(feature(None, name="no geometry"))
    execution_id = upload_and_import(client, "bad.geojson", collection, django_capture_on_commit_callbacks)

    status = client.get(f"{STATUS}{execution_id}").json()

    assert status["status"] == "failed" and status["output_params"] == {}
    assert "Feature 0 has no geometry" in status["log"]
