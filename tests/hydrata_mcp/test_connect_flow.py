"""The connect flow end to end over a real socket with the official SDK's OAuth client provider: 401 with
resource_metadata, discovery, registration (DCR, or a Client ID Metadata Document), sign-in and consent, the
token with PKCE, tools acting at the chosen level, a refresh, and a revocation on the /agents/ page."""

import asyncio
import time

import pytest
from oauth2_provider.models import RefreshToken

from hydrata.agents.models import AgentActivity, AgentGrant
from tests.factories import make_user
from tests.https_documents import DocumentServer
from tests.hydrata_mcp.connect_client import REDIRECT_URI, MemoryStorage, Person, oauth_mcp_client, oauth_provider

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-test-password"
TOKEN_LIFETIME = 4  # seconds: short, so the client refreshes on its own during the test


@pytest.fixture
def short_lived_tokens(settings):
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "ACCESS_TOKEN_EXPIRE_SECONDS": TOKEN_LIFETIME}


@pytest.fixture
def metadata_documents(tmp_path, settings, monkeypatch):
    """A client's metadata document on an https origin of its own, a host this server is told to trust."""
    with DocumentServer(tmp_path) as server:
        monkeypatch.setenv("SSL_CERT_FILE", str(server.cert_path))
        settings.HYDRATA_CIMD_PRIVATE_HOSTS = ["localhost"]
        settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_ALLOWED_HOSTS": ["localhost"]}
        yield server


def run_connected_session(site: str, person: Person, provider) -> dict:
    async def session():
        seen: dict = {"exchanges": []}
        async with oauth_mcp_client(site, provider, seen["exchanges"]) as client:
            seen["grant"] = await client.call_tool("get_agent_grant", {})
            seen["project"] = await client.call_tool("create_project", {"name": "Creek", "projection": "EPSG:28356"})
            seen["launch"] = await client.call_tool("start_simulation", {"scenario_id": 1})
            issued = time.monotonic()
            await asyncio.sleep(max(0.0, TOKEN_LIFETIME + 1 - (time.monotonic() - issued)))
            seen["after_refresh"] = await client.call_tool("list_projects", {})
            seen["revoked_grant"] = await person.revoke_connection(seen["grant"].structured_content["name"])
            seen["after_revoke"] = await client.call_tool("list_projects", {})
        await person.browser.aclose()
        return seen

    return asyncio.run(session())


DISCOVERY = [
    ("POST", "/mcp/", 401),  # the challenge names the protected resource metadata
    ("GET", "/.well-known/oauth-protected-resource/mcp", 200),
    ("GET", "/.well-known/oauth-authorization-server", 200),
]


def assert_the_connection_worked_then_was_revoked(seen: dict, user, client_name: str) -> None:
    grant = AgentGrant.objects.get(user=user)
    described = seen["grant"].structured_content
    assert not seen["grant"].is_error
    assert (described["kind"], described["level"], described["name"]) == ("connect", "draft", client_name)
    assert not seen["project"].is_error and user.owned_projects.get().name == "Creek"
    launch = seen["launch"].content[0].text
    assert seen["launch"].is_error and "HTTP 403" in launch and "GRANT_LEVEL_TOO_LOW" in launch
    assert "choosing launch" in launch

    family = list(RefreshToken.objects.filter(token_family=grant.token_family).order_by("created"))
    assert len(family) >= 2 and family[0].revoked is not None  # the client refreshed (rotation)
    assert not seen["after_refresh"].is_error

    assert seen["revoked_grant"] == grant.pk and grant.revoked_at is not None
    refused = seen["after_revoke"].content[0].text
    assert seen["after_revoke"].is_error and "HTTP 401" in refused and "CONNECTION_REVOKED" in refused
    assert all(f.revoked is not None for f in RefreshToken.objects.filter(token_family=grant.token_family))
    assert {a.grant_id for a in AgentActivity.objects.all()} == {grant.pk}


def test_a_client_registers_dynamically_signs_in_at_draft_refreshes_and_is_revoked(live_asgi, short_lived_tokens):
    user = make_user("engineer", password=PASSWORD)
    person = Person(live_asgi.url, "engineer", PASSWORD, level="draft")
    provider = oauth_provider(live_asgi.url, person, MemoryStorage(), client_name="Claude-like client")

    seen = run_connected_session(live_asgi.url, person, provider)

    assert_the_connection_worked_then_was_revoked(seen, user, "Claude-like client")
    assert seen["exchanges"][:6] == [
        *DISCOVERY,
        ("POST", "/oauth/register/", 201),
        ("POST", "/oauth/token/", 200),
        ("POST", "/mcp/", 200),
    ]
    assert ("POST", "/oauth/token/", 200) in seen["exchanges"][6:]  # the refresh
    grant = AgentGrant.objects.get(user=user)
    assert grant.application.registration_source == "dcr" and grant.client_host == "localhost"
    assert "Claude-like client" in person.consent_pages[0] and "registered itself" in person.consent_pages[0]


def test_a_client_with_a_metadata_document_connects_without_registering(
    live_asgi, short_lived_tokens, metadata_documents
):
    client_id = f"{metadata_documents.origin}/oauth/client-metadata.json"
    metadata_documents.documents["/oauth/client-metadata.json"] = {
        "client_id": client_id,
        "client_name": "Metadata document client",
        "redirect_uris": [REDIRECT_URI],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    user = make_user("engineer", password=PASSWORD)
    person = Person(live_asgi.url, "engineer", PASSWORD, level="draft")
    provider = oauth_provider(
        live_asgi.url,
        person,
        MemoryStorage(),
        client_name="ignored: the document names it",
        client_metadata_url=client_id,
    )

    seen = run_connected_session(live_asgi.url, person, provider)

    assert_the_connection_worked_then_was_revoked(seen, user, "Metadata document client")
    assert seen["exchanges"][:5] == [*DISCOVERY, ("POST", "/oauth/token/", 200), ("POST", "/mcp/", 200)]
    grant = AgentGrant.objects.get(user=user)
    assert grant.application.client_id == client_id and grant.application.registration_source == "cimd"
    assert metadata_documents.fetched == ["/oauth/client-metadata.json"]
    page = person.consent_pages[0]
    assert "Metadata document client" in page and "described by its metadata at <strong>localhost</strong>" in page
