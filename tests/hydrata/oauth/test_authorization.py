"""The authorization code flow with PKCE: what a person's consent issues, and every bad request refused per the
RFCs (400 or 401 with the standard `error`, a redirect only to a registered URI), never a 500."""

import base64
import json
from datetime import datetime, time, timedelta

import pytest
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import AccessToken, Application, RefreshToken

from hydrata.agents.models import AgentGrant
from hydrata_contract.grants import GrantKind
from tests.factories import make_user
from tests.hydrata.oauth.flow import (
    REDIRECT_URI,
    Pkce,
    authorize_url,
    connect,
    consent,
    exchange,
    mcp_resource,
    redirect_params,
    refresh,
    register,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def user():
    return make_user("alice")


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def client_id(client):
    return register(client)["client_id"]


def me(token: str):
    return Client().get("/api/v2/agents/me/", HTTP_AUTHORIZATION=f"Bearer {token}")


def test_signing_in_and_consenting_to_draft_creates_a_connect_grant_at_draft(user):
    connection = connect(user, level="draft")

    grant = AgentGrant.objects.get(user=user)
    assert grant.kind == GrantKind.CONNECT and grant.level == "draft" and grant.name == "Test MCP client"
    assert grant.client_host == "localhost" and grant.token_family is not None
    assert connection.token_response["scope"] == "draft"
    assert connection.token_response["expires_in"] == 3600
    described = me(connection.access_token).json()
    assert (described["kind"], described["level"], described["id"]) == ("connect", "draft", grant.pk)


def test_the_consent_page_is_behind_the_sites_login(client, client_id):
    response = client.get(authorize_url(client_id, Pkce()))

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/oauth/authorize/")


def test_the_consent_page_names_the_client_and_preselects_a_single_requested_level(browser, client_id):
    page = browser.get(authorize_url(client_id, Pkce(), scope="launch")).content.decode()

    assert "Test MCP client" in page and "localhost" in page
    assert 'value="launch"\n            checked' in page


def test_the_consent_preselects_read_when_the_client_asks_for_every_level(browser, client_id):
    page = browser.get(authorize_url(client_id, Pkce())).content.decode()

    assert 'value="read"\n            checked' in page


def test_the_chosen_level_wins_over_the_scopes_the_client_asked_for(user):
    connection = connect(user, level="read")

    assert connection.token_response["scope"] == "read"
    assert AgentGrant.objects.get(user=user).level == "read"


def test_a_chosen_expiry_ends_the_grant_at_the_end_of_that_day(user):
    today = timezone.localdate()

    connect(user, level="draft", expires_on=today.isoformat())

    expires_at = AgentGrant.objects.get(user=user).expires_at
    assert expires_at == datetime.combine(today + timedelta(days=1), time.min, tzinfo=timezone.get_current_timezone())


def test_no_access_token_outlives_its_grant(client, user):
    connection = connect(user, level="draft", expires_on=timezone.localdate().isoformat())
    AgentGrant.objects.update(expires_at=timezone.now() + timedelta(seconds=100))

    renewed = refresh(client, connection.client_id, connection.refresh_token).json()

    assert 90 <= renewed["expires_in"] <= 100


def test_an_expiry_in_the_past_is_refused_on_the_page_and_nothing_is_granted(browser, client_id):
    response = consent(browser, authorize_url(client_id, Pkce()), expires_on="2000-01-01")

    assert response.status_code == 200 and "Choose today or a later day" in response.content.decode()
    assert not AgentGrant.objects.exists()


def test_denying_sends_access_denied_back_and_grants_nothing(browser, client_id):
    params = redirect_params(consent(browser, authorize_url(client_id, Pkce()), allow=False))

    assert params["error"] == "access_denied" and params["state"] == "state-1"
    assert not AgentGrant.objects.exists()


def test_a_client_asking_for_automatic_approval_still_gets_the_consent_form(user, browser):
    connection = connect(user, level="draft")

    response = browser.get(authorize_url(connection.client_id, Pkce(), scope="draft", approval_prompt="auto"))

    assert response.status_code == 200 and b'id="consent"' in response.content  # the form, not a redirect
    assert AgentGrant.objects.count() == 1


def test_an_application_marked_to_skip_consent_gets_no_code(browser, client_id):
    Application.objects.filter(client_id=client_id).update(skip_authorization=True)

    params = redirect_params(browser.get(authorize_url(client_id, Pkce())))

    assert params["error"] == "access_denied" and "code" not in params
    assert not AgentGrant.objects.exists()


@pytest.mark.parametrize(
    "resource",
    [
        "http://127.0.0.1:8000/mcp",
        "http://127.0.0.1:8000/mcp/tools",
        "http://127.0.0.1:8000/",
        "https://elsewhere.example/mcp/",
    ],
)
def test_a_resource_other_than_the_canonical_mcp_url_is_invalid_target(browser, client_id, resource):
    params = redirect_params(browser.get(authorize_url(client_id, Pkce(), resource=resource)))

    assert params["error"] == "invalid_target"
    assert not AgentGrant.objects.exists()


def test_an_unknown_client_is_an_error_page_and_never_a_redirect(browser):
    response = browser.get(authorize_url("no-such-client", Pkce()))

    assert response.status_code == 400 and "Location" not in response


def test_a_redirect_uri_that_was_not_registered_is_an_error_page_and_never_a_redirect(browser, client_id):
    response = browser.get(authorize_url(client_id, Pkce(), redirect_uri="https://attacker.example/cb"))

    assert response.status_code == 400 and "Location" not in response


def test_a_loopback_redirect_uri_may_use_any_port(browser, client_id):
    response = browser.get(authorize_url(client_id, Pkce(), redirect_uri="http://localhost:53682/callback"))

    assert response.status_code == 200


def test_missing_pkce_is_invalid_request(browser, client_id):
    params = redirect_params(browser.get(authorize_url(client_id, None)))

    assert params["error"] == "invalid_request" and "challenge" in params["error_description"].lower()


@pytest.mark.parametrize("method", ["plain", None])
def test_plain_pkce_is_refused(browser, client_id, method):
    pkce = Pkce()
    url = authorize_url(client_id, None, code_challenge=pkce.challenge, code_challenge_method=method)

    params = redirect_params(browser.get(url))

    assert params["error"] == "invalid_request" and "S256" in params["error_description"]


def test_a_wrong_code_verifier_is_invalid_grant(client, browser, client_id):
    code = redirect_params(consent(browser, authorize_url(client_id, Pkce())))["code"]

    response = exchange(client, client_id, code, Pkce())

    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"


def test_a_code_used_twice_is_refused_and_revokes_what_it_issued(client, browser, client_id):
    pkce = Pkce()
    code = redirect_params(consent(browser, authorize_url(client_id, pkce)))["code"]
    first = exchange(client, client_id, code, pkce).json()

    again = exchange(client, client_id, code, pkce)

    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    assert AgentGrant.objects.get().revoked_at is not None
    assert me(first["access_token"]).status_code == 401
    assert refresh(client, client_id, first["refresh_token"]).json()["error"] == "invalid_grant"


def test_an_expired_code_is_invalid_grant(client, browser, client_id, settings):
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "AUTHORIZATION_CODE_EXPIRE_SECONDS": -1}
    pkce = Pkce()
    code = redirect_params(consent(browser, authorize_url(client_id, pkce)))["code"]

    response = exchange(client, client_id, code, pkce)

    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"


def test_a_wrong_resource_at_the_token_endpoint_is_invalid_target(client, browser, client_id):
    pkce = Pkce()
    code = redirect_params(consent(browser, authorize_url(client_id, pkce)))["code"]

    response = exchange(client, client_id, code, pkce, resource="http://127.0.0.1:8000/mcp")

    assert response.status_code == 400 and response.json()["error"] == "invalid_target"


def test_a_code_of_a_grant_revoked_before_the_exchange_is_invalid_grant(client, browser, client_id):
    from hydrata.agents.services import grant_revoke

    pkce = Pkce()
    code = redirect_params(consent(browser, authorize_url(client_id, pkce)))["code"]
    grant_revoke(grant=AgentGrant.objects.get())

    assert exchange(client, client_id, code, pkce).json()["error"] == "invalid_grant"


def test_a_refresh_rotates_both_tokens_and_the_old_access_token_stops_working(client, user):
    connection = connect(user)

    renewed = refresh(client, connection.client_id, connection.refresh_token).json()

    assert renewed["refresh_token"] != connection.refresh_token and renewed["scope"] == "draft"
    assert me(renewed["access_token"]).status_code == 200
    assert me(connection.access_token).json()["code"] == "TOKEN_REVOKED"


def test_a_reused_refresh_token_revokes_the_whole_family_and_the_grant(client, user):
    connection = connect(user)
    renewed = refresh(client, connection.client_id, connection.refresh_token).json()

    replay = refresh(client, connection.client_id, connection.refresh_token)

    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert me(renewed["access_token"]).status_code == 401
    assert refresh(client, connection.client_id, renewed["refresh_token"]).json()["error"] == "invalid_grant"
    assert AgentGrant.objects.get().revoked_at is not None


def test_refreshing_a_revoked_grant_is_invalid_grant(client, user):
    from hydrata.agents.services import grant_revoke

    connection = connect(user)
    grant_revoke(grant=AgentGrant.objects.get())

    assert refresh(client, connection.client_id, connection.refresh_token).json()["error"] == "invalid_grant"


def test_an_unknown_client_at_the_token_endpoint_is_invalid_client(client):
    response = exchange(client, "no-such-client", "some-code", Pkce())

    assert response.status_code == 401 and response.json()["error"] == "invalid_client"


def test_a_confidential_client_must_authenticate_at_the_token_endpoint(client, browser):
    registered = register(client, token_endpoint_auth_method="client_secret_basic")
    client_id, secret = registered["client_id"], registered["client_secret"]
    pkce = Pkce()
    code = redirect_params(consent(browser, authorize_url(client_id, pkce)))["code"]

    unauthenticated = exchange(client, client_id, code, pkce)
    basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    authenticated = exchange(client, client_id, code, pkce, headers={"Authorization": f"Basic {basic}"})

    assert unauthenticated.status_code == 401 and unauthenticated.json()["error"] == "invalid_client"
    assert authenticated.status_code == 200 and authenticated.json()["scope"] == "draft"


def test_the_revocation_endpoint_ends_the_connection(client, user):
    connection = connect(user)

    revocation = {"token": connection.refresh_token, "client_id": connection.client_id}
    response = client.post("/oauth/revoke/", data=revocation)

    assert response.status_code == 200
    assert AgentGrant.objects.get().revoked_at is not None
    assert me(connection.access_token).status_code == 401
    assert not AccessToken.objects.filter(user=user).exists() and RefreshToken.objects.get().revoked is not None


@pytest.mark.parametrize(
    ("metadata", "error"),
    [
        ({"redirect_uris": ["http://attacker.example/cb"]}, "invalid_redirect_uri"),
        ({"grant_types": ["client_credentials"]}, "invalid_client_metadata"),
        ({"grant_types": ["authorization_code", "password"]}, "invalid_client_metadata"),
        ({"response_types": ["token"]}, "invalid_client_metadata"),
        ({"redirect_uris": "http://localhost/callback"}, "invalid_client_metadata"),
    ],
)
def test_registration_refuses_what_this_server_will_not_issue(client, metadata, error):
    body = {"client_name": "x", "redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none", **metadata}

    response = client.post("/oauth/register/", data=json.dumps(body), content_type="application/json")

    assert response.status_code == 400 and response.json()["error"] == error


@pytest.mark.parametrize("body", [b"not json", b"[]", b'{"redirect_uris": [1]}'])
def test_malformed_registrations_are_400_not_500(client, body):
    response = client.post("/oauth/register/", data=body, content_type="application/json")

    assert response.status_code == 400 and response.json()["error"] in {
        "invalid_client_metadata",
        "invalid_redirect_uri",
    }


def test_the_canonical_resource_is_the_mcp_url_with_its_slash():
    assert mcp_resource() == "http://127.0.0.1:8000/mcp/"
