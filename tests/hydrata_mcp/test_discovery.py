"""Where agents look: the server card a running site serves and the MCP Registry's server.json describe the server
that is served, its endpoint, the protocol revisions its transport answers and the tools tools/list gives."""

import json
import os
import subprocess
import sys

import httpx
import pytest

from hydrata_mcp.discovery import SERVER_CARD_PATH, SERVER_JSON, registry_entry, rendered
from tests.factories import make_grant
from tests.mcp_client import mcp_client, run
from tests.model_setup import SHARED_TLS

pytestmark = pytest.mark.django_db(transaction=True)
PUBLISHER = "io.modelcontextprotocol.registry/publisher-provided"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def fetched_card(url: str) -> dict:
    response = httpx.get(url + SERVER_CARD_PATH, verify=SHARED_TLS)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    return response.json()


def listed(url: str, key: str) -> tuple[dict, list]:
    async def session():
        async with mcp_client(url, key) as client:
            return client.server_info, (await client.list_tools()).tools

    return run(session)


def initialized_version(url: str, key: str, version: str) -> str:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "card-test", "version": "1"}},
    }
    headers = {**HEADERS, "Authorization": f"Bearer {key}"}
    response = httpx.post(url + "/mcp/", json=message, headers=headers, verify=SHARED_TLS)
    assert response.status_code == 200, response.text
    return response.json()["result"]["protocolVersion"]


def test_the_card_names_the_sites_own_endpoint_and_the_tools_a_client_lists_there(live_asgi):
    _, key = make_grant(level="read")

    card = fetched_card(live_asgi.url)
    (remote,) = card["remotes"]
    info, tools = listed(remote["url"].removesuffix("/mcp/"), key)

    assert remote["type"] == "streamable-http" and remote["url"] == f"{live_asgi.url}/mcp/"
    assert (card["title"], card["version"], card["description"]) == (info.title, info.version, info.description)
    assert card["_meta"][PUBLISHER]["tools"] == [{"name": tool.name, "title": tool.annotations.title} for tool in tools]
    assert [header["name"] for header in remote["headers"]] == ["Authorization"]


def test_every_protocol_revision_the_card_states_is_one_the_transport_answers(live_asgi):
    _, key = make_grant(level="read")

    versions = fetched_card(live_asgi.url)["remotes"][0]["supportedProtocolVersions"]
    modern = [version for version in versions if version >= "2026"]

    async def discover():
        async with mcp_client(live_asgi.url, key, mode="auto") as client:
            return client.protocol_version

    assert modern == [run(discover)]
    for version in sorted(set(versions) - set(modern)):
        assert initialized_version(live_asgi.url, key, version) == version


def test_the_card_is_read_without_a_credential_and_only_read(live_asgi):
    response = httpx.post(live_asgi.url + SERVER_CARD_PATH, verify=SHARED_TLS)

    assert fetched_card(live_asgi.url)["name"] == "com.hydrata/mcp"
    assert response.status_code == 405


def test_the_committed_server_json_is_the_one_the_server_builds(live_asgi):
    """A new tool or version changes it: `python manage.py server_json --write` writes it again."""
    committed = json.loads(SERVER_JSON.read_text())

    card = fetched_card(live_asgi.url)

    assert SERVER_JSON.read_text() == rendered(registry_entry())
    for key in ("name", "title", "description", "version", "websiteUrl"):
        assert committed[key] == card[key]
    assert committed["_meta"][PUBLISHER]["tools"] == card["_meta"][PUBLISHER]["tools"]
    assert committed["remotes"][0]["url"] == "https://{host}/mcp/"
    assert committed["_meta"][PUBLISHER]["serverCard"] == SERVER_CARD_PATH


def test_the_catalog_order_does_not_depend_on_which_tools_module_a_process_imported_first():
    # The fresh-clone suite once failed the committed server.json: a test worker had imported a later tools module
    # first, and the registry fills in import order.
    script = (
        "import django, json; django.setup(); import hydrata_mcp.tools.studies, hydrata_mcp.tools.time_series; "
        "from hydrata_mcp.discovery import catalog; print(json.dumps(catalog()))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "WARNING"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)

    published = json.loads(SERVER_JSON.read_text())["_meta"]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == next(iter(published.values()))["tools"]
