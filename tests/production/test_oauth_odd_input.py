"""Odd values at /oauth/register/ and /oauth/token/ on PostgreSQL, through the Procfile's web command: deep
nesting, lone surrogates, NUL characters (which PostgreSQL cannot store or compare), huge integers, NaN and
Infinity. Each is a 4xx in JSON, never a 500; the embedded suite fuzzes the same classes on SQLite
(tests/hydrata/oauth/test_fuzz.py)."""

import json
from urllib.parse import urlencode

import httpx
import pytest
from django.test import Client

from tests.factories import make_user
from tests.hydrata.oauth.flow import Pkce, authorize_url, redirect_params, register

pytestmark = pytest.mark.django_db(transaction=True)
REDIRECT_URI = "http://localhost/callback"
METADATA = {"client_name": "Odd", "redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"}


def metadata_with(**changes: str) -> bytes:
    """The metadata as JSON, with members whose values are raw JSON text (so they can be what json.dumps won't)."""
    members = {**{key: json.dumps(value) for key, value in METADATA.items()}, **changes}
    return ("{" + ", ".join(f"{json.dumps(key)}: {value}" for key, value in members.items()) + "}").encode()


REGISTRATIONS = {
    "100,000 brackets": b"[" * 100_000,
    "deeply nested member": metadata_with(software_statement="[" * 5000 + "]" * 5000),
    "lone surrogate in the name": metadata_with(client_name='"\\ud800"'),
    "lone surrogate in a redirect URI": metadata_with(redirect_uris='["http://localhost/\\udfff"]'),
    "NUL in the name": metadata_with(client_name='"a\\u0000b"'),
    "NUL in a redirect URI": metadata_with(redirect_uris='["http://localhost/\\u0000"]'),
    "huge integer as the name": metadata_with(client_name="9" * 400),
    "huge integer member": metadata_with(client_id_issued_at="9" * 5000),
    "NaN as the name": metadata_with(client_name="NaN"),
    "Infinity member": metadata_with(client_secret_expires_at="-Infinity"),
    "1e400 member": metadata_with(default_max_age="1e400"),
    "object as a grant type": metadata_with(grant_types="[{}]"),
}


@pytest.mark.parametrize("body", REGISTRATIONS.values(), ids=REGISTRATIONS.keys())
def test_odd_registration_metadata_is_a_400_in_json_on_postgresql(production_web, body):
    response = httpx.post(
        f"{production_web.url}/oauth/register/", content=body, headers={"Content-Type": "application/json"}
    )

    assert response.status_code == 400, response.text[:300]
    assert response.json()["error"] == "invalid_client_metadata"


@pytest.fixture
def public_client_id(production_web) -> str:
    response = httpx.post(f"{production_web.url}/oauth/register/", json=METADATA)
    assert response.status_code == 201, response.text
    return response.json()["client_id"]


TOKEN_VALUES = {
    "NUL": "\x00",
    "lone surrogate": "\ud800",
    "huge integer": "9" * 5000,
    "NaN": "NaN",
    "nesting": "[" * 10_000,
}
TOKEN_FIELDS = ["client_id", "code", "refresh_token", "redirect_uri", "code_verifier", "resource", "scope"]


@pytest.mark.parametrize("value", TOKEN_VALUES.values(), ids=TOKEN_VALUES.keys())
@pytest.mark.parametrize("grant_type", ["authorization_code", "refresh_token"])
def test_odd_token_request_values_are_a_4xx_in_json_on_postgresql(production_web, public_client_id, grant_type, value):
    base = {
        "grant_type": grant_type,
        "client_id": public_client_id,
        "code": "a-code",
        "refresh_token": "a-refresh-token",
        "redirect_uri": REDIRECT_URI,
        "code_verifier": "v" * 43,
    }
    answers = []
    for field in TOKEN_FIELDS:
        # A lone surrogate goes out as the bytes UTF-8 would give it (ED A0 80), which are not valid UTF-8.
        body = urlencode({**base, field: value}, errors="surrogatepass")
        response = httpx.post(
            f"{production_web.url}/oauth/token/",
            content=body.encode("ascii"),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        answers.append((field, response.status_code, response.headers.get("content-type")))

    assert [answer for answer in answers if not (400 <= answer[1] < 500 and answer[2] == "application/json")] == []


@pytest.fixture
def browser():
    """Signed in, in this process, on the same PostgreSQL database."""
    client = Client()
    client.force_login(make_user("alice"))
    return client


def test_a_nul_in_the_client_id_or_the_pkce_challenge_at_authorize_is_refused_on_postgresql(browser, settings):
    settings.HYDRATA_OAUTH_REGISTER_RATE_LIMIT = 0
    client_id = register(Client())["client_id"]
    pkce = Pkce()

    unknown = browser.get(authorize_url("a\x00b", pkce))
    # The challenge is stored with the code when the person consents: it is refused before the page is shown.
    challenge = browser.get(authorize_url(client_id, None, code_challenge="\x00" * 43, code_challenge_method="S256"))

    assert unknown.status_code == 400 and "Location" not in unknown
    assert redirect_params(challenge)["error"] == "invalid_request"
