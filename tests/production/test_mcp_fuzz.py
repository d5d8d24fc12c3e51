"""hypothesis against /mcp/ on the production web command: JSON-RPC-shaped bodies (any method, id and params,
batches, wrong types, huge numbers, deep nesting, bytes that are not UTF-8), with and without a key, and tool calls
carrying the odd value classes of tests/production/odd_values.py (huge integers, numbers past the float range, NaN
and Infinity, lone surrogates and NUL, deep nesting) in their arguments. Never a 5xx, never a traceback, never the
credential in the answer."""

import json
import time

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.factories import make_grant
from tests.production.odd_values import odd_literals

pytestmark = pytest.mark.django_db(transaction=True)
EXAMPLES = 250
READ_SECONDS = 5  # a stream (subscriptions/listen) is read this long, then dropped
READ_BYTES = 256 * 1024
METHODS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "completion/complete",
    "logging/setLevel",
    "subscriptions/listen",
    "notifications/initialized",
    "notifications/cancelled",
    "server/discover",
]
TOOLS = ["get_project", "list_projects", "create_project", "get_run_status", "sample_run_results", "nope"]

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**300, max_value=10**400)  # past the float range
    | st.floats()  # NaN and Infinity too: json.dumps writes them as the literals Python's json reads back
    | st.text(max_size=50)
    | st.text(st.characters(categories=["Cs"]), min_size=1, max_size=3)  # lone surrogates, written as \u escapes
    | st.just("a\x00b")
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
ids = (
    st.none()
    | st.integers()
    | st.integers(min_value=10**30, max_value=10**40)
    | st.text(max_size=20)
    | st.floats()
    | st.booleans()
    | st.lists(st.integers(), max_size=2)
)
tool_params = st.fixed_dictionaries(
    {
        "name": st.sampled_from(TOOLS) | st.text(max_size=20),
        "arguments": st.dictionaries(st.sampled_from(["project_id", "run_id", "name", "points", "x"]), json_values),
    }
)
messages = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0", 2.0, None]), "method": st.sampled_from(METHODS) | st.text(max_size=30)},
    optional={
        "id": ids,
        "params": tool_params | json_values,
        "_meta": st.dictionaries(st.text(max_size=20), json_values, max_size=3),
    },
)


# Tool arguments with a place ("@") for an odd value: a string, an id, a page, a coordinate, a list, the whole.
ODD_ARGUMENTS = [
    ("create_project", '{"name": @, "projection": "EPSG:28356"}'),
    ("create_project", '{"name": "fuzz", "projection": @}'),
    ("get_project", '{"project_id": @}'),
    ("list_projects", '{"page": @, "page_size": 10}'),
    ("list_projects", '{"page_size": @}'),
    ("sample_run_results", '{"run_id": 1, "points": [{"x": @, "y": 6271900.0}]}'),
    ("sample_run_results", '{"run_id": 1, "points": @}'),
    ("get_project", "@"),
]


@st.composite
def odd_tool_calls(draw) -> bytes:
    tool, arguments = draw(st.sampled_from(ODD_ARGUMENTS))
    call = f'{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}'
    return call.replace("@", draw(odd_literals), 1).encode()


def encoded(value) -> bytes:
    return json.dumps(value, allow_nan=True).encode()


def nested(depth: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":' + b"[" * depth + b"]" * depth + b"}"


def huge_number(digits: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":' + b"9" * digits + b',"method":"ping"}'


bodies = (
    messages.map(encoded)
    | st.lists(messages, min_size=0, max_size=5).map(encoded)
    | json_values.map(encoded)
    | st.integers(min_value=1, max_value=200_000).map(nested)
    | st.integers(min_value=1, max_value=50_000).map(huge_number)
    | st.binary(max_size=200)
    | messages.map(encoded).map(lambda body: body[:-1] + b"\xff\xfe\x80" + body[-1:])
    | odd_tool_calls()
)


def exchange(url: str, body: bytes, key: str | None) -> tuple[int, bytes]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    if key:
        headers["Authorization"] = f"Bearer {key}"
    received = b""
    with httpx.stream("POST", f"{url}/mcp/", content=body, headers=headers, timeout=30) as response:
        started = time.monotonic()
        for chunk in response.iter_bytes():
            received += chunk
            if len(received) > READ_BYTES or time.monotonic() - started > READ_SECONDS:
                break
        return response.status_code, received


def assert_answered_cleanly(status: int, received: bytes, secrets: list[str]) -> None:
    text = received.decode(errors="replace")
    assert status < 500, (status, text[:2000])
    assert "Traceback" not in text and 'File "' not in text, text[:2000]
    for secret in secrets:
        assert secret not in text


@given(body=bodies)
@settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)
def test_arbitrary_bodies_with_a_key_never_get_a_5xx_a_traceback_or_the_key(body, production_web, fuzz_grant_key):
    status, received = exchange(production_web.url, body, fuzz_grant_key)

    assert_answered_cleanly(status, received, [fuzz_grant_key, fuzz_grant_key[3:]])


@given(body=bodies)
@settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)
def test_arbitrary_bodies_without_a_key_never_get_a_5xx_or_a_traceback(body, production_web):
    status, received = exchange(production_web.url, body, None)

    assert_answered_cleanly(status, received, [])


@pytest.fixture
def fuzz_grant_key() -> str:
    return make_grant(level="draft")[1]
