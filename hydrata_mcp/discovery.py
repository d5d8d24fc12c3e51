"""Where agents look for this server before they connect: the MCP Registry's `server.json` and the server card.

Both are built here from the live server (its name, title, description and version, the protocol revisions the SDK
speaks, the tools of the one registry), so neither can describe a server that is not the one being served:
- the server card, at `/.well-known/mcp/server-card.json` of a running site: its one remote is this site's `/mcp/`;
- `server.json` at the repository's root, the entry published to the MCP Registry: a self-hosted product has no one
  public URL, so its remote is a template on the site's host. `python manage.py server_json --write` writes it,
  and a test holds the committed file to what this module builds.
"""

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from hydrata_mcp.server import mcp_server
from hydrata_mcp.tools.registry import in_catalog_order, registered_tools

REGISTRY_NAME = "com.hydrata/mcp"  # reverse DNS of hydrata.com, the namespace the Registry verifies
SERVER_JSON_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
SERVER_CARD_PATH = "/.well-known/mcp/server-card.json"
MCP_PATH = "/mcp/"
WEBSITE = "https://hydrata.com"
PUBLISHER_META = "io.modelcontextprotocol.registry/publisher-provided"
SERVER_JSON = Path(__file__).resolve().parent.parent / "server.json"
# The one header a client sends: an agent key (hk_...) or an access token from the connect flow.
AUTHORIZATION = {
    "name": "Authorization",
    "description": "Bearer <agent key> (hk_...) from the site's Agents page, or an OAuth access token.",
    "isRequired": True,
    "isSecret": True,
}


def protocol_versions() -> list[str]:
    """Every revision the transport answers: the handshake ones and the stateless one (the card states them; the
    Registry's schema of 2025-12-11 has no field for them)."""
    return [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS]


def catalog() -> list[dict[str, str]]:
    """The tools a model is offered (`tools/list` without the map view's app-only tools), name and title."""
    listed = {tool.name for tool in registered_tools()}
    return [
        {"name": spec.name, "title": spec.title}
        for spec in in_catalog_order()
        if spec.name in listed and not spec.app_only
    ]


def _identity() -> dict[str, Any]:
    server = mcp_server()
    return {
        "name": REGISTRY_NAME,
        "title": server.title,
        "description": server.description,
        "version": server.version,
        "websiteUrl": WEBSITE,
    }


def _remote(url: str, **extra: Any) -> dict[str, Any]:
    return {"type": "streamable-http", "url": url, **extra, "headers": [AUTHORIZATION]}


def server_card(*, site_url: str) -> dict[str, Any]:
    """The card of the site at `site_url`: its remote is that site's MCP endpoint."""
    return {
        "$schema": SERVER_CARD_SCHEMA,
        **_identity(),
        "remotes": [_remote(site_url.rstrip("/") + MCP_PATH, supportedProtocolVersions=protocol_versions())],
        "_meta": {PUBLISHER_META: {"tools": catalog()}},
    }


def registry_entry() -> dict[str, Any]:
    """server.json for the MCP Registry: the remote's host is the deployment's, given when a client installs it."""
    host = {"description": "The host name of your Hydrata site, e.g. hydrata.example.org", "isRequired": True}
    return {
        "$schema": SERVER_JSON_SCHEMA,
        **_identity(),
        "remotes": [_remote("https://{host}" + MCP_PATH, variables={"host": host})],
        "_meta": {PUBLISHER_META: {"tools": catalog(), "serverCard": SERVER_CARD_PATH}},
    }


def rendered(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


@csrf_exempt  # it reads nothing a request sends: any other method is 405, not a CSRF refusal
@require_safe
def server_card_view(request: HttpRequest) -> JsonResponse:
    """GET /.well-known/mcp/server-card.json: public, as discovery happens before any credential exists."""
    response = JsonResponse(server_card(site_url=settings.HYDRATA_SITE_URL), json_dumps_params={"indent": 2})
    response["Cache-Control"] = "public, max-age=3600"
    response["Access-Control-Allow-Origin"] = "*"  # a card names no secret; browser-based registries read it
    return response
