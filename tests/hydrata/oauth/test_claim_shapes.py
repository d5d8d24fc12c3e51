"""Each claim of a connect-flow token in every shape the JWT library would accept, not only the one we mint.

The tokens are re-signed with the server's own key, so the signature is never what refuses them: the claim is.
A token refused for its claims is 401 TOKEN_INVALID; a well-formed token that is not on record would be
TOKEN_REVOKED instead, so the code tells which check refused it. (PyJWT alone took a numeric string as exp or
iat, and a boolean grant_id passed the isinstance(int) check.)"""

import hashlib
import time

import pytest
from django.test import Client
from oauth2_provider.models import AccessToken

from hydrata.oauth.site import mcp_resource
from hydrata.oauth.tokens import REQUIRED_CLAIMS, TokenRefused, verified_claims
from tests.factories import make_user
from tests.hydrata.oauth.flow import connect
from tests.hydrata.oauth.tokens import MISSING, claims_of, resign

pytestmark = pytest.mark.django_db

ME = "/api/v2/agents/me/"


def get(token: str, path: str = ME, method: str = "get"):
    return getattr(Client(), method)(path, HTTP_AUTHORIZATION=f"Bearer {token}")


@pytest.fixture
def token() -> str:
    return connect(make_user("shapes"), level="draft").access_token


def refused_for_its_claims(token: str) -> bool:
    with pytest.raises(TokenRefused):
        verified_claims(token)
    response = get(token)
    return response.status_code == 401 and response.json()["code"] == "TOKEN_INVALID"


def test_the_token_as_minted_verifies(token):
    assert verified_claims(token)["aud"] == mcp_resource()
    assert get(token).status_code == 200


@pytest.mark.parametrize("claim", REQUIRED_CLAIMS)
def test_a_token_without_any_one_required_claim_is_refused(token, claim):
    assert refused_for_its_claims(resign(token, **{claim: MISSING})), claim


@pytest.mark.parametrize(
    "audience",
    [
        pytest.param(lambda ours: [ours], id="a list holding only ours"),
        pytest.param(lambda ours: [ours, "https://elsewhere.example/mcp/"], id="a list holding ours and another"),
        pytest.param(lambda ours: ours.rstrip("/"), id="ours without its trailing slash"),
        pytest.param(lambda ours: ours + "?x=1", id="ours with a query"),
        pytest.param(lambda ours: "", id="empty"),
        pytest.param(lambda ours: None, id="null"),
    ],
)
def test_an_audience_other_than_exactly_our_resource_as_one_string_is_refused(token, audience):
    assert refused_for_its_claims(resign(token, aud=audience(mcp_resource())))


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param(lambda now: {"nbf": now + 300}, id="not valid before five minutes from now"),
        pytest.param(lambda now: {"iat": now + 300}, id="issued five minutes from now"),
        pytest.param(lambda now: {"exp": str(now + 3600)}, id="exp as a string"),
        pytest.param(lambda now: {"iat": str(now)}, id="iat as a string"),
        pytest.param(lambda now: {"exp": None}, id="exp null"),
    ],
)
def test_a_token_whose_times_are_in_the_future_or_not_numbers_is_refused(token, changes):
    assert refused_for_its_claims(resign(token, **changes(int(time.time()))))


@pytest.mark.parametrize(
    "grant_id",
    [str, lambda grant: True, float, lambda grant: None, lambda grant: [grant], lambda grant: {"id": grant}],
    ids=["a string", "true", "a float", "null", "a list", "an object"],
)
def test_a_grant_id_that_is_not_an_integer_is_refused(token, grant_id):
    assert refused_for_its_claims(resign(token, grant_id=grant_id(claims_of(token)["grant_id"])))


@pytest.mark.parametrize("sub", [lambda sub: int(sub), lambda sub: str(int(sub) + 1)], ids=["as a number", "another"])
def test_a_subject_other_than_the_grants_user_as_a_string_is_refused(token, sub):
    forged = resign(token, sub=sub(claims_of(token)["sub"]))

    response = get(forged)

    assert response.status_code == 401 and response.json()["code"] == "TOKEN_INVALID"


def on_record_as(token: str, forged: str) -> str:
    """The forged token stands in the issued one's row, as if this server had minted it (only a holder of the
    signing key could), so nothing but the claim itself decides."""
    AccessToken.objects.filter(token_checksum=hashlib.sha256(token.encode()).hexdigest()).update(
        token_checksum=hashlib.sha256(forged.encode()).hexdigest()
    )
    return forged


def test_extra_claims_and_a_higher_scope_claim_change_nothing_the_grant_decides_the_level(token):
    forged = on_record_as(token, resign(token, scope="launch", level="launch", is_staff=True, role="admin"))

    me = get(forged)
    start = get(forged, "/api/v2/anuga/scenarios/987654/run/", method="post")

    assert me.status_code == 200 and me.json()["level"] == "draft"
    assert start.status_code == 403 and start.json()["code"] == "GRANT_LEVEL_TOO_LOW"


@pytest.mark.parametrize(
    "issuer",
    [
        pytest.param(lambda ours: [ours], id="a list holding only ours"),
        pytest.param(lambda ours: ours + "/", id="ours with a trailing slash"),
        pytest.param(lambda ours: ours.replace("http", "https", 1), id="ours on another scheme"),
        pytest.param(lambda ours: "", id="empty"),
        pytest.param(lambda ours: None, id="null"),
    ],
)
def test_an_issuer_other_than_exactly_this_site_as_one_string_is_refused(token, issuer):
    assert refused_for_its_claims(resign(token, iss=issuer(claims_of(token)["iss"])))


def accepted_on_record(token: str, forged: str) -> bool:
    verified_claims(forged)
    return get(on_record_as(token, forged)).status_code == 200


LEEWAY_SECONDS = 10  # the clock leeway docs/security-model.md states (written here, so that a changed one fails)
INSIDE = LEEWAY_SECONDS // 2  # seconds within it
OUTSIDE = LEEWAY_SECONDS + 5  # seconds past it: far enough that the test's own run time cannot cross the edge


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param(lambda now: {"exp": now - INSIDE}, id="expired within the leeway"),
        pytest.param(lambda now: {"nbf": now + INSIDE}, id="valid from within the leeway"),
        pytest.param(lambda now: {"iat": now + INSIDE}, id="issued within the leeway"),
        pytest.param(lambda now: {"exp": float(now + 60)}, id="exp as a float"),
        pytest.param(lambda now: {"nbf": now - 60}, id="valid from a minute ago"),
    ],
)
def test_times_within_the_clock_leeway_or_as_any_json_number_are_accepted(token, changes):
    assert accepted_on_record(token, resign(token, **changes(int(time.time()))))


@pytest.mark.parametrize(
    "changes, code",
    [
        pytest.param(lambda now: {"exp": now - OUTSIDE}, "TOKEN_EXPIRED", id="expired just past the leeway"),
        pytest.param(lambda now: {"exp": now - LEEWAY_SECONDS}, "TOKEN_EXPIRED", id="expired exactly the leeway ago"),
        pytest.param(lambda now: {"nbf": now + OUTSIDE}, "TOKEN_INVALID", id="valid from just past the leeway"),
        pytest.param(lambda now: {"iat": now + OUTSIDE}, "TOKEN_INVALID", id="issued just past the leeway"),
    ],
)
def test_times_just_past_the_clock_leeway_are_refused_even_on_record(token, changes, code):
    forged = on_record_as(token, resign(token, **changes(int(time.time()))))

    with pytest.raises(TokenRefused):
        verified_claims(forged)
    response = get(forged)

    assert response.status_code == 401 and response.json()["code"] == code


@pytest.mark.parametrize("typ", ["at+jwt", "AT+JWT", "application/at+jwt"])
def test_the_access_token_type_is_accepted_in_each_spelling_rfc_9068_allows(token, typ):
    assert accepted_on_record(token, resign(token, typ=typ))


@pytest.mark.parametrize("typ", ["JWT", "", MISSING, "at+jwt+x", "application/jwt"])
def test_a_token_typed_as_anything_but_an_access_token_is_refused(token, typ):
    assert refused_for_its_claims(resign(token, typ=typ))
