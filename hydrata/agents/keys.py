"""Agent keys: `hk_` + 32 random url-safe bytes. Only a display prefix and a SHA-256 digest are stored."""

import hashlib
import re
import secrets

KEY_PREFIX = "hk_"
KEY_RANDOM_BYTES = 32
DISPLAY_PREFIX_LENGTH = len(KEY_PREFIX) + 8
# 32 bytes of url-safe base64 is 43 characters; allow longer keys for future formats, never shorter.
KEY_PATTERN = re.compile(r"hk_[A-Za-z0-9_-]{43,128}")


def key_generate() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(KEY_RANDOM_BYTES)


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def code_digest(code: str) -> str:
    """What is kept of an OAuth authorization code: enough to recognise it if it is presented twice."""
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def key_display_prefix(key: str) -> str:
    return key[:DISPLAY_PREFIX_LENGTH]


def key_is_well_formed(value: str) -> bool:
    """The cheap format check made before any database lookup."""
    return KEY_PATTERN.fullmatch(value) is not None
