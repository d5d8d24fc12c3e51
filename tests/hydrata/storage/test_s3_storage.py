"""The S3 backend against moto: presigned URLs carry real HTTP requests, and the bucket holds the bytes.

moto intercepts both boto3 and `requests` calls to AWS hosts in-process. It does not check SigV4 presigned
signatures, so the Content-Type binding is shown from the URL's signed headers instead of a refusal.
"""

import io
from urllib.parse import parse_qs, urlsplit

import boto3
import pytest
import requests
from moto import mock_aws

from hydrata.storage import Storage, get_storage
from hydrata.storage.errors import InvalidStorageKey, StorageObjectNotFound
from hydrata.storage.s3 import S3Storage

BUCKET = "hydrata-test-bucket"
REGION = "ap-southeast-2"
KEY = "staging/12/3f2a/dem.tif"
CONTENT = b"II*\x00" + bytes(range(256)) * 300
TIFF = "image/tiff"


@pytest.fixture
def storage(settings):
    settings.HYDRATA_STORAGE_BACKEND = "s3"
    settings.HYDRATA_S3_BUCKET = BUCKET
    settings.HYDRATA_S3_REGION = REGION
    settings.HYDRATA_S3_ENDPOINT_URL = None
    with mock_aws():
        boto3.client("s3", region_name=REGION).create_bucket(
            Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION}
        )
        yield get_storage()


def stored_object(key: str) -> bytes:
    return boto3.client("s3", region_name=REGION).get_object(Bucket=BUCKET, Key=key)["Body"].read()


def test_the_s3_backend_is_chosen_by_settings_and_meets_the_storage_protocol(storage):
    assert isinstance(storage, S3Storage)
    assert isinstance(storage, Storage)


def test_a_put_to_the_presigned_url_stores_the_bytes_that_then_read_back(storage):
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)

    response = requests.put(url, data=CONTENT, headers={"Content-Type": TIFF}, timeout=10)

    assert response.status_code == 200
    assert storage.exists(key=KEY) is True
    assert storage.size(key=KEY) == len(CONTENT)
    with storage.local_path(key=KEY) as path:
        assert path.suffix == ".tif"
        assert path.read_bytes() == CONTENT
    assert not path.exists()
    head = boto3.client("s3", region_name=REGION).head_object(Bucket=BUCKET, Key=KEY)
    assert head["ContentType"] == TIFF


def test_the_upload_url_is_sigv4_on_the_regional_host_and_signs_the_content_type(storage):
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)

    parts = urlsplit(url)
    params = parse_qs(parts.query)
    assert parts.netloc == f"{BUCKET}.s3.{REGION}.amazonaws.com"
    assert parts.path == f"/{KEY}"
    assert params["X-Amz-Algorithm"] == ["AWS4-HMAC-SHA256"]
    assert params["X-Amz-Expires"] == ["60"]
    # S3 recomputes the signature from the request's own Content-Type, so any other value is refused (403).
    assert "content-type" in params["X-Amz-SignedHeaders"][0].split(";")


def test_a_custom_endpoint_gets_path_style_urls(settings, storage):
    settings.HYDRATA_S3_ENDPOINT_URL = "http://127.0.0.1:9000"

    url = get_storage().presign_upload(key=KEY, content_type=TIFF, expires_in=60)

    assert url.startswith(f"http://127.0.0.1:9000/{BUCKET}/{KEY}?")


def test_the_presigned_download_url_returns_the_bytes(storage):
    storage.save(key=KEY, data=CONTENT, content_type=TIFF)

    response = requests.get(storage.presign_download(key=KEY, expires_in=60), timeout=10)

    assert response.status_code == 200
    assert response.content == CONTENT


def test_a_download_url_with_a_filename_asks_the_browser_to_save_under_it(storage):
    storage.save(key=KEY, data=CONTENT, content_type=TIFF)

    url = storage.presign_download(key=KEY, expires_in=60, filename="Test creek DEM.tif")

    assert parse_qs(urlsplit(url).query)["response-content-disposition"] == [
        'attachment; filename="Test creek DEM.tif"'
    ]
    assert requests.get(url, timeout=10).content == CONTENT


def test_save_open_and_delete_work_on_the_bucket(storage):
    storage.save(key=KEY, data=io.BytesIO(CONTENT), content_type=TIFF)
    assert stored_object(KEY) == CONTENT

    with storage.open(key=KEY) as stream:
        assert stream.read() == CONTENT

    storage.delete(key=KEY)
    storage.delete(key=KEY)
    assert storage.exists(key=KEY) is False


def test_saved_bytes_are_stored_under_the_key(storage):
    storage.save(key=KEY, data=CONTENT)

    assert stored_object(KEY) == CONTENT
    assert storage.size(key=KEY) == len(CONTENT)


@pytest.mark.parametrize("operation", ["size", "open", "local_path"])
def test_reading_a_missing_key_is_not_found(storage, operation):
    with pytest.raises(StorageObjectNotFound):
        result = getattr(storage, operation)(key=KEY)
        if operation != "size":
            result.__enter__()


@pytest.mark.parametrize("key", ["/etc/passwd", "../outside.tif", "staging//dem.tif", "a\\b", "a\x00b"])
def test_keys_that_could_escape_are_refused_before_reaching_s3(storage, key):
    with pytest.raises(InvalidStorageKey):
        storage.presign_upload(key=key, content_type=TIFF, expires_in=60)
    with pytest.raises(InvalidStorageKey):
        storage.save(key=key, data=b"x")
