"""Signed upload and download URLs of the local backend: only an untouched, unexpired link moves bytes."""

from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import pytest
import requests
import time_machine

from hydrata.storage import SIGNATURE_PARAM, get_storage

KEY = "staging/12/3f2a/dem.tif"
CONTENT = b"II*\x00" + bytes(range(256)) * 300
TIFF = "image/tiff"


@pytest.fixture
def media_root(settings, tmp_path):
    settings.HYDRATA_STORAGE_BACKEND = "local"
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def storage(media_root):
    return get_storage()


def path_and_query(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def with_params(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query))
    params.update(changes)
    return f"{parts.path}?{urlencode(params)}"


def stored_files(media_root) -> list:
    return [path for path in media_root.rglob("*") if path.is_file()] if media_root.exists() else []


def test_an_upload_url_points_at_this_server_and_carries_its_signature(storage, settings):
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)

    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == settings.HYDRATA_SITE_URL
    assert parts.path == f"/storage/upload/{KEY}"
    assert {"expires", "content_type", SIGNATURE_PARAM} == set(dict(parse_qsl(parts.query)))


def test_a_presigned_put_with_the_signed_content_type_stores_the_exact_bytes(client, storage, media_root):
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)

    response = client.put(path_and_query(url), data=CONTENT, content_type=TIFF)

    assert response.status_code == 200
    assert response.json() == {"key": KEY, "size": len(CONTENT)}
    assert (media_root / KEY).read_bytes() == CONTENT
    assert stored_files(media_root) == [media_root / KEY]


def test_a_key_with_spaces_and_symbols_survives_the_round_trip(client, storage, media_root):
    key = "staging/12/my dem #2 (50%).tif"
    url = storage.presign_upload(key=key, content_type=TIFF, expires_in=60)

    response = client.put(path_and_query(url), data=CONTENT, content_type=TIFF)

    assert response.status_code == 200
    assert (media_root / key).read_bytes() == CONTENT


def test_a_put_with_another_content_type_is_refused_and_stores_nothing(client, storage, media_root):
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)

    response = client.put(path_and_query(url), data=CONTENT, content_type="application/octet-stream")

    assert response.status_code == 403
    assert response.json()["code"] == "CONTENT_TYPE_MISMATCH"
    assert "image/tiff" in response.json()["detail"]
    assert stored_files(media_root) == []


def test_an_expired_upload_url_is_refused_and_stores_nothing(client, storage, media_root):
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=-1)

    response = client.put(path_and_query(url), data=CONTENT, content_type=TIFF)

    assert response.status_code == 403
    assert response.json()["code"] == "URL_EXPIRED"
    assert response.json()["detail"]
    assert stored_files(media_root) == []


def test_an_upload_url_expires_once_its_time_has_passed(client, storage, media_root, monkeypatch):
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)
    expires = int(dict(parse_qsl(urlsplit(url).query))["expires"])
    monkeypatch.setattr("hydrata.storage.signing.time.time", lambda: expires + 1)

    response = client.put(path_and_query(url), data=CONTENT, content_type=TIFF)

    assert response.json()["code"] == "URL_EXPIRED"
    assert stored_files(media_root) == []


@pytest.mark.parametrize(
    "tamper",
    [
        pytest.param(lambda url: with_params(url, **{SIGNATURE_PARAM: "A" * 43}), id="signature"),
        pytest.param(lambda url: with_params(url).replace("/dem.tif", "/other.tif"), id="key"),
        pytest.param(lambda url: with_params(url, content_type="text/plain"), id="content_type"),
        pytest.param(lambda url: with_params(url, expires="99999999999"), id="expires"),
    ],
)
def test_a_tampered_upload_url_is_refused_and_stores_nothing(client, storage, media_root, tamper):
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)
    tampered = tamper(url)

    content_type = dict(parse_qsl(urlsplit(tampered).query))["content_type"]
    response = client.put(tampered, data=CONTENT, content_type=content_type)

    assert response.status_code == 403
    assert response.json()["code"] == "SIGNATURE_INVALID"
    assert stored_files(media_root) == []


def test_an_upload_url_without_its_signature_is_refused(client, storage, media_root):
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)
    params = dict(parse_qsl(urlsplit(url).query))
    del params[SIGNATURE_PARAM]

    response = client.put(f"/storage/upload/{KEY}?{urlencode(params)}", data=CONTENT, content_type=TIFF)

    assert response.json()["code"] == "SIGNATURE_INVALID"
    assert stored_files(media_root) == []


def test_a_download_url_cannot_be_used_to_upload(client, storage, media_root):
    url = storage.presign_download(key=KEY, expires_in=60)
    upload_path = path_and_query(url).replace("/storage/download/", "/storage/upload/")

    response = client.put(upload_path, data=CONTENT, content_type=TIFF)

    assert response.status_code == 403
    assert stored_files(media_root) == []


def test_a_get_on_the_upload_url_is_not_allowed(client, storage, media_root):
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)

    response = client.get(path_and_query(url))

    assert response.status_code == 405
    assert response["Allow"] == "PUT"
    assert stored_files(media_root) == []


def test_a_body_over_the_size_limit_is_refused_and_nothing_is_kept(client, storage, media_root, settings):
    settings.HYDRATA_TERRAIN_MAX_BYTES = len(CONTENT) - 1
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)

    response = client.put(path_and_query(url), data=CONTENT, content_type=TIFF)

    assert response.status_code == 413
    assert response.json()["code"] == "UPLOAD_TOO_LARGE"
    assert stored_files(media_root) == []


def test_a_body_exactly_at_the_size_limit_is_accepted(client, storage, media_root, settings):
    settings.HYDRATA_TERRAIN_MAX_BYTES = len(CONTENT)
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)

    response = client.put(path_and_query(url), data=CONTENT, content_type=TIFF)

    assert response.status_code == 200


def test_a_refused_upload_leaves_the_file_already_stored_untouched(client, storage, media_root):
    storage.save(key=KEY, data=b"the original")
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)

    client.put(path_and_query(url), data=CONTENT, content_type="text/plain")

    assert (media_root / KEY).read_bytes() == b"the original"
    assert stored_files(media_root) == [media_root / KEY]


def test_the_upload_url_accepts_no_csrf_token_and_no_login(storage, media_root):
    from django.test import Client

    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)

    response = Client(enforce_csrf_checks=True).put(path_and_query(url), data=CONTENT, content_type=TIFF)

    assert response.status_code == 200


def test_a_download_url_returns_the_bytes(client, storage):
    storage.save(key=KEY, data=CONTENT)
    url = storage.presign_download(key=KEY, expires_in=60)

    response = client.get(path_and_query(url))

    assert response.status_code == 200
    assert b"".join(response.streaming_content) == CONTENT
    assert response["Content-Length"] == str(len(CONTENT))


def test_a_download_url_with_a_filename_asks_the_browser_to_save_under_it(client, storage):
    storage.save(key=KEY, data=CONTENT)
    url = storage.presign_download(key=KEY, expires_in=60, filename="Test creek DEM.tif")

    response = client.get(path_and_query(url))

    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="Test creek DEM.tif"'
    assert b"".join(response.streaming_content) == CONTENT


@pytest.mark.parametrize(
    "tamper",
    [
        pytest.param(lambda url: with_params(url, **{SIGNATURE_PARAM: "A" * 43}), id="signature"),
        pytest.param(lambda url: with_params(url).replace("/dem.tif", "/other.tif"), id="key"),
        pytest.param(lambda url: with_params(url, filename="evil.exe"), id="filename"),
    ],
)
def test_a_tampered_download_url_is_refused(client, storage, tamper):
    storage.save(key=KEY, data=CONTENT)
    storage.save(key=KEY.replace("dem.tif", "other.tif"), data=b"another file")
    url = storage.presign_download(key=KEY, expires_in=60, filename="dem.tif")

    response = client.get(tamper(url))

    assert response.status_code == 403
    assert response.json()["code"] == "SIGNATURE_INVALID"


def test_an_expired_download_url_is_refused(client, storage):
    storage.save(key=KEY, data=CONTENT)
    url = storage.presign_download(key=KEY, expires_in=-1)

    response = client.get(path_and_query(url))

    assert response.status_code == 403
    assert response.json()["code"] == "URL_EXPIRED"


def test_an_upload_url_cannot_be_used_to_download(client, storage):
    storage.save(key=KEY, data=CONTENT)
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)

    response = client.get(path_and_query(url).replace("/storage/upload/", "/storage/download/"))

    assert response.status_code == 403


def test_a_download_url_for_a_missing_file_is_not_found(client, storage):
    url = storage.presign_download(key=KEY, expires_in=60)

    response = client.get(path_and_query(url))

    assert response.status_code == 404
    assert response.json()["code"] == "NOT_FOUND"


def test_signed_urls_stop_working_when_the_backend_is_not_local(client, storage, settings, media_root):
    storage.save(key=KEY, data=CONTENT)
    upload_url = storage.presign_upload(key="staging/new.tif", content_type=TIFF, expires_in=60)
    download_url = storage.presign_download(key=KEY, expires_in=60)
    settings.HYDRATA_STORAGE_BACKEND = "s3"

    assert client.put(path_and_query(upload_url), data=CONTENT, content_type=TIFF).status_code == 404
    assert client.get(path_and_query(download_url)).status_code == 404
    assert not (media_root / "staging/new.tif").exists()


@pytest.mark.filterwarnings("error:StreamingHttpResponse must consume")
def test_signed_urls_work_through_the_asgi_server(live_asgi, media_root):
    storage = get_storage()
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)
    assert url.startswith(live_asgi.url)

    uploaded = requests.put(url, data=CONTENT, headers={"Content-Type": TIFF}, timeout=10)
    downloaded = requests.get(storage.presign_download(key=KEY, expires_in=60), timeout=10)

    assert uploaded.status_code == 200, uploaded.text
    assert (media_root / KEY).read_bytes() == CONTENT
    assert downloaded.status_code == 200
    assert downloaded.content == CONTENT


def test_a_streamed_body_over_the_limit_is_refused_through_the_asgi_server(live_asgi, media_root, settings):
    settings.HYDRATA_TERRAIN_MAX_BYTES = 100_000
    url = get_storage().presign_upload(key=KEY, content_type=TIFF, expires_in=60)
    # A generator body is sent chunked, without Content-Length, so only counting the bytes can catch it.
    chunks = (b"x" * 65536 for _ in range(4))

    response = requests.put(url, data=chunks, headers={"Content-Type": TIFF}, timeout=10)

    assert response.status_code == 413
    assert response.json()["code"] == "UPLOAD_TOO_LARGE"
    assert stored_files(media_root) == []


def test_a_url_quoted_key_reaches_the_same_file(client, storage, media_root):
    key = "staging/12/my dem.tif"
    url = storage.presign_upload(key=key, content_type=TIFF, expires_in=60)

    assert quote(key) in url
    assert client.put(path_and_query(url), data=b"x", content_type=TIFF).status_code == 200
    assert storage.exists(key=key)


def at(moment: float):
    return time_machine.travel(moment, tick=False)


def test_an_upload_url_works_through_its_expiry_second_and_is_refused_an_instant_after(client, storage, media_root):
    url = storage.presign_upload(key=KEY, content_type=TIFF, expires_in=60)
    expires = int(dict(parse_qsl(urlsplit(url).query))["expires"])

    with at(expires + 0.001):
        late = client.put(path_and_query(url), data=CONTENT, content_type=TIFF)
    with at(expires):
        last = client.put(path_and_query(url), data=CONTENT, content_type=TIFF)

    assert late.status_code == 403 and late.json()["code"] == "URL_EXPIRED"
    assert last.status_code == 200 and (media_root / KEY).read_bytes() == CONTENT


def test_a_download_url_works_through_its_expiry_second_and_is_refused_an_instant_after(client, storage):
    storage.save(key=KEY, data=CONTENT)
    url = storage.presign_download(key=KEY, expires_in=60)
    expires = int(dict(parse_qsl(urlsplit(url).query))["expires"])

    with at(expires):
        last = client.get(path_and_query(url))
    with at(expires + 0.001):
        late = client.get(path_and_query(url))

    assert last.status_code == 200 and b"".join(last.streaming_content) == CONTENT
    assert late.status_code == 403 and late.json()["code"] == "URL_EXPIRED"
