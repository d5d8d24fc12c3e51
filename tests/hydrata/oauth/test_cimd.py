"""Client ID Metadata Documents: fetched only from allowed hosts, from public addresses unless the operator lists
the host as private, and a document must name its own URL."""

import json
import socket
from html import unescape

import pytest
from django.core.cache import cache
from django.test import Client
from oauth2_provider.models import Application

from hydrata.oauth.policy import REDIRECT_URI_RULE
from tests.factories import make_user
from tests.https_documents import DocumentServer
from tests.hydrata.oauth.flow import REDIRECT_URI, Pkce, authorize_url

pytestmark = pytest.mark.django_db

PATH = "/client-metadata.json"


@pytest.fixture
def browser():
    client = Client()
    client.force_login(make_user("alice"))
    return client


@pytest.fixture
def documents(tmp_path, settings, monkeypatch):
    cache.clear()  # the library backs off a failing URL in the cache
    with DocumentServer(tmp_path) as server:
        monkeypatch.setenv("SSL_CERT_FILE", str(server.cert_path))
        settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_ALLOWED_HOSTS": ["localhost"]}
        server.client_id = f"{server.origin}{PATH}"
        server.documents[PATH] = {
            "client_id": server.client_id,
            "client_name": "Doc client",
            "redirect_uris": [REDIRECT_URI],
            "token_endpoint_auth_method": "none",
        }
        yield server


def test_a_document_from_a_listed_private_host_is_fetched_and_names_the_client(browser, documents, settings):
    settings.HYDRATA_CIMD_PRIVATE_HOSTS = ["localhost"]

    page = browser.get(authorize_url(documents.client_id, Pkce()))

    assert page.status_code == 200 and "Doc client" in page.content.decode()
    assert Application.objects.get().registration_source == "cimd"


def test_a_host_resolving_to_a_private_address_is_refused_unless_listed(browser, documents, settings):
    settings.HYDRATA_CIMD_PRIVATE_HOSTS = []

    response = browser.get(authorize_url(documents.client_id, Pkce()))

    assert response.status_code == 400 and documents.fetched == []  # refused before connecting
    assert not Application.objects.exists()


def test_a_host_that_is_not_allowed_is_never_fetched(browser, documents, settings):
    settings.HYDRATA_CIMD_PRIVATE_HOSTS = ["localhost"]
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_ALLOWED_HOSTS": ["claude.ai"]}

    response = browser.get(authorize_url(documents.client_id, Pkce()))

    assert response.status_code == 400 and documents.fetched == []


def test_a_document_naming_another_client_id_is_refused(browser, documents, settings):
    settings.HYDRATA_CIMD_PRIVATE_HOSTS = ["localhost"]
    documents.documents[PATH]["client_id"] = "https://claude.ai/oauth/claude-code-client-metadata"

    response = browser.get(authorize_url(documents.client_id, Pkce()))

    assert response.status_code == 400 and not Application.objects.exists()


@pytest.mark.parametrize(
    "redirect_uris",
    [
        [REDIRECT_URI, "http://evil.example/cb"],
        [f"{REDIRECT_URI} http://evil.example/cb"],
        [f"{REDIRECT_URI}\thttps://evil.example/cb"],
    ],
    ids=["plain http to another host", "two joined by a space", "two joined by a tab"],
)
def test_a_document_with_a_redirect_uri_registration_would_refuse_is_refused_on_the_page_saying_why(
    browser, documents, settings, redirect_uris
):
    settings.HYDRATA_CIMD_PRIVATE_HOSTS = ["localhost"]
    documents.documents[PATH]["redirect_uris"] = redirect_uris

    response = browser.get(authorize_url(documents.client_id, Pkce()))

    assert response.status_code == 400 and "Location" not in response  # an error page, never a redirect
    assert REDIRECT_URI_RULE in unescape(response.content.decode())
    assert not Application.objects.exists()


@pytest.mark.parametrize(
    ("member", "reason"),
    [
        (b'"jwks": ' + b"[" * 5000 + b"]" * 5000, "nest at most 32 levels"),
        (b'"default_max_age": NaN', "may not hold NaN"),
        (b'"default_max_age": ' + b"9" * 400, "at most 19 digits"),
        (b'"software_id": "\\ud800"', "unpaired UTF-16 surrogates"),
    ],
    ids=["deeply nested", "NaN", "a 400-digit integer", "a lone surrogate"],
)
def test_an_odd_document_is_refused_on_the_page_saying_why(browser, documents, settings, member, reason):
    settings.HYDRATA_CIMD_PRIVATE_HOSTS = ["localhost"]
    document = json.dumps(documents.documents[PATH]).encode()
    documents.documents[PATH] = document[:-1] + b", " + member + b"}"

    response = browser.get(authorize_url(documents.client_id, Pkce()))

    assert response.status_code == 400 and "Location" not in response
    assert reason in unescape(response.content.decode())
    assert not Application.objects.exists()


def closed_loopback_port() -> int:
    """A port nothing listens on: bound by the system, then let go."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_document_that_cannot_be_fetched_is_named_on_the_page_with_the_ways_to_connect_instead(browser, settings):
    """Claude Code on a machine without internet met only "Invalid client_id parameter value"."""
    cache.clear()
    settings.HYDRATA_CIMD_PRIVATE_HOSTS = ["localhost"]
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_ALLOWED_HOSTS": ["localhost"]}
    client_id = f"https://localhost:{closed_loopback_port()}{PATH}"

    first = browser.get(authorize_url(client_id, Pkce()))
    again = browser.get(authorize_url(client_id, Pkce()))  # within the library's back-off: no fetch, same words

    for response in (first, again):
        page = unescape(response.content.decode())
        assert response.status_code == 400 and "Location" not in response
        assert "Invalid client_id parameter value" not in page
        assert f"could not fetch it from {client_id} (no connection to it could be made)" in page
        assert "HYDRATA_CIMD_ALLOWED_HOSTS= (empty)" in page and "dynamic client registration" in page
    assert not Application.objects.exists()
