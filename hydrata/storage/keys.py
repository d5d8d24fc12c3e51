"""Storage keys: relative POSIX paths that can only name a place inside the store."""

from hydrata.storage.errors import InvalidStorageKey

# S3's limit; the local backend keeps the same rule so keys move between backends unchanged.
MAX_KEY_BYTES = 1024


def validate_key(key: str) -> str:
    if not isinstance(key, str) or not key:
        raise InvalidStorageKey("A storage key must be a non-empty string.")
    try:
        encoded = key.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidStorageKey("A storage key must be valid Unicode text.") from None
    if len(encoded) > MAX_KEY_BYTES:
        raise InvalidStorageKey(f"A storage key must be at most {MAX_KEY_BYTES} bytes long.")
    if key.startswith("/"):
        raise InvalidStorageKey(f"Storage key {key!r} must be relative, not start with '/'.")
    if "\\" in key:
        raise InvalidStorageKey(f"Storage key {key!r} must use '/' between segments, not backslashes.")
    if any(ord(character) < 0x20 or ord(character) == 0x7F for character in key):
        raise InvalidStorageKey("A storage key must not contain NUL or other control characters.")
    for segment in key.split("/"):
        if segment in {"", ".", ".."}:
            raise InvalidStorageKey(f"Storage key {key!r} has an empty, '.' or '..' segment.")
    return key
