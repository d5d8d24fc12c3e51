"""What the fuzzers of tests/production/ found on /mcp/, kept as plain regressions in the embedded suite."""

import pytest

from tests.factories import make_grant

pytestmark = pytest.mark.django_db
ACCEPT = "application/json, text/event-stream"


@pytest.mark.parametrize("body", [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[[]]}',
    b'{"jsonrpc":"2.0","id":[1],"method":"tools/call","params":{"name":"get_run_results"}}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":["get_run_results"]}}',
    b'[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":7}]',
], ids=["list-params", "list-id", "list-name", "number-params-in-a-batch"])
def test_malformed_tool_calls_get_a_json_rpc_answer_not_a_500(client, body):
    _, key = make_grant(level="read")

    response = client.post("/mcp/", data=body, content_type="application/json", HTTP_ACCEPT=ACCEPT,
                           HTTP_AUTHORIZATION=f"Bearer {key}")

    assert response.status_code < 500
    content = b"".join(response.streaming_content) if response.streaming else response.content
    assert b"Server Error" not in content and key.encode() not in content
