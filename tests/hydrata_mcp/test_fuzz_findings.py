"""What the fuzzers of tests/production/ and the MCP conformance suite found on /mcp/, as plain regressions."""

import pytest
from mcp.shared.exceptions import MCPError

from tests.factories import make_grant
from tests.mcp_client import mcp_client, run

pytestmark = pytest.mark.django_db(transaction=True)
ACCEPT = "application/json, text/event-stream"


@pytest.mark.parametrize(
    "body",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[[]]}',
        b'{"jsonrpc":"2.0","id":[1],"method":"tools/call","params":{"name":"get_run_results"}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":["get_run_results"]}}',
        b'[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":7}]',
    ],
    ids=["list-params", "list-id", "list-name", "number-params-in-a-batch"],
)
def test_malformed_tool_calls_get_a_json_rpc_answer_not_a_500(client, body):
    _, key = make_grant(level="read")

    response = client.post(
        "/mcp/", data=body, content_type="application/json", HTTP_ACCEPT=ACCEPT, HTTP_AUTHORIZATION=f"Bearer {key}"
    )

    assert response.status_code < 500
    content = b"".join(response.streaming_content) if response.streaming else response.content
    assert b"Server Error" not in content and key.encode() not in content


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_an_unknown_prompt_is_unknown_prompt_in_both_protocol_eras_not_an_internal_error(live_asgi, mode):
    _, key = make_grant(level="read")

    async def session():
        async with mcp_client(live_asgi.url, key, mode=mode) as client:
            try:
                await client.get_prompt("no_such_prompt")
            except MCPError as refusal:
                return refusal.error
            raise AssertionError("an unknown prompt was answered")

    error = run(session)

    assert "Unknown prompt" in error.message and "Internal" not in error.message
