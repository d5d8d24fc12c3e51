"""/oauth/register/ and /oauth/token/ fuzzed with hypothesis through Django's test client, with the value classes
that broke them: huge integers, lone surrogates, NaN and Infinity, deep nesting (and NUL, which PostgreSQL cannot
store: tests/production/test_oauth_odd_input.py runs those on it). Every answer is JSON and none is a 5xx; a
registration holding a huge integer, a lone surrogate, a NUL or a non-finite number is refused."""

import json
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hydrata.oauth.flow import REDIRECT_URI, register

pytestmark = pytest.mark.django_db
EXAMPLES = 60
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)
METADATA = {"client_name": "Fuzz", "redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"}
MEMBERS = [*METADATA, "grant_types", "response_types", "scope", "client_uri", "jwks", "default_max_age", "x-odd"]

lone_surrogates = st.integers(0xD800, 0xDFFF).map(chr)
text_with_a_lone_surrogate = st.tuples(st.text(max_size=8), lone_surrogates, st.text(max_size=8)).map("".join)
huge_integers = st.integers(min_value=10**19, max_value=10**600) | st.integers(
    max_value=-(10**19), min_value=-(10**600)
)
non_finite = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e999"])
depths = st.integers(min_value=1, max_value=20_000)


@st.composite
def nested(draw) -> str:
    depth = draw(depths)
    if draw(st.booleans()):
        return "[" * depth + "]" * depth
    return '{"a": ' * depth + "0" + "}" * depth


# Each odd value as raw JSON text, and whether registration must refuse it wherever it stands.
odd_json = st.one_of(
    huge_integers.map(lambda n: (str(n), True)),
    text_with_a_lone_surrogate.map(lambda s: (json.dumps(s), True)),  # ensure_ascii writes "\ud800"
    st.just(('"a\\u0000b"', True)),
    non_finite.map(lambda literal: (literal, True)),
    nested().map(lambda text: (text, False)),  # shallow nesting is fine
)


def body_with(member: str, raw_value: str, *, in_array: bool) -> bytes:
    members = {name: json.dumps(value) for name, value in METADATA.items()}
    members[member] = f"[{raw_value}]" if in_array else raw_value
    return ("{" + ", ".join(f"{json.dumps(name)}: {value}" for name, value in members.items()) + "}").encode()


def assert_json_and_no_server_error(response) -> None:
    assert response.status_code < 500, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response.content[:300]


@FUZZ
@given(member=st.sampled_from(MEMBERS), odd=odd_json, in_array=st.booleans())
def test_odd_values_anywhere_in_registration_metadata_are_never_a_server_error(client, member, odd, in_array):
    raw_value, must_refuse = odd

    response = client.post(
        "/oauth/register/", data=body_with(member, raw_value, in_array=in_array), content_type="application/json"
    )

    assert_json_and_no_server_error(response)
    if must_refuse:
        assert response.status_code == 400 and response.json()["error"] == "invalid_client_metadata"


@FUZZ
@given(body=st.one_of(nested(), huge_integers.map(str), non_finite, text_with_a_lone_surrogate.map(json.dumps)))
def test_an_odd_registration_body_is_400_invalid_client_metadata(client, body):
    response = client.post(
        "/oauth/register/", data=body.encode("utf-8", "surrogatepass"), content_type="application/json"
    )

    assert_json_and_no_server_error(response)
    assert response.status_code == 400 and response.json()["error"] == "invalid_client_metadata"


odd_text = st.one_of(
    huge_integers.map(str),
    text_with_a_lone_surrogate,  # sent as the bytes UTF-8 would give it, which are not valid UTF-8
    non_finite,
    depths.map(lambda depth: "[" * depth),
    st.just("\x00"),
    st.text(max_size=40),
)
TOKEN_FIELDS = [
    "grant_type",
    "client_id",
    "code",
    "refresh_token",
    "redirect_uri",
    "code_verifier",
    "resource",
    "scope",
]


@pytest.fixture
def public_client_id(client):
    return register(client)["client_id"]


@FUZZ
@given(
    grant_type=st.sampled_from(["authorization_code", "refresh_token"]),
    odd_fields=st.dictionaries(st.sampled_from(TOKEN_FIELDS), odd_text, min_size=1, max_size=4),
)
def test_odd_token_requests_are_answered_in_json_never_with_a_server_error(
    client, public_client_id, grant_type, odd_fields
):
    form = {
        "grant_type": grant_type,
        "client_id": public_client_id,
        "code": "a-code",
        "refresh_token": "a-refresh-token",
        "redirect_uri": REDIRECT_URI,
        "code_verifier": "v" * 43,
        **odd_fields,
    }

    response = client.post(
        "/oauth/token/",
        data=urlencode(form, errors="surrogatepass"),
        content_type="application/x-www-form-urlencoded",
    )

    assert_json_and_no_server_error(response)
    assert response.status_code in {400, 401}


@FUZZ
@given(body=st.one_of(nested(), huge_integers.map(str), non_finite, odd_json.map(lambda odd: odd[0])))
def test_a_json_body_at_the_token_endpoint_is_answered_in_json_never_with_a_server_error(client, body):
    response = client.post("/oauth/token/", data=body.encode("utf-8", "surrogatepass"), content_type="application/json")

    assert_json_and_no_server_error(response)
