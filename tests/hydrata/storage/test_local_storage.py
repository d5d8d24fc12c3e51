"""The local backend keeps files under MEDIA_ROOT, and get_storage follows the settings of the moment."""

import io

import pytest
from django.core.exceptions import ImproperlyConfigured
from moto import mock_aws

from hydrata.core.statuses import http_status
from hydrata.storage import Storage, get_storage
from hydrata.storage.errors import StorageObjectNotFound
from hydrata.storage.local import LocalStorage
from hydrata.storage.s3 import S3Storage

KEY = "staging/12/3f2a/dem.tif"
CONTENT = b"II*\x00 a small tiff " * 1000


@pytest.fixture
def media_root(settings, tmp_path):
    settings.HYDRATA_STORAGE_BACKEND = "local"
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def storage(media_root):
    return get_storage()


def test_the_local_backend_is_the_default_and_meets_the_storage_protocol(storage):
    assert isinstance(storage, LocalStorage)
    assert isinstance(storage, Storage)


def test_saved_bytes_land_under_media_root_at_the_key(storage, media_root):
    storage.save(key=KEY, data=CONTENT)

    assert (media_root / KEY).read_bytes() == CONTENT


def test_a_saved_stream_is_stored_whole(storage, media_root):
    storage.save(key=KEY, data=io.BytesIO(CONTENT * 10), content_type="image/tiff")

    assert (media_root / KEY).read_bytes() == CONTENT * 10


def test_saving_again_replaces_the_file_and_leaves_no_temporary_files(storage, media_root):
    storage.save(key=KEY, data=b"first")
    storage.save(key=KEY, data=b"second")

    assert (media_root / KEY).read_bytes() == b"second"
    assert [path.name for path in (media_root / KEY).parent.iterdir()] == ["dem.tif"]


def test_exists_and_size_describe_the_stored_file(storage):
    assert storage.exists(key=KEY) is False

    storage.save(key=KEY, data=CONTENT)

    assert storage.exists(key=KEY) is True
    assert storage.size(key=KEY) == len(CONTENT)


def test_a_directory_is_not_a_stored_file(storage):
    storage.save(key=KEY, data=CONTENT)

    assert storage.exists(key="staging/12") is False


def test_open_gives_a_read_only_stream_that_closes_after_the_block(storage):
    storage.save(key=KEY, data=CONTENT)

    with storage.open(key=KEY) as stream:
        assert stream.read() == CONTENT
        with pytest.raises(io.UnsupportedOperation):
            stream.write(b"x")

    assert stream.closed


def test_local_path_is_the_stored_file_itself(storage, media_root):
    storage.save(key=KEY, data=CONTENT)

    with storage.local_path(key=KEY) as path:
        assert path == (media_root / KEY).resolve()
        assert path.read_bytes() == CONTENT

    assert path.exists()


def test_delete_removes_the_file_and_deleting_nothing_is_not_an_error(storage):
    storage.save(key=KEY, data=CONTENT)

    storage.delete(key=KEY)
    storage.delete(key=KEY)

    assert storage.exists(key=KEY) is False


@pytest.mark.parametrize("operation", ["size", "open", "local_path"])
def test_reading_a_missing_key_is_not_found(storage, operation):
    with pytest.raises(StorageObjectNotFound) as refusal:
        result = getattr(storage, operation)(key=KEY)
        if operation != "size":
            result.__enter__()

    assert http_status(refusal.value) == 404
    assert refusal.value.error_code == "NOT_FOUND"


def test_get_storage_follows_a_change_of_settings(settings, media_root, tmp_path):
    assert isinstance(get_storage(), LocalStorage)

    settings.MEDIA_ROOT = tmp_path / "elsewhere"
    get_storage().save(key=KEY, data=CONTENT)
    assert (tmp_path / "elsewhere" / KEY).read_bytes() == CONTENT

    settings.HYDRATA_STORAGE_BACKEND = "s3"
    settings.HYDRATA_S3_BUCKET = "hydrata-settings-test"
    with mock_aws():  # building a client looks for AWS credentials
        assert isinstance(get_storage(), S3Storage)

    settings.HYDRATA_STORAGE_BACKEND = "local"
    assert isinstance(get_storage(), LocalStorage)


def test_the_s3_backend_without_a_bucket_is_a_configuration_error(settings):
    settings.HYDRATA_STORAGE_BACKEND = "s3"
    settings.HYDRATA_S3_BUCKET = ""

    with pytest.raises(ImproperlyConfigured, match="HYDRATA_S3_BUCKET"):
        get_storage()


def test_an_unknown_backend_is_a_configuration_error(settings):
    settings.HYDRATA_STORAGE_BACKEND = "ftp"

    with pytest.raises(ImproperlyConfigured, match="HYDRATA_STORAGE_BACKEND"):
        get_storage()
