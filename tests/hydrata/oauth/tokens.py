"""Tokens made by hand from a real one: the same claims re-signed with a change, for the refusal matrix."""

import base64
import hashlib
import hmac
import json
import time
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.conf import settings

from hydrata.oauth.keys import signing_key, thumbprint


def new_key_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def claims_of(token: str) -> dict[str, Any]:
    return jwt.decode(token, options={"verify_signature": False})


MISSING = object()  # as a change to resign(): leave the claim out


def resign(token: str, *, pem: str | None = None, kid: str | None = None, typ: Any = "at+jwt", **changes: Any) -> str:
    """The token's claims with `changes` (MISSING leaves a claim out), signed with `pem` (default: the server's
    own key) under `kid`, typed `typ` (MISSING or empty: no typ in the header)."""
    claims = {name: value for name, value in {**claims_of(token), **changes}.items() if value is not MISSING}
    if pem is None:
        key = signing_key()
        private, default_kid = key.private, key.kid
    else:
        private = serialization.load_pem_private_key(pem.encode(), None)
        default_kid = thumbprint(private.public_key())
    # Signed as bytes: jwt.encode refuses some shapes (a list iss) that a token may still carry.
    return jwt.api_jws.encode(
        json.dumps(claims).encode(),
        private,
        algorithm="RS256",
        headers={"kid": kid or default_kid, "typ": None if typ is MISSING else typ},
    )


def tampered_signature(token: str) -> str:
    head, body, signature = token.split(".")
    flipped = "A" if signature[10] != "A" else "B"
    return f"{head}.{body}.{signature[:10]}{flipped}{signature[11:]}"


def variants(token: str) -> dict[str, str]:
    """A token refused for each reason the platform must catch, with everything else about it right."""
    now = int(time.time())
    site = settings.OAUTH2_PROVIDER["OIDC_ISS_ENDPOINT"]
    return {
        "expired": resign(token, iat=now - 7200, exp=now - 3600),
        "wrong audience": resign(token, aud=f"{site}/api/v2/"),
        "wrong issuer": resign(token, iss="https://elsewhere.example"),
        "bad signature": tampered_signature(token),
        "unknown kid": resign(token, pem=new_key_pem()),
        "another grant's id": resign(token, grant_id=10**9),
    }


def handmade(claims: dict[str, Any], header: dict[str, Any], secret: bytes | None) -> str:
    """A JWT built without a library's guard rails: HMAC-signed with `secret`, or unsigned when it is None."""

    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    signing_input = f"{part(json.dumps(header).encode())}.{part(json.dumps(claims).encode())}"
    signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest() if secret is not None else b""
    return f"{signing_input}.{part(signature)}"
