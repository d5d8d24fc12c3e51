"""The second line of defence: presigned links never reach the model, whatever a tool built.

Applied on the way out of /mcp/ to every tools/call result (JSON and SSE-framed alike): keys named
`s3_*_url` are removed at any depth, and any token carrying a signature (S3's or this platform's own local
one) is replaced in place by a marker, so the rest of a log line survives. The one exemption is
presign_terrain_upload, whose upload_url is what the caller asked for. The first line of defence is that
tools build their results from allowlists.
"""

import json
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase

from hydrata_mcp.jsonrpc import MCP_PATHS, jsonrpc_messages
from hydrata_mcp.middleware import MCPMiddleware

EXEMPT_TOOLS = frozenset({"presign_terrain_upload"})
PRESIGNED_KEY = re.compile(r"s3_.*_url", re.IGNORECASE)
SIGNED_TOKEN = re.compile(
    r"[^\s\"'<>]*(?:X-Amz-Signature|X-Amz-Security-Token|X-Hydrata-Signature)[^\s\"'<>]*", re.IGNORECASE
)
MARKER = "[presigned link removed]"


def redact(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: redact(item) for key, item in value.items()
                if not (isinstance(key, str) and PRESIGNED_KEY.fullmatch(key))}
    if isinstance(value, list):
        return [redact(item) for item in value]
    if isinstance(value, str):
        return SIGNED_TOKEN.sub(_marker, value)
    return value


def _marker(match: re.Match[str]) -> str:
    """Keep punctuation that ends a sentence after the link, so the line still reads."""
    token = match.group()
    trailing = len(token) - len(token.rstrip(".,;:!?)]}"))
    return MARKER + (token[-trailing:] if trailing else "")


def redact_result(result: Any) -> Any:
    """A tools/call result: text blocks that hold JSON are redacted as JSON, so keys go too."""
    cleaned = redact(result)
    for block in cleaned.get("content", []) if isinstance(cleaned, dict) else []:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            block["text"] = _redact_text(result_text=block["text"])
    return cleaned


def _redact_text(*, result_text: str) -> str:
    try:
        parsed = json.loads(result_text)
    except ValueError:
        return result_text  # already redacted as a string
    return json.dumps(redact(parsed), indent=2, ensure_ascii=False)


def redact_message(message: Any, exempt_ids: set[Any]) -> Any:
    if isinstance(message, dict) and "result" in message and message.get("id") not in exempt_ids:
        return {**message, "result": redact_result(message["result"])}
    return message


class RedactionMiddleware(MCPMiddleware):
    def after(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if request.path not in MCP_PATHS or request.method != "POST":
            return response
        exempt = _exempt_ids(request.body)
        if isinstance(response, StreamingHttpResponse):
            response.streaming_content = _redact_sse(response.streaming_content, exempt)
            return response
        is_json = response.get("Content-Type", "").startswith("application/json")
        if isinstance(response, HttpResponse) and is_json and response.content:
            payload = json.loads(response.content)
            cleaned = _redact_payload(payload, exempt)
            if cleaned != payload:
                response.content = json.dumps(cleaned).encode()
                if response.has_header("Content-Length"):
                    response["Content-Length"] = str(len(response.content))
        return response


def _exempt_ids(body: bytes) -> set[Any]:
    messages = jsonrpc_messages(body) or []
    return {m.get("id") for m in messages
            if m.get("method") == "tools/call" and (m.get("params") or {}).get("name") in EXEMPT_TOOLS}


def _redact_payload(payload: Any, exempt: set[Any]) -> Any:
    if isinstance(payload, list):
        return [redact_message(message, exempt) for message in payload]
    return redact_message(payload, exempt)


async def _redact_sse(chunks: AsyncIterator[bytes] | Iterator[bytes], exempt: set[Any]) -> AsyncIterator[bytes]:
    """Re-frame the stream by events (a chunk may hold part of one) and redact each event's data."""
    buffer = b""
    async for chunk in _aiter(chunks):
        buffer += chunk
        while b"\n\n" in buffer:
            event, buffer = buffer.split(b"\n\n", 1)
            yield _redact_event(event, exempt) + b"\n\n"
    if buffer:
        yield _redact_event(buffer, exempt)


async def _aiter(chunks: AsyncIterator[bytes] | Iterator[bytes]) -> AsyncIterator[bytes]:
    if hasattr(chunks, "__aiter__"):
        async for chunk in chunks:
            yield chunk
    else:
        for chunk in chunks:
            yield chunk


def _redact_event(event: bytes, exempt: set[Any]) -> bytes:
    lines = event.split(b"\n")
    for index, line in enumerate(lines):
        if line.startswith(b"data:"):
            try:
                payload = json.loads(line[5:])
            except ValueError:
                continue
            lines[index] = b"data: " + json.dumps(_redact_payload(payload, exempt)).encode()
    return b"\n".join(lines)
