"""Agent keys verified in DRF on every request."""

import hashlib
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from hydrata.agents.models import AgentActivity, AgentGrant
from tests.factories import make_grant, make_user

pytestmark = pytest.mark.django_db
ME = "/api/v2/agents/me/"


def api(key: str | None = None, **headers) -> APIClient:
    client = APIClient()
    if key is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}", **headers)
    return client


def test_a_new_key_is_hk_prefixed_and_only_its_digest_and_prefix_are_stored():
    grant, key = make_grant()

    assert key.startswith("hk_") and len(key) >= 3 + 43
    stored = AgentGrant.objects.filter(pk=grant.pk).values().get()
    assert stored["key_digest"] == hashlib.sha256(key.encode()).hexdigest()
    assert stored["key_prefix"] == key[:11]
    assert key not in {str(v) for v in stored.values()}


def test_two_keys_never_collide():
    keys = {make_grant()[1] for _ in range(20)}
    assert len(keys) == 20


def test_a_valid_key_authenticates_and_describes_its_grant():
    grant, key = make_grant(level="draft", name="laptop")

    response = api(key).get(ME)

    assert response.status_code == 200
    assert response.json()["name"] == "laptop"
    assert response.json()["level"] == "draft"
    assert response.json()["account"] == grant.user.username


@pytest.mark.parametrize("state, code", [("revoked", "AGENT_KEY_REVOKED"), ("expired", "AGENT_KEY_EXPIRED")])
def test_a_revoked_or_expired_key_is_401_with_its_code(state, code):
    _, key = make_grant(**{state: True})

    response = api(key).get(ME)

    assert response.status_code == 401
    assert response.json()["code"] == code
    assert response["WWW-Authenticate"] == 'Bearer realm="hydrata.com"'


@pytest.mark.parametrize("key", ["hk_" + "z" * 43, "hk_short", "hk_" + "!" * 43])
def test_an_unknown_or_malformed_hk_key_is_401(key):
    response = api(key).get(ME)

    assert response.status_code == 401
    assert response.json()["code"] == "AGENT_KEY_INVALID"
    assert key not in response.content.decode()


@pytest.mark.parametrize("key", ["hk_short", "hk_" + "!" * 43, "hk_" + "a" * 129])
def test_a_malformed_key_is_refused_before_any_database_query(key, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = api(key).get(ME)

    assert response.status_code == 401 and response.json()["code"] == "AGENT_KEY_INVALID"


def test_a_disabled_user_cannot_use_their_keys():
    grant, key = make_grant()
    grant.user.is_active = False
    grant.user.save()

    response = api(key).get(ME)

    assert response.status_code == 401
    assert response.json()["code"] == "ACCOUNT_DISABLED"
    assert response["WWW-Authenticate"] == 'Bearer realm="hydrata.com"'
    assert AgentActivity.objects.get(grant=grant).status_code == 401  # the owner sees the refused attempt


def test_no_credential_is_401():
    response = api().get("/api/v2/anuga/projects/")

    assert response.status_code == 401
    assert response.json()["code"] == "NOT_AUTHENTICATED"


def test_another_scheme_is_left_to_other_authenticators_so_a_browser_session_still_works():
    user = make_user()
    client = APIClient()
    client.force_login(user)

    response = client.get("/api/v2/anuga/projects/", HTTP_AUTHORIZATION="Basic dXNlcjpwYXNz")

    assert response.status_code == 200


def test_a_non_hk_bearer_token_is_not_treated_as_an_agent_key(settings):
    settings.HYDRATA_CONNECT_FLOW = False
    response = APIClient().get("/api/v2/anuga/projects/", HTTP_AUTHORIZATION="Bearer some.jwt.token")

    assert response.status_code == 401
    assert response.json()["code"] == "NOT_AUTHENTICATED"


def test_last_used_is_recorded_at_most_once_per_window(settings):
    settings.HYDRATA_GRANT_LAST_USED_THROTTLE_SECONDS = 60
    grant, key = make_grant()
    client = api(key)

    client.get(ME)
    first = AgentGrant.objects.get(pk=grant.pk).last_used_at
    client.get(ME)
    second = AgentGrant.objects.get(pk=grant.pk).last_used_at
    AgentGrant.objects.filter(pk=grant.pk).update(last_used_at=timezone.now() - timedelta(minutes=5))
    client.get(ME)
    third = AgentGrant.objects.get(pk=grant.pk).last_used_at

    assert first is not None and second == first
    assert third > first


def test_every_request_with_a_grant_is_recorded_in_the_activity_log():
    grant, key = make_grant(level="read")
    client = api(key, HTTP_X_HYDRATA_CLIENT="mcp/9.9", HTTP_X_HYDRATA_SESSION="5b0f3a8e-52a4-4d5e-9a55-2c1f0e7c9d11")

    client.get(ME)
    client.post("/api/v2/anuga/projects/", {"name": "x", "projection": "EPSG:28356"}, format="json")

    log = list(
        AgentActivity.objects.filter(grant=grant)
        .order_by("created_at")
        .values_list("method", "path", "status_code", "client", "session")
    )
    assert log == [
        ("GET", ME, 200, "mcp/9.9", "5b0f3a8e-52a4-4d5e-9a55-2c1f0e7c9d11"),
        ("POST", "/api/v2/anuga/projects/", 403, "mcp/9.9", "5b0f3a8e-52a4-4d5e-9a55-2c1f0e7c9d11"),
    ]


def test_the_informational_headers_never_decide_who_acts():
    owner_grant, owner_key = make_grant(level="read")
    other_grant, _ = make_grant(level="read")

    response = api(owner_key, HTTP_X_HYDRATA_SESSION=str(other_grant.pk)).get(ME)

    assert response.json()["name"] == owner_grant.name
    assert AgentActivity.objects.get().grant == owner_grant


def test_create_agent_key_prints_only_the_key(capsys):
    call_command("create_agent_key", "--username", "alice", "--level", "launch", "--create-user")

    key = capsys.readouterr().out.strip()
    grant = AgentGrant.objects.get()
    assert key.startswith("hk_") and "\n" not in key
    assert grant.user.username == "alice" and grant.level == "launch"
    assert grant.key_digest == hashlib.sha256(key.encode()).hexdigest()


def test_create_agent_key_refuses_an_unknown_user_without_create_user():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--create-user"):
        call_command("create_agent_key", "--username", "nobody", "--level", "read")
