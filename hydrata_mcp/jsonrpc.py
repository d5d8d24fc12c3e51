"""Just enough JSON-RPC to tell whether a body is a JSON-RPC request, and what it asks for."""

import json
import math
import re
from typing import Any

MCP_PATHS = frozenset({"/mcp", "/mcp/"})
PARSE_ERROR = -32700
# How deep a body's arrays and objects may nest: a tool call nests less than ten deep. The platform has the same
# rule for its bodies (hydrata/compute/inputs/numbers.py; this wing imports nothing of the platform).
MAX_DEPTH = 64
# A lone surrogate or a NUL can only come from a \u escape; single character classes, nothing to backtrack.
_UNSTORABLE_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")
_UNSTORABLE_CHARACTER = re.compile("[\x00\ud800-\udfff]")


def strict_json_problem(body: bytes) -> str | None:
    """Why the body is JSON that no MCP message can be (nesting past MAX_DEPTH, NaN, Infinity or 1e400, a lone
    surrogate or a NUL in a string), answered as a parse error before the SDK parses it; None for every other
    body, which the SDK answers as it does (a body that is not JSON at all is its parse error)."""
    refused: list[str] = []

    def constant(name: str) -> None:
        refused.append(f"{name} is not a number JSON allows")

    def decimal(literal: str) -> float:
        value = float(literal)
        if math.isinf(value):  # 1e400
            refused.append(f"{literal[:40]} is beyond ±1.8e308, the range of a number")
        return value

    try:
        text = body.decode("utf-8")
        payload = json.loads(text, parse_constant=constant, parse_float=decimal)
    except RecursionError:  # json's scanner stops at the interpreter's limit: linear in what it read
        return f"arrays and objects nest more than {MAX_DEPTH} deep"
    except ValueError:  # not UTF-8, not JSON, an integer past Python's 4,300 digits: the SDK's own parse error
        return None
    if refused:
        return refused[0]
    texts = _UNSTORABLE_ESCAPE.search(text) is not None
    if texts or text.count("[") + text.count("{") > MAX_DEPTH:
        return _nesting_or_text_problem(payload, texts=texts)
    return None


def _nesting_or_text_problem(payload: Any, *, texts: bool) -> str | None:
    """Walked without recursion; only containers are pushed."""
    stack: list[tuple[Any, int]] = [(payload, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if texts and _UNSTORABLE_CHARACTER.search(value):
                return "a string holds a lone surrogate or a NUL, which is no text"
            continue
        if not isinstance(value, dict | list):
            continue
        if depth >= MAX_DEPTH:
            return f"arrays and objects nest more than {MAX_DEPTH} deep"
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            if texts and isinstance(key, str) and _UNSTORABLE_CHARACTER.search(key):
                return "a key holds a lone surrogate or a NUL, which is no text"
            if isinstance(item, dict | list | str):
                stack.append((item, depth + 1))
    return None


def jsonrpc_messages(body: bytes) -> list[dict[str, Any]] | None:
    """The messages of a JSON-RPC body (an object or a batch), or None when the body is not JSON-RPC."""
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError):
        return None
    messages = payload if isinstance(payload, list) else [payload]
    if not messages or not all(_is_jsonrpc(m) for m in messages):
        return None
    return messages


def _is_jsonrpc(message: Any) -> bool:
    return isinstance(message, dict) and message.get("jsonrpc") == "2.0" and "method" in message


def single_request_id(messages: list[dict[str, Any]]) -> Any:
    """The id to answer with: the request's own for a single request, else null."""
    if len(messages) == 1:
        request_id = messages[0].get("id")
        if isinstance(request_id, (str, int)) and not isinstance(request_id, bool):
            return request_id
    return None


def asks_for_progress(messages: list[dict[str, Any]]) -> bool:
    """True when a request carries a progress token, so its answer must be an SSE stream."""
    for message in messages:
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and meta.get("progressToken") is not None:
            return True
    return False


def error_body(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
