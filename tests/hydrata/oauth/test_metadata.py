"""The documents clients discover the server with: RFC 8414, RFC 9728 and the JWKS."""

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from hydrata.oauth.keys import thumbprint
from tests.hydrata.oauth.flow import mcp_resource

SITE = "http://127.0.0.1:8000"


def new_key_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def test_the_authorization_server_metadata_advertises_what_mcp_clients_need(client):
    metadata = client.get("/.well-known/oauth-authorization-server").json()

    assert metadata["issuer"] == SITE
    assert metadata["authorization_endpoint"] == f"{SITE}/oauth/authorize/"
    assert metadata["token_endpoint"] == f"{SITE}/oauth/token/"
    assert metadata["registration_endpoint"] == f"{SITE}/oauth/register/"
    assert metadata["revocation_endpoint"] == f"{SITE}/oauth/revoke/"
    assert metadata["jwks_uri"] == f"{SITE}/.well-known/jwks.json"
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["client_id_metadata_document_supported"] is True
    assert "none" in metadata["token_endpoint_auth_methods_supported"]
    assert metadata["response_types_supported"] == ["code"]
    assert metadata["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert {"read", "draft", "launch", "offline_access"} <= set(metadata["scopes_supported"])


@pytest.mark.parametrize(
    "path",
    [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp/",
    ],
)
def test_the_protected_resource_metadata_names_the_canonical_mcp_url(client, path):
    metadata = client.get(path).json()

    assert metadata["resource"] == f"{SITE}/mcp/" == mcp_resource()
    assert metadata["authorization_servers"] == [SITE]
    assert metadata["scopes_supported"] == ["read", "draft", "launch"]
    assert metadata["bearer_methods_supported"] == ["header"]


def test_the_jwks_publishes_the_signing_key_and_retired_keys_by_thumbprint(client, settings):
    retired = new_key_pem()
    settings.HYDRATA_OAUTH_RETIRED_KEYS = [retired]

    keys = client.get("/.well-known/jwks.json").json()["keys"]

    current = serialization.load_pem_private_key(settings.HYDRATA_OAUTH_SIGNING_KEY.encode(), None).public_key()
    old = serialization.load_pem_private_key(retired.encode(), None).public_key()
    assert [k["kid"] for k in keys] == [thumbprint(current), thumbprint(old)]
    assert all(
        k["alg"] == "RS256" and k["use"] == "sig" and set(k) == {"kty", "use", "alg", "kid", "n", "e"} for k in keys
    )


@pytest.mark.parametrize(
    "path",
    [
        "/.well-known/oauth-authorization-server",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/jwks.json",
        "/oauth/authorize/",
        "/oauth/register/",
    ],
)
def test_with_the_connect_flow_off_the_server_offers_none_of_it(client, settings, path):
    settings.HYDRATA_CONNECT_FLOW = False

    assert client.get(path).status_code == 404
