"""An MCP client that connects the way claude.ai and Claude Code do: the official SDK's OAuth client provider,
with a person at a browser (an httpx client with cookies) who signs in to Hydrata and answers the consent page."""

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from html import unescape
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx2
from mcp.client import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from tests.model_setup import SHARED_TLS

REDIRECT_URI = "http://localhost/callback"
HIDDEN_INPUT = re.compile(r'<input type="hidden" name="([\w-]+)"(?: value="([^"]*)")?')
REVOKE_FORM = re.compile(r'<form method="post" action="(/agents/grants/(\d+)/revoke/)"')


class MemoryStorage:
    """The SDK's TokenStorage protocol, kept in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def hidden_fields(html: str) -> dict[str, str]:
    return {name: unescape(value) for name, value in HIDDEN_INPUT.findall(html)}


@dataclass
class Person:
    """Someone at a browser: signs in when sent to the login page, answers the consent page with `level`."""

    site: str
    username: str
    password: str
    level: str = "draft"
    consent_pages: list[str] = field(default_factory=list)
    callback: str | None = None

    def __post_init__(self) -> None:
        self.browser = httpx2.AsyncClient(base_url=self.site, follow_redirects=False, timeout=60, verify=SHARED_TLS)

    async def open_authorization(self, url: str) -> None:
        """The SDK's redirect handler: follow the authorization URL to the client's callback."""
        response = await self.browser.get(url)
        if response.status_code == 302 and "/accounts/login/" in response.headers["Location"]:
            response = await self._sign_in(response.headers["Location"])
        assert response.status_code == 200, response.text
        self.consent_pages.append(response.text)
        form = hidden_fields(response.text) | {"level": self.level, "allow": "Allow"}
        answer = await self.browser.post(url, data=form)
        assert answer.status_code == 302, answer.text
        self.callback = answer.headers["Location"]

    async def callback_result(self) -> AuthorizationCodeResult:
        """The SDK's callback handler: what arrived at the client's redirect URI."""
        assert self.callback is not None and self.callback.startswith(REDIRECT_URI)
        query = {key: values[0] for key, values in parse_qs(urlsplit(self.callback).query).items()}
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    async def revoke_connection(self, app_name: str) -> int:
        """On the /agents/ page, press Revoke beside the connected app; returns its grant id."""
        page = (await self.browser.get("/agents/")).text
        row = page[page.index(f"<td>{app_name}</td>") :]
        action, grant_id = REVOKE_FORM.search(row).groups()
        response = await self.browser.post(
            action, data={"csrfmiddlewaretoken": hidden_fields(row)["csrfmiddlewaretoken"]}
        )
        assert response.status_code == 302
        return int(grant_id)

    async def _sign_in(self, login_location: str) -> httpx2.Response:
        login_url = urljoin(self.site, login_location)
        page = await self.browser.get(login_url)
        form = hidden_fields(page.text) | {"username": self.username, "password": self.password}
        signed_in = await self.browser.post(login_url, data=form)
        assert signed_in.status_code == 302, signed_in.text
        return await self.browser.get(signed_in.headers["Location"])


def oauth_provider(
    site: str, person: Person, storage: MemoryStorage, *, client_name: str, client_metadata_url: str | None = None
) -> OAuthClientProvider:
    metadata = OAuthClientMetadata(
        redirect_uris=[REDIRECT_URI],
        client_name=client_name,
        token_endpoint_auth_method="none",
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
    )
    return OAuthClientProvider(
        f"{site}/mcp/",
        metadata,
        storage,
        redirect_handler=person.open_authorization,
        callback_handler=person.callback_result,
        client_metadata_url=client_metadata_url,
    )


@asynccontextmanager
async def oauth_mcp_client(
    site: str, provider: OAuthClientProvider, exchanges: list[tuple[str, str, int]] | None = None
) -> AsyncIterator[Client]:
    """The SDK client; every request it makes (the auth flow's too) is appended to `exchanges`."""

    async def record(response: httpx2.Response) -> None:
        if exchanges is not None:
            exchanges.append((response.request.method, response.request.url.path, response.status_code))

    async with (
        httpx2.AsyncClient(auth=provider, timeout=60, event_hooks={"response": [record]}, verify=SHARED_TLS) as http,
        Client(streamable_http_client(f"{site}/mcp/", http_client=http), mode="legacy") as client,
    ):
        yield client
