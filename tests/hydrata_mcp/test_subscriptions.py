"""No change notifications: nothing this server lists changes while a process runs, so it advertises no
`listChanged` and no `resources.subscribe` in either protocol era, and answers `subscriptions/listen` (2026-07-28)
as a method it does not implement: 404 with JSON-RPC -32601, behind the same gate as every request.
docs/mcp-conformance.md quotes the specification."""

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import METHOD_NOT_FOUND

from tests.factories import make_grant
from tests.mcp_client import mcp_client, run
from tests.model_setup import SHARED_TLS

pytestmark = pytest.mark.django_db(transaction=True)
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "subscriptions-test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
LISTEN = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "subscriptions/listen",
    "params": {
        "_meta": META,
        "notifications": {"toolsListChanged": True, "resourceSubscriptions": ["ui://hydrata/map"]},
    },
}
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": "subscriptions/listen",
}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_neither_era_advertises_a_change_notification(live_asgi, mode):
    """legacy: initialize (2025-11-25); auto: server/discover, which settles on 2026-07-28."""
    _, key = make_grant(level="read")

    async def connect():
        async with mcp_client(live_asgi.url, key, mode=mode) as client:
            return client.protocol_version, client.server_capabilities

    version, capabilities = run(connect)

    assert version == ("2025-11-25" if mode == "legacy" else MODERN)
    assert capabilities.tools is not None and capabilities.tools.list_changed is not True
    assert capabilities.prompts is not None and capabilities.prompts.list_changed is not True
    assert capabilities.resources is not None
    assert capabilities.resources.list_changed is not True and capabilities.resources.subscribe is not True


def test_the_official_client_cannot_listen_and_is_told_method_not_found(live_asgi):
    _, key = make_grant(level="read")

    async def listen():
        async with mcp_client(live_asgi.url, key, mode="auto") as client:
            with pytest.raises(MCPError) as refused:
                async with client.listen(tools_list_changed=True, resource_subscriptions=["ui://hydrata/map"]):
                    pass
            assert (await client.list_tools()).tools  # the connection is fine afterwards
            return refused.value

    error = run(listen)

    assert error.error.code == METHOD_NOT_FOUND


def test_a_listen_request_is_404_method_not_found_with_its_id_and_no_stream(live_asgi):
    _, key = make_grant(level="read")

    with httpx.Client(base_url=live_asgi.url, headers=HEADERS, timeout=10, verify=SHARED_TLS) as http:
        listened = http.post("/mcp/", json=LISTEN, headers={"Authorization": f"Bearer {key}"})
        without_key = http.post("/mcp/", json=LISTEN)

    assert listened.status_code == 404, listened.text
    assert listened.headers["content-type"].startswith("application/json")
    body = listened.json()
    assert body["id"] == 7 and body["error"]["code"] == METHOD_NOT_FOUND
    assert without_key.status_code == 401  # the gate answers first, as for any request
