"""The keys that sign and verify connect-flow access tokens.

One current key signs (`HYDRATA_OAUTH_SIGNING_KEY`); keys retired by a rotation (`HYDRATA_OAUTH_RETIRED_KEYS`)
still verify the tokens they signed until those expire. Every key is published in the JWKS under its `kid`, the
RFC 7638 thumbprint of its public half, so a `kid` names one key whatever the deployment calls it.
"""

import base64
import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey, RSAPublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from jwt.algorithms import RSAAlgorithm

ALGORITHM = "RS256"  # RFC 9068 makes RS256 the one every resource server supports


@dataclass(frozen=True)
class SigningKey:
    kid: str
    private: RSAPrivateKey


def signing_key() -> SigningKey:
    pem = settings.HYDRATA_OAUTH_SIGNING_KEY
    if not pem:
        raise ImproperlyConfigured("The connect flow is on but HYDRATA_OAUTH_SIGNING_KEY is empty.")
    private = _private_key(pem)
    return SigningKey(kid=thumbprint(private.public_key()), private=private)


def verification_keys() -> dict[str, RSAPublicKey]:
    """Every key a token may have been signed with, by kid: the current one first, then the retired ones."""
    publics = [
        _public_key(pem) for pem in [settings.HYDRATA_OAUTH_SIGNING_KEY, *settings.HYDRATA_OAUTH_RETIRED_KEYS] if pem
    ]
    return {thumbprint(public): public for public in publics}


def jwks() -> dict[str, list[dict[str, Any]]]:
    return {"keys": [_jwk(kid, public) for kid, public in verification_keys().items()]}


def thumbprint(public: RSAPublicKey) -> str:
    """RFC 7638: SHA-256 over the required members in lexicographic order, no whitespace."""
    jwk = RSAAlgorithm.to_jwk(public, as_dict=True)
    canonical = json.dumps({"e": jwk["e"], "kty": "RSA", "n": jwk["n"]}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode("ascii")).digest()).rstrip(b"=").decode("ascii")


def _jwk(kid: str, public: RSAPublicKey) -> dict[str, Any]:
    jwk = RSAAlgorithm.to_jwk(public, as_dict=True)
    return {"kty": "RSA", "use": "sig", "alg": ALGORITHM, "kid": kid, "n": jwk["n"], "e": jwk["e"]}


@lru_cache(maxsize=16)
def _private_key(pem: str) -> RSAPrivateKey:
    key = serialization.load_pem_private_key(pem.encode("ascii"), password=None)
    if not isinstance(key, RSAPrivateKey):
        raise ImproperlyConfigured("HYDRATA_OAUTH_SIGNING_KEY must be an RSA private key in PEM.")
    return key


@lru_cache(maxsize=16)
def _public_key(pem: str) -> RSAPublicKey:
    """A retired key may be given as its private or only its public half; either verifies."""
    data = pem.encode("ascii")
    key: object = (
        serialization.load_pem_private_key(data, password=None).public_key()
        if "PRIVATE KEY" in pem
        else serialization.load_pem_public_key(data)
    )
    if not isinstance(key, RSAPublicKey):
        raise ImproperlyConfigured("Connect-flow keys must be RSA keys in PEM.")
    return key
