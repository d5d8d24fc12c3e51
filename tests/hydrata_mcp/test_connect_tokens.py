"""Connect-flow tokens through the tools: every token the platform must refuse is refused, with the reason; keys
keep working beside them; with the flow off, a token never gets past the gate."""

import json

import httpx
import pytest

from hydrata.agents.models import AgentGrant
from hydrata.agents.services import account_set_paused, grant_revoke
from tests.factories import make_grant, make_user
from tests.hydrata.oauth.flow import connect
from tests.hydrata.oauth.tokens import variants
from tests.mcp_client import call

pytestmark = pytest.mark.django_db(transaction=True)

EXPECTED = {
    "expired": "TOKEN_EXPIRED",
    "wrong audience": "TOKEN_INVALID",
    "wrong issuer": "TOKEN_INVALID",
    "bad signature": "TOKEN_INVALID",
    "unknown kid": "TOKEN_INVALID",
    "another grant's id": "TOKEN_INVALID",
}


def refusal(result) -> str:
    assert result.is_error
    return result.content[0].text


def test_a_connect_token_reports_its_grant_through_the_tools(live_asgi):
    connection = connect(make_user(), level="draft")

    result = call(live_asgi.url, connection.access_token, "get_agent_grant")

    assert not result.is_error
    assert (result.structured_content["kind"], result.structured_content["level"]) == ("connect", "draft")


def test_every_token_that_does_not_verify_is_refused_through_the_tools(live_asgi):
    connection = connect(make_user(), level="launch")
    forged = variants(connection.access_token)

    texts = {reason: refusal(call(live_asgi.url, token, "list_projects")) for reason, token in forged.items()}

    for reason, text in texts.items():
        assert "HTTP 401" in text and EXPECTED[reason] in text, reason
        assert "sign in again" in text, reason


def test_a_token_of_a_revoked_grant_is_refused_through_the_tools(live_asgi):
    connection = connect(make_user(), level="launch")
    grant_revoke(grant=AgentGrant.objects.get())

    text = refusal(call(live_asgi.url, connection.access_token, "list_projects"))

    assert "HTTP 401" in text and "CONNECTION_REVOKED" in text


def test_a_token_of_a_paused_account_is_refused_through_the_tools(live_asgi):
    user = make_user()
    connection = connect(user, level="launch")
    account_set_paused(user=user, paused=True)

    text = refusal(
        call(live_asgi.url, connection.access_token, "create_project", {"name": "x", "projection": "EPSG:28356"})
    )

    assert "HTTP 403" in text and "AGENT_PAUSED" in text
    assert not user.owned_projects.exists()


def test_an_hk_key_still_works_with_the_flow_on(live_asgi, settings):
    settings.HYDRATA_CONNECT_FLOW = True
    grant, key = make_grant(level="read")

    result = call(live_asgi.url, key, "get_agent_grant")

    assert not result.is_error and result.structured_content["kind"] == "key"
    assert result.structured_content["key_prefix"] == grant.key_prefix


def test_with_the_flow_off_a_jwt_shaped_bearer_is_401_at_the_gate(live_asgi, settings):
    connection = connect(make_user(), level="launch")
    settings.HYDRATA_CONNECT_FLOW = False

    response = httpx.post(
        f"{live_asgi.url}/mcp/",
        headers={
            "Authorization": f"Bearer {connection.access_token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
        content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    )

    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="hydrata.com"'
