"""The gate in front of /mcp/: 405, 401 and 403 answered before the SDK sees the request."""

import json

import httpx
import pytest

KEY_A = "hk_" + "A" * 43
KEY_B = "hk_" + "b" * 43
JWT_SHAPED = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
JSONRPC_HEADERS = {"HTTP_ACCEPT": "application/json, text/event-stream", "HTTP_MCP_PROTOCOL_VERSION": "2025-06-18"}

REQUESTS = {
    "initialize": {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "gate-test", "version": "1"},
        },
    },
    "tools/list": {"jsonrpc": "2.0", "id": "list-1", "method": "tools/list", "params": {}},
    "ping": {"jsonrpc": "2.0", "id": 7, "method": "ping"},
    # Invalid arguments: answered by the SDK without any call to the platform.
    "tools/call": {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "tools/call",
        "params": {"name": "get_project", "arguments": {"project_id": 0}},
    },
}

REFUSED_CREDENTIALS = {
    "no header": None,
    "basic": "Basic dXNlcjpwYXNz",
    "other bearer": "Bearer eyJhbGciOiJIUzI1NiJ9.e30.signature",
    "empty": "",
    "bearer without token": "Bearer ",
    "short hk key": "Bearer hk_short",
    "two headers": f"Bearer {KEY_A},Bearer {KEY_B}",  # how Django joins a repeated header
}


def post(client, payload, authorization=None, **extra):
    headers = dict(JSONRPC_HEADERS, **extra)
    if authorization is not None:
        headers["HTTP_AUTHORIZATION"] = authorization
    body = payload if isinstance(payload, (bytes, str)) else json.dumps(payload)
    return client.post("/mcp/", data=body, content_type="application/json", **headers)


@pytest.mark.parametrize("method", REQUESTS)
@pytest.mark.parametrize("credential", REFUSED_CREDENTIALS)
def test_a_jsonrpc_request_without_one_well_shaped_key_is_401(client, settings, method, credential):
    settings.HYDRATA_CONNECT_FLOW = False  # as before the connect flow existed: keys only, a bare challenge
    payload = REQUESTS[method]
    response = post(client, payload, REFUSED_CREDENTIALS[credential])

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="hydrata.com"'
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert body["id"] == payload["id"]
    assert body["error"]["code"] == -32001
    assert KEY_A not in response.content.decode() and "dXNlcjpwYXNz" not in response.content.decode()


CONNECT_REFUSED = {name: value for name, value in REFUSED_CREDENTIALS.items() if name != "other bearer"} | {
    "two segments": "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0",
    "four segments": f"Bearer {JWT_SHAPED}.more",
    "too long": "Bearer " + "a" * 2000 + "." + "b" * 2000 + "." + "c" * 200,
    "two tokens": f"Bearer {JWT_SHAPED},Bearer {JWT_SHAPED}",
    "padding": "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0=.c2lnbmF0dXJl",
}


@pytest.mark.parametrize("credential", CONNECT_REFUSED)
def test_with_the_connect_flow_on_every_401_points_at_the_protected_resource_metadata(client, settings, credential):
    settings.HYDRATA_CONNECT_FLOW = True

    response = post(client, REQUESTS["initialize"], CONNECT_REFUSED[credential])

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        f'Bearer realm="hydrata.com", resource_metadata="{settings.HYDRATA_SITE_URL}/.well-known/oauth-protected-'
        'resource/mcp", scope="read draft launch"'
    )
    assert response.json()["error"]["code"] == -32001 and "sign in" in response.json()["error"]["message"]


@pytest.mark.parametrize("credential", [f"Bearer {JWT_SHAPED}", f"bearer {JWT_SHAPED}", f"Bearer {KEY_A}"])
def test_with_the_connect_flow_on_one_jwt_shaped_token_or_one_key_reaches_the_sdk(client, settings, credential):
    settings.HYDRATA_CONNECT_FLOW = True

    response = post(client, REQUESTS["tools/list"], credential)

    assert response.status_code == 200 and "result" in response.json()


def test_with_the_connect_flow_off_a_jwt_shaped_token_is_401(client, settings):
    settings.HYDRATA_CONNECT_FLOW = False

    response = post(client, REQUESTS["tools/list"], f"Bearer {JWT_SHAPED}")

    assert response.status_code == 401 and response["WWW-Authenticate"] == 'Bearer realm="hydrata.com"'


@pytest.mark.parametrize("method", REQUESTS)
def test_a_jsonrpc_request_with_one_well_shaped_key_reaches_the_sdk(client, method):
    response = post(client, REQUESTS[method], f"Bearer {KEY_A}")

    assert response.status_code == 200
    body = response.json()
    assert body["id"] == REQUESTS[method]["id"]
    assert "error" not in body


def test_the_gate_checks_shape_only_and_leaves_verification_to_the_platform(client):
    # A well-shaped key that no grant has is let through: tools/list needs no platform call.
    response = post(client, REQUESTS["tools/list"], f"Bearer {KEY_B}")

    assert response.status_code == 200
    assert len(response.json()["result"]["tools"]) >= 5


def test_the_bearer_scheme_is_case_insensitive(client):
    assert post(client, REQUESTS["ping"], f"bearer {KEY_A}").status_code == 200


def test_a_notification_without_a_key_is_401_with_a_null_id(client):
    response = post(client, {"jsonrpc": "2.0", "method": "notifications/initialized"})

    assert response.status_code == 401
    assert response.json()["id"] is None


def test_a_batch_without_a_key_is_401_with_a_null_id(client):
    response = post(client, [REQUESTS["ping"], REQUESTS["tools/list"]])

    assert response.status_code == 401
    assert response.json()["id"] is None


@pytest.mark.parametrize("path", ["/mcp/", "/mcp"])
def test_get_is_405_allowing_only_post(client, path):
    response = client.get(path, HTTP_AUTHORIZATION=f"Bearer {KEY_A}", HTTP_ACCEPT="text/event-stream")

    assert response.status_code == 405
    assert response["Allow"] == "POST"


def test_delete_is_405(client):
    assert client.delete("/mcp/", HTTP_AUTHORIZATION=f"Bearer {KEY_A}").status_code == 405


def test_the_endpoint_without_a_trailing_slash_is_gated_and_not_redirected(client):
    response = client.post(
        "/mcp", data=json.dumps(REQUESTS["ping"]), content_type="application/json", **JSONRPC_HEADERS
    )

    assert response.status_code == 401


def test_a_body_that_is_not_json_is_left_to_the_sdk_error(client):
    response = post(client, b"this is not json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700  # the SDK's parse error, not the gate's 401


def test_a_json_body_that_is_not_jsonrpc_is_left_to_the_sdk_error(client):
    response = post(client, {"hello": "world"})

    assert response.status_code == 400
    assert response.json()["error"]["code"] != -32001


PING_WITH = '{"jsonrpc": "2.0", "method": "ping", "id": 1, "params": {"_meta": {"x": %s}}}'
NO_MCP_MESSAGE = {
    "100,000 brackets": (b"[" * 100_000, "nest more than 64 deep"),
    "a request nested 65 deep": ((PING_WITH % ("[" * 62 + "]" * 62)).encode(), "nest more than 64 deep"),
    "NaN as the id": (b'{"jsonrpc": "2.0", "method": "ping", "id": NaN}', "NaN is not a number JSON allows"),
    "Infinity in params": ((PING_WITH % "-Infinity").encode(), "-Infinity is not a number JSON allows"),
    "1e400 in params": ((PING_WITH % "1e400").encode(), "1e400 is beyond ±1.8e308"),
    "a lone surrogate": ((PING_WITH % '"\\ud800"').encode(), "lone surrogate or a NUL"),
    "a NUL in a key": (b'{"jsonrpc": "2.0", "method": "ping", "id": 1, "\\u0000": 1}', "lone surrogate or a NUL"),
}


@pytest.mark.parametrize("authorization", [None, f"Bearer {KEY_A}"], ids=["without a key", "with a key"])
@pytest.mark.parametrize("body", NO_MCP_MESSAGE)
def test_json_no_mcp_message_can_be_is_a_parse_error_from_the_gate_before_the_sdk_or_the_key(
    client, body, authorization
):
    text, reason = NO_MCP_MESSAGE[body]

    response = post(client, text, authorization)

    assert response.status_code == 400
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": response.json()["error"]["message"]},
    }
    assert (
        response.json()["error"]["message"].startswith("Parse error: ")
        and reason in response.json()["error"]["message"]
    )


def test_json_within_the_limits_still_reaches_the_key_check(client):
    response = post(client, PING_WITH % ("[" * 61 + '"\\ud83d\\ude00"' + "]" * 61))  # 64 deep, a surrogate pair

    assert response.status_code == 401


def test_a_foreign_origin_is_refused_even_with_a_key(client):
    response = post(client, REQUESTS["ping"], f"Bearer {KEY_A}", HTTP_ORIGIN="http://evil.example")

    assert response.status_code == 403


def test_a_foreign_origin_is_refused_before_the_method_check(client):
    response = client.get("/mcp/", HTTP_ORIGIN="http://evil.example")

    assert response.status_code == 403


def test_the_sites_own_origin_is_allowed(client, settings):
    response = post(client, REQUESTS["ping"], f"Bearer {KEY_A}", HTTP_ORIGIN=settings.HYDRATA_SITE_URL)

    assert response.status_code == 200


def test_two_authorization_headers_on_a_real_socket_are_401(live_asgi):
    headers = [
        ("Authorization", f"Bearer {KEY_A}"),
        ("Authorization", f"Bearer {KEY_B}"),
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
    ]
    response = httpx.post(f"{live_asgi.url}/mcp/", headers=headers, content=json.dumps(REQUESTS["ping"]))

    assert response.status_code == 401
    assert response.json()["error"]["code"] == -32001


def test_one_authorization_header_on_a_real_socket_passes(live_asgi):
    headers = {
        "Authorization": f"Bearer {KEY_A}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    response = httpx.post(f"{live_asgi.url}/mcp/", headers=headers, content=json.dumps(REQUESTS["ping"]))

    assert response.status_code == 200


@pytest.fixture
def under_prefix(live_asgi, settings) -> str:
    """The whole site served under /x, as behind a proxy that mounts it there: routing uses path_info."""
    settings.FORCE_SCRIPT_NAME = "/x"
    settings.HYDRATA_API_ORIGIN = f"{live_asgi.url}/x"
    return f"{live_asgi.url}/x"


def post_to(url: str, payload: dict, **headers: str) -> httpx.Response:
    return httpx.post(
        f"{url}/mcp/",
        content=json.dumps(payload),
        headers={"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **headers},
    )


def test_under_a_url_prefix_a_request_without_a_key_is_still_401(under_prefix):
    response = post_to(under_prefix, REQUESTS["tools/list"])

    assert response.status_code == 401
    assert response.json()["error"]["code"] == -32001


def test_under_a_url_prefix_a_foreign_origin_is_still_403(under_prefix):
    response = post_to(under_prefix, REQUESTS["ping"], Authorization=f"Bearer {KEY_A}", Origin="http://evil.example")

    assert response.status_code == 403


def test_under_a_url_prefix_get_is_still_405(under_prefix):
    response = httpx.get(f"{under_prefix}/mcp/", headers={"Authorization": f"Bearer {KEY_A}"})

    assert response.status_code == 405


def test_under_a_url_prefix_a_well_shaped_key_still_reaches_the_sdk(under_prefix):
    response = post_to(under_prefix, REQUESTS["tools/list"], Authorization=f"Bearer {KEY_A}")

    assert response.status_code == 200
    assert len(response.json()["result"]["tools"]) >= 5
