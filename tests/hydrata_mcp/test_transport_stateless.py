"""The /mcp/ endpoint is stateless: no session is issued, and each POST stands alone."""

import httpx
import pytest

from tests.factories import make_grant
from tests.model_setup import SHARED_TLS

pytestmark = pytest.mark.django_db(transaction=True)
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "transport-test", "version": "1"},
    },
}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}


def test_no_session_id_is_issued_and_a_post_without_one_is_answered(live_asgi):
    _, key = make_grant(level="read")

    headers = {**HEADERS, "Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=live_asgi.url, headers=headers, verify=SHARED_TLS) as http:
        initialized = http.post("/mcp/", json=INITIALIZE)
        listed = http.post("/mcp/", json=LIST_TOOLS, headers={"Mcp-Protocol-Version": "2025-06-18"})
        unknown_session = http.post(
            "/mcp/", json=LIST_TOOLS, headers={"Mcp-Protocol-Version": "2025-06-18", "Mcp-Session-Id": "never-issued"}
        )

    assert initialized.status_code == 200 and initialized.json()["result"]["serverInfo"]["name"] == "hydrata"
    for response in (initialized, listed, unknown_session):
        assert "mcp-session-id" not in response.headers
    assert listed.status_code == 200 and listed.json()["result"]["tools"]
    assert unknown_session.status_code == 200 and unknown_session.json()["result"]["tools"]
