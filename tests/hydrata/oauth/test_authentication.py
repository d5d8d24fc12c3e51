"""A connect-flow token on the REST API: verified on every request, then exactly an agent key of its grant."""

import hashlib
import logging
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from django.test import Client
from oauth2_provider.models import AccessToken, RefreshToken

from hydrata.agents.models import AgentActivity, AgentGrant
from hydrata.agents.services import account_set_paused, grant_revoke
from hydrata.oauth.keys import signing_key
from tests.factories import make_grant, make_user
from tests.hydrata.oauth.flow import connect, mcp_resource
from tests.hydrata.oauth.tokens import claims_of, handmade, new_key_pem, resign, variants

pytestmark = pytest.mark.django_db

ME = "/api/v2/agents/me/"


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def get(token: str, path: str = ME):
    return Client().get(path, HTTP_AUTHORIZATION=f"Bearer {token}")


@pytest.fixture
def connection():
    return connect(make_user("alice"), level="draft")


def test_the_access_token_is_an_rfc_9068_jwt_naming_site_resource_user_client_level_and_grant(connection):
    header = jwt.get_unverified_header(connection.access_token)
    claims = claims_of(connection.access_token)
    grant = AgentGrant.objects.get()

    assert header == {"alg": "RS256", "kid": signing_key().kid, "typ": "at+jwt"}
    assert claims["iss"] == "http://127.0.0.1:8000" and claims["aud"] == mcp_resource()
    assert claims["sub"] == str(grant.user_id) and claims["client_id"] == connection.client_id
    assert claims["scope"] == "draft" and claims["grant_id"] == grant.pk
    assert claims["exp"] - claims["iat"] == 3600 and len(claims["jti"]) == 32
    assert abs(claims["iat"] - time.time()) < 60


def test_only_digests_of_the_tokens_are_stored(connection):
    stored = AccessToken.objects.get(user__isnull=False)
    refresh = RefreshToken.objects.get()

    assert (stored.token, stored.token_checksum) == ("", digest(connection.access_token))
    assert (refresh.token, refresh.token_checksum) == ("", digest(connection.refresh_token))


def test_a_connect_token_acts_as_its_grant_and_every_request_is_in_the_activity_log(connection):
    response = get(connection.access_token)

    grant = AgentGrant.objects.get()
    assert response.status_code == 200 and response.json()["id"] == grant.pk
    assert AgentActivity.objects.get().grant == grant
    assert grant.last_used_at is not None


def test_a_connect_token_below_the_level_needed_is_told_to_reconnect_choosing_it():
    connection = connect(make_user(), level="read")

    response = Client().post(
        "/api/v2/anuga/projects/",
        data={"name": "x", "projection": "EPSG:28356"},
        HTTP_AUTHORIZATION=f"Bearer {connection.access_token}",
    )

    body = response.json()
    assert response.status_code == 403 and body["code"] == "GRANT_LEVEL_TOO_LOW" and body["required_level"] == "draft"
    assert "connect again, choosing draft" in body["detail"]


@pytest.mark.parametrize(
    "reason", ["expired", "wrong audience", "wrong issuer", "bad signature", "unknown kid", "another grant's id"]
)
def test_a_token_that_does_not_verify_is_401_invalid_token(connection, reason):
    response = get(variants(connection.access_token)[reason])

    body = response.json()
    assert response.status_code == 401 and body["error"] == "invalid_token"
    assert body["code"] == ("TOKEN_EXPIRED" if reason == "expired" else "TOKEN_INVALID")


def test_unsigned_tokens_and_tokens_hmac_signed_with_the_public_key_are_refused(connection):
    key = signing_key()
    claims = claims_of(connection.access_token)
    public_pem = key.private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )

    unsigned = handmade(claims, {"alg": "none", "kid": key.kid, "typ": "at+jwt"}, None)
    confused = handmade(claims, {"alg": "HS256", "kid": key.kid, "typ": "at+jwt"}, public_pem)

    assert get(unsigned).status_code == 401
    assert get(confused).status_code == 401 and get(confused).json()["code"] == "TOKEN_INVALID"


def test_a_token_that_is_not_an_access_token_is_refused(connection):
    key = signing_key()
    id_token_like = jwt.encode(
        claims_of(connection.access_token), key.private, algorithm="RS256", headers={"kid": key.kid, "typ": "JWT"}
    )

    assert get(id_token_like).json()["code"] == "TOKEN_INVALID"


def test_a_token_of_a_revoked_grant_is_refused_and_the_attempt_logged(connection):
    grant_revoke(grant=AgentGrant.objects.get())

    response = get(connection.access_token)

    assert response.status_code == 401 and response.json()["code"] == "CONNECTION_REVOKED"
    assert AgentActivity.objects.get().status_code == 401


def test_a_token_of_an_expired_grant_is_refused(connection):
    AgentGrant.objects.update(expires_at=AgentGrant.objects.get().created_at)

    assert get(connection.access_token).json()["code"] == "CONNECTION_EXPIRED"


def test_a_token_of_a_paused_account_is_403_agent_paused(connection):
    account_set_paused(user=AgentGrant.objects.get().user, paused=True)

    response = get(connection.access_token)

    assert response.status_code == 403 and response.json()["code"] == "AGENT_PAUSED"


def test_a_token_of_a_disabled_account_is_refused(connection):
    user = AgentGrant.objects.get().user
    user.is_active = False
    user.save()

    assert get(connection.access_token).json()["code"] == "ACCOUNT_DISABLED"


def test_a_token_signed_by_a_retired_key_verifies_until_the_key_is_removed(connection, settings):
    old_key = settings.HYDRATA_OAUTH_SIGNING_KEY
    settings.HYDRATA_OAUTH_SIGNING_KEY = new_key_pem()
    settings.HYDRATA_OAUTH_RETIRED_KEYS = [old_key]

    kept = get(connection.access_token).status_code
    settings.HYDRATA_OAUTH_RETIRED_KEYS = []
    dropped = get(connection.access_token).status_code

    assert (kept, dropped) == (200, 401)


def test_an_hk_key_works_unchanged_with_the_flow_on(settings):
    settings.HYDRATA_CONNECT_FLOW = True
    grant, key = make_grant(level="draft")

    assert get(key).json()["id"] == grant.pk


def test_with_the_flow_off_a_connect_token_is_not_a_credential(connection, settings):
    settings.HYDRATA_CONNECT_FLOW = False

    response = get(connection.access_token)

    assert response.status_code == 401 and response.json()["code"] == "NOT_AUTHENTICATED"


def test_a_refused_token_is_logged_without_the_token(connection, caplog):
    caplog.set_level(logging.DEBUG)
    forged = resign(connection.access_token, aud="https://elsewhere.example/mcp/")

    get(forged)

    assert "refused" in caplog.text
    for token in (forged, connection.access_token, connection.refresh_token):
        assert token not in caplog.text and token.split(".")[-1] not in caplog.text
