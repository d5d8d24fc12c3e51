"""Just enough JSON-RPC to tell whether a body is a JSON-RPC request, and what it asks for."""

import json
from typing import Any

MCP_PATHS = frozenset({"/mcp", "/mcp/"})


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
