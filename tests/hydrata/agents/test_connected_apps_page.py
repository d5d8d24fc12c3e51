"""The /agents/ page and apps connected through the OAuth sign-in: listed beside keys, revoked at once."""

import pytest
from django.test import Client

from hydrata.agents.models import AgentGrant
from tests.factories import make_grant, make_user
from tests.hydrata.oauth.flow import connect, refresh

pytestmark = pytest.mark.django_db

PAGE = "/agents/"


@pytest.fixture
def user():
    return make_user("alice")


@pytest.fixture
def signed_in(client, user):
    client.force_login(user)
    return client


def me(token: str):
    return Client().get("/api/v2/agents/me/", HTTP_AUTHORIZATION=f"Bearer {token}")


def section(page: str, heading_id: str) -> str:
    start = page.index(f'id="{heading_id}"')
    return page[start : page.index("</section>", start)]


def test_connected_apps_are_listed_beside_keys_with_client_host_level_and_use(signed_in, user):
    connection = connect(user, level="draft")
    me(connection.access_token)
    make_grant(user, name="laptop key")
    connect(make_user("bob"))

    page = signed_in.get(PAGE).content.decode()

    apps = section(page, "connections-heading")
    grant = AgentGrant.objects.get(user=user, kind="connect")
    assert "Test MCP client" in apps and "localhost" in apps and "Draft (build models)" in apps
    assert grant.created_at.strftime("%Y-%m-%d %H:%M") in apps
    assert grant.last_used_at.strftime("%Y-%m-%d %H:%M") in apps
    assert apps.count("<tr>") == 2  # the header and alice's one app, not bob's
    assert "laptop key" in section(page, "grants-heading") and "laptop key" not in apps


def test_revoking_a_connected_app_ends_its_access_and_refresh_tokens_at_once(signed_in, user):
    connection = connect(user)
    grant = AgentGrant.objects.get(user=user)

    response = signed_in.post(f"/agents/grants/{grant.pk}/revoke/")

    assert response.status_code == 302
    assert "Disconnected “Test MCP client”" in signed_in.get(PAGE).content.decode()
    assert me(connection.access_token).json()["code"] == "CONNECTION_REVOKED"
    assert refresh(Client(), connection.client_id, connection.refresh_token).json()["error"] == "invalid_grant"


def test_revoking_all_ends_keys_and_connected_apps(signed_in, user):
    connection = connect(user)
    _, key = make_grant(user)

    signed_in.post("/agents/grants/revoke-all/")

    assert me(key).json()["code"] == "AGENT_KEY_REVOKED"
    assert me(connection.access_token).status_code == 401
    assert refresh(Client(), connection.client_id, connection.refresh_token).json()["error"] == "invalid_grant"
