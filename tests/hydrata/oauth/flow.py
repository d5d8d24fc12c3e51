"""The connect flow driven through its real endpoints with Django's test client: register a client, sign in,
consent, exchange the code. Each step is a function so a test can stop anywhere and misbehave."""

import base64
import hashlib
import json
import re
import secrets
from dataclasses import dataclass, field
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from django.conf import settings
from django.test import Client

from tests.factories import sign_in

REDIRECT_URI = "http://localhost/callback"
HIDDEN_INPUT = re.compile(r'<input type="hidden" name="([\w-]+)"(?: value="([^"]*)")?')


def mcp_resource() -> str:
    return settings.OAUTH2_PROVIDER["OAUTH2_PROTECTED_RESOURCE_IDENTIFIER"]


@dataclass
class Pkce:
    verifier: str = field(default_factory=lambda: secrets.token_urlsafe(48))

    @property
    def challenge(self) -> str:
        digest = hashlib.sha256(self.verifier.encode("ascii")).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def register(client: Client, **metadata: Any) -> dict[str, Any]:
    body = {
        "client_name": "Test MCP client",
        "redirect_uris": [REDIRECT_URI],
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        **metadata,
    }
    response = client.post("/oauth/register/", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()


def authorize_url(
    client_id: str,
    pkce: Pkce | None,
    *,
    redirect_uri: str = REDIRECT_URI,
    scope: str = "read draft launch offline_access",
    **extra: str,
) -> str:
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "state": "state-1",
        "scope": scope,
        "resource": mcp_resource(),
    }
    if pkce is not None:
        query.update(code_challenge=pkce.challenge, code_challenge_method="S256")
    query.update(extra)
    return "/oauth/authorize/?" + urlencode({k: v for k, v in query.items() if v is not None})


def hidden_fields(html: str) -> dict[str, str]:
    return {name: unescape(value) for name, value in HIDDEN_INPUT.findall(html)}


def consent(browser: Client, url: str, *, level: str = "draft", allow: bool = True, **fields: str):
    """Open the consent page (the browser is signed in) and answer it; returns the POST's response."""
    page = browser.get(url)
    assert page.status_code == 200, page.content
    form = hidden_fields(page.content.decode())
    form.update(level=level, **fields)
    if allow:
        form["allow"] = "Allow"
    return browser.post(url, data=form)


def redirect_params(response) -> dict[str, str]:
    assert response.status_code == 302, response.content
    return {key: values[0] for key, values in parse_qs(urlsplit(response["Location"]).query).items()}


def exchange(client: Client, client_id: str, code: str, pkce: Pkce, *, headers: dict | None = None, **extra: str):
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT_URI,
        "client_id": client_id,
        "code_verifier": pkce.verifier,
        "resource": mcp_resource(),
        **extra,
    }
    return client.post("/oauth/token/", data={k: v for k, v in data.items() if v is not None}, headers=headers)


def refresh(client: Client, client_id: str, refresh_token: str, **extra: str):
    data = {
        "grant_type": "refresh_token",
        "refresh_token": refresh_token,
        "client_id": client_id,
        "resource": mcp_resource(),
        **extra,
    }
    return client.post("/oauth/token/", data=data)


@dataclass
class Connection:
    client_id: str
    access_token: str
    refresh_token: str
    token_response: dict[str, Any]


def connect(user, *, level: str = "draft", **consent_fields: str) -> Connection:
    """The whole flow for a user, as a DCR client: what an MCP client holds afterwards."""
    client = Client()
    client_id = register(client)["client_id"]
    browser = sign_in(Client(), user)  # on the sign-in page, as the flow sends people: launch needs no password again
    pkce = Pkce()
    code = redirect_params(consent(browser, authorize_url(client_id, pkce), level=level, **consent_fields))["code"]
    response = exchange(client, client_id, code, pkce)
    assert response.status_code == 200, response.content
    tokens = response.json()
    return Connection(client_id, tokens["access_token"], tokens["refresh_token"], tokens)
