"""What registration (DCR) refuses before the library sees the metadata: redirect URIs holding whitespace or
control characters, bodies too deep, too large or not finite, strings the database cannot store; and how many
registrations one address may make an hour. Every refusal is an RFC 7591 error in JSON and stores nothing."""

import json

import pytest
from django.core.cache import cache
from oauth2_provider.models import Application

from tests.hydrata.oauth.flow import REDIRECT_URI

pytestmark = pytest.mark.django_db

METADATA = {"client_name": "x", "redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"}


def post_registration(client, body: bytes, **extra):
    return client.post("/oauth/register/", data=body, content_type="application/json", **extra)


def with_members(**raw_members: str) -> bytes:
    """The metadata as JSON text, with members given as raw JSON (so they can be what json.dumps never writes)."""
    members = {**{name: json.dumps(value) for name, value in METADATA.items()}, **raw_members}
    return ("{" + ", ".join(f"{json.dumps(name)}: {value}" for name, value in members.items()) + "}").encode()


@pytest.mark.parametrize(
    "uri",
    [
        "https://ok.example/cb http://evil.example/cb",
        "https://ok.example/cb\thttp://evil.example/cb",
        "https://ok.example/cb\nhttps://other.example/cb",
        "https://ok.example/cb\u00a0http://evil.example/cb",
        "https://ok.example/cb\u2028http://evil.example/cb",
        "https://ok.example/c\x7fb",
        "https://ok.example/c\u200bb",
        "http://[::1/cb",
    ],
    ids=["space", "tab", "newline", "no-break space", "line separator", "DEL", "zero-width space", "bad IPv6"],
)
def test_a_redirect_uri_holding_whitespace_or_a_control_character_is_invalid_redirect_uri(client, uri):
    response = post_registration(client, json.dumps({**METADATA, "redirect_uris": [uri]}).encode())

    assert response.status_code == 400 and response.json()["error"] == "invalid_redirect_uri"
    assert not Application.objects.exists()


ODD_METADATA = {
    "100,000 brackets": b"[" * 100_000,
    "60,000 brackets (under the size limit)": b"[" * 60_000,
    "objects 40 deep": b'{"a": ' * 40 + b"1" + b"}" * 40,
    "a member nested 33 deep": with_members(jwks="[" * 33 + "]" * 33),
    "a body over 64 KB": with_members(client_uri=json.dumps("https://ok.example/" + "a" * 70_000)),
    "an escaped lone surrogate in the name": with_members(client_name='"\\ud800"'),
    "an escaped lone surrogate in a key": with_members(software_id='"x"').replace(b'"software_id"', b'"\\udfff"'),
    "the bytes of a lone surrogate": with_members(client_name='"X"').replace(b'"X"', b'"\xed\xa0\x80"'),
    "UTF-16": json.dumps(METADATA).encode("utf-16"),
    "a NUL in the name": with_members(client_name='"a\\u0000b"'),
    "a NUL in a redirect URI": with_members(redirect_uris='["http://localhost/\\u0000"]'),
    "a 400-digit integer as the name": with_members(client_name="9" * 400),
    "a 5000-digit integer member": with_members(client_id_issued_at="9" * 5000),
    "NaN as the name": with_members(client_name="NaN"),
    "Infinity member": with_members(client_secret_expires_at="Infinity"),
    "-Infinity member": with_members(default_max_age="-Infinity"),
    "1e400 member": with_members(default_max_age="1e400"),
    "an object as a grant type": with_members(grant_types="[{}]"),
    "an array as a response type": with_members(response_types="[[]]"),
    "a number as the name": with_members(client_name="7"),
}


@pytest.mark.parametrize("body", ODD_METADATA.values(), ids=ODD_METADATA.keys())
def test_odd_metadata_is_400_invalid_client_metadata_and_nothing_is_stored(client, body):
    response = post_registration(client, body)

    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"] == "invalid_client_metadata" and response.json()["error_description"]
    assert not Application.objects.exists()


def test_metadata_nested_within_the_limit_registers(client):
    jwks = {"keys": [{"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"}]}
    body = {**METADATA, "jwks": jwks, "contacts": ["ops@ok.example"], "client_name": "Zoë 😀 [x] {y}"}

    response = post_registration(client, json.dumps(body).encode())

    assert response.status_code == 201 and Application.objects.get().name == "Zoë 😀 [x] {y}"


@pytest.fixture
def limit_of_two(settings):
    settings.HYDRATA_OAUTH_REGISTER_RATE_LIMIT = 2
    cache.clear()
    yield
    cache.clear()


def test_registration_is_limited_per_client_address_with_retry_after(client, limit_of_two):
    body = json.dumps(METADATA).encode()
    first, second = (post_registration(client, body, REMOTE_ADDR="203.0.113.7") for _ in range(2))

    third = post_registration(client, body, REMOTE_ADDR="203.0.113.7")

    assert (first.status_code, second.status_code) == (201, 201)
    assert third.status_code == 429 and third.json()["error"] == "too_many_requests"
    assert 3500 <= int(third["Retry-After"]) <= 3600
    assert Application.objects.count() == 2
    assert post_registration(client, body, REMOTE_ADDR="203.0.113.8").status_code == 201  # another address


def test_the_limit_does_not_believe_x_forwarded_for(client, limit_of_two):
    body = json.dumps(METADATA).encode()
    for n in range(2):
        post_registration(client, body, REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")

    response = post_registration(client, body, REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="198.51.100.99")

    assert response.status_code == 429


def test_refused_registrations_count_towards_the_limit(client, limit_of_two):
    for _ in range(2):
        assert post_registration(client, b"[" * 100).status_code == 400

    assert post_registration(client, json.dumps(METADATA).encode()).status_code == 429


def test_a_body_over_the_upload_limit_is_400_invalid_client_metadata_not_django_s_page(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000

    response = post_registration(client, with_members(client_uri=json.dumps("https://ok.example/" + "a" * 2000)))

    assert response.status_code == 400 and response.json()["error"] == "invalid_client_metadata"
