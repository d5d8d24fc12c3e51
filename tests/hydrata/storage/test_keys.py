"""Keys are relative POSIX paths that cannot leave the store, whichever backend holds the files."""

import pytest

from hydrata.core.statuses import http_status
from hydrata.storage import StorageError, get_storage
from hydrata.storage.errors import InvalidStorageKey

ESCAPING_KEYS = [
    "/etc/passwd",
    "../outside.tif",
    "staging/../../outside.tif",
    "staging/..",
    "staging/./dem.tif",
    "staging\\12\\dem.tif",
    "staging/12/dem\x00.tif",
    "staging//dem.tif",
    "staging/12/",
    "",
]


@pytest.fixture
def storage(settings, tmp_path):
    settings.HYDRATA_STORAGE_BACKEND = "local"
    settings.MEDIA_ROOT = tmp_path / "media"
    return get_storage()


@pytest.mark.parametrize("key", ESCAPING_KEYS)
def test_every_operation_refuses_a_key_that_could_escape_the_store(storage, key):
    operations = [
        lambda: storage.presign_upload(key=key, content_type="image/tiff", expires_in=60),
        lambda: storage.presign_download(key=key, expires_in=60),
        lambda: storage.exists(key=key),
        lambda: storage.size(key=key),
        lambda: storage.save(key=key, data=b"x"),
        lambda: storage.open(key=key).__enter__(),
        lambda: storage.local_path(key=key).__enter__(),
        lambda: storage.delete(key=key),
    ]
    for operation in operations:
        with pytest.raises(InvalidStorageKey) as refusal:
            operation()
        assert refusal.value.error_code == "INVALID_STORAGE_KEY"
        assert http_status(refusal.value) == 400
        assert isinstance(refusal.value, StorageError)


def test_nothing_is_written_outside_the_store_by_a_refused_key(storage, tmp_path):
    with pytest.raises(InvalidStorageKey):
        storage.save(key="../outside.tif", data=b"x")

    assert not (tmp_path / "outside.tif").exists()


def test_a_symlink_planted_in_the_store_cannot_lead_outside_it(storage, settings, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    settings.MEDIA_ROOT.mkdir()
    (settings.MEDIA_ROOT / "staging").symlink_to(outside)

    with pytest.raises(InvalidStorageKey):
        storage.save(key="staging/dem.tif", data=b"x")

    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("key", ["staging/12/3f2a/dem.tif", "outputs/run 7/depth..max.tif", "a"])
def test_ordinary_keys_are_accepted(storage, key):
    storage.save(key=key, data=b"x")

    assert storage.exists(key=key)
