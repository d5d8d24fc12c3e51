"""Reading client metadata (a registration body, a Client ID Metadata Document) defensively, in linear time and
before anything else looks at it: bounded size and nesting, UTF-8 JSON with finite numbers only, and no string
that the database cannot store. The library's own parsing runs afterwards on what passed."""

import json
from collections.abc import Iterator
from typing import Any

MAX_METADATA_BYTES = 64 * 1024  # RFC 7591 metadata is a few hundred bytes; a document's cap is the library's 16 KB
MAX_NESTING = 32  # client metadata nests two levels deep (an object of arrays); json.loads recurses per level
MAX_INTEGER_DIGITS = 19  # a 64-bit integer: nothing a client sends needs more (timestamps, max ages)
OPENERS, CLOSERS = frozenset(b"[{"), frozenset(b"]}")
QUOTE, BACKSLASH = ord('"'), ord("\\")


class MetadataRefused(ValueError):
    """Client metadata this server will not read. The message is written here, safe to show, and says why."""

    @classmethod
    def too_large(cls, max_bytes: int = MAX_METADATA_BYTES) -> "MetadataRefused":
        return cls(f"Client metadata may be at most {max_bytes // 1024} KB.")


def client_metadata(raw: bytes, *, max_bytes: int = MAX_METADATA_BYTES) -> dict[str, Any]:
    """The JSON object in `raw`, or MetadataRefused saying what is wrong with it."""
    if len(raw) > max_bytes:
        raise MetadataRefused.too_large(max_bytes)
    if nesting_depth(raw, limit=MAX_NESTING) > MAX_NESTING:
        raise MetadataRefused(f"Client metadata may nest at most {MAX_NESTING} levels deep.")
    try:
        text = raw.decode("utf-8")  # strict: no bytes of a lone surrogate, nothing but UTF-8 (RFC 8259 §8.1)
        metadata = json.loads(text, parse_constant=_no_constant, parse_int=_bounded_int, parse_float=_finite_float)
    except MetadataRefused:
        raise
    except ValueError:  # not UTF-8, not JSON
        raise MetadataRefused("Client metadata must be a JSON object in UTF-8.") from None
    if not isinstance(metadata, dict):
        raise MetadataRefused("Client metadata must be a JSON object.")
    if not all(_storable(text) for text in _strings(metadata)):
        raise MetadataRefused("Client metadata may not hold NUL characters or unpaired UTF-16 surrogates.")
    return metadata


def nesting_depth(raw: bytes, *, limit: int) -> int:
    """How deep brackets nest in `raw`, outside strings, read once from the start: linear, and it stops as
    soon as the depth passes `limit` (so 100,000 `[` cost a few dozen steps)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == BACKSLASH:
                escaped = True
            elif byte == QUOTE:
                in_string = False
        elif byte == QUOTE:
            in_string = True
        elif byte in OPENERS:
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                break
        elif byte in CLOSERS:
            depth -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise MetadataRefused(f"Client metadata may not hold {name}: JSON numbers are finite.")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise MetadataRefused(f"Numbers in client metadata may have at most {MAX_INTEGER_DIGITS} digits.")
    return int(digits)


def _finite_float(literal: str) -> float:
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise MetadataRefused("Numbers in client metadata must be finite.")
    return value


def _strings(value: Any) -> Iterator[str]:
    """Every string in parsed JSON, keys too. Recursion is safe: the nesting was bounded before parsing."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, member in value.items():
            yield key
            yield from _strings(member)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _storable(text: str) -> bool:
    """PostgreSQL stores no NUL character, and no UTF-8 encoder takes an unpaired surrogate."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
