"""The second line of defence: presigned links never reach the model, whatever a tool built.

Applied on the way out of /mcp/ to every tools/call result (JSON and SSE-framed alike): keys named
`s3_*_url` are removed at any depth, and any token carrying a signature (S3's or this platform's own local
one) is replaced in place by a marker, so the rest of a log line survives. The one exemption is
presign_terrain_upload, whose upload_url is what the caller asked for. The first line of defence is that
tools build their results from allowlists.

The cost is linear in the size of the answer: a literal search for the signature parameters first, and only a
string that holds one is cut into tokens. Image and audio data and resource blobs (base64) are not read: they
cannot carry a link the model reads as text.
"""

import json
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase

from hydrata_mcp.jsonrpc import MCP_PATHS, jsonrpc_messages
from hydrata_mcp.middleware import MCPMiddleware
from hydrata_mcp.sse import events, rewrite_data

EXEMPT_TOOLS = frozenset({"presign_terrain_upload"})
PRESIGNED_KEY = re.compile(r"s3_.*_url", re.IGNORECASE)
# ASCII case-insensitive: the servers that check a signature read these parameter names byte for byte.
SIGNATURE_PARAMETERS = ("x-amz-signature", "x-amz-security-token", "x-hydrata-signature")
LOWERCASE_PARAMETER = re.compile("|".join(map(re.escape, SIGNATURE_PARAMETERS)))
ANY_CASE_PARAMETER = re.compile(LOWERCASE_PARAMETER.pattern, re.IGNORECASE | re.ASCII)
TOKEN_BOUNDARY = re.compile(r"[\s\"'<>]")
SENTENCE_END = ".,;:!?)]}"
BINARY_FIELDS = {"image": "data", "audio": "data"}
MARKER = "[presigned link removed]"
# Above this, redaction leaves the event loop for a thread (below it, a millisecond or two at most).
OFF_LOOP_BYTES = 64 * 1024


def redact(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: redact(item)
            for key, item in value.items()
            if not (isinstance(key, str) and PRESIGNED_KEY.fullmatch(key))
        }
    if isinstance(value, list):
        return [redact(item) for item in value]
    if isinstance(value, str):
        return redact_string(value)
    return value


def redact_string(text: str) -> str:
    """Every token (a run between whitespace, quotes and angle brackets) that holds a signature parameter becomes
    the marker, keeping punctuation that ends a sentence after it."""
    lowered = text.lower()
    if not any(parameter in lowered for parameter in SIGNATURE_PARAMETERS):
        return text  # a C-speed first look that never misses one: most strings stop here
    # Lowercasing ASCII keeps every position, so the fast case-sensitive search can find them.
    haystack, parameter = (lowered, LOWERCASE_PARAMETER) if text.isascii() else (text, ANY_CASE_PARAMETER)
    backwards = text[::-1]  # finds a token's start with a forward search
    pieces, done = [], 0
    while (found := parameter.search(haystack, done)) is not None:
        start = _token_start(backwards, before=found.start(), not_before=done)
        boundary = TOKEN_BOUNDARY.search(text, found.end())
        end = boundary.start() if boundary else len(text)
        token = text[start:end]
        pieces += [text[done:start], MARKER, token[len(token.rstrip(SENTENCE_END)) :]]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def _token_start(backwards: str, *, before: int, not_before: int) -> int:
    """The start of the token that holds position `before`, never earlier than `not_before`."""
    length = len(backwards)
    boundary = TOKEN_BOUNDARY.search(backwards, length - before, length - not_before)
    return length - boundary.start() if boundary else not_before


def redact_result(result: Any) -> Any:
    """A tools/call result: each content block by its type, the rest (structuredContent, _meta) as values."""
    if not isinstance(result, dict) or not isinstance(result.get("content"), list):
        return redact(result)
    return _redacted_but(result, "content", [_redact_block(block) for block in result["content"]])


def _redact_block(block: Any) -> Any:
    if not isinstance(block, dict):
        return redact(block)
    kind = block.get("type")
    if kind in BINARY_FIELDS and BINARY_FIELDS[kind] in block:
        return _redacted_but(block, BINARY_FIELDS[kind], block[BINARY_FIELDS[kind]])
    if kind == "resource" and isinstance(block.get("resource"), dict) and "blob" in block["resource"]:
        return _redacted_but(block, "resource", _redacted_but(block["resource"], "blob", block["resource"]["blob"]))
    if kind == "text" and isinstance(block.get("text"), str):
        return _redacted_but(block, "text", _redact_text(block["text"]))
    return redact(block)


def _redacted_but(mapping: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """`mapping` redacted, except `key`, which is set to `value` (already dealt with)."""
    cleaned = redact({name: item for name, item in mapping.items() if name != key})
    cleaned[key] = value
    return cleaned


def _redact_text(text: str) -> str:
    """A text block that holds JSON is redacted as the parsed value and written again, so it stays JSON and keys
    go too; any other text is redacted as a string."""
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return redact_string(text)
    cleaned = redact(parsed)
    return text if cleaned == parsed else json.dumps(cleaned, indent=2, ensure_ascii=False)


def redact_message(message: Any, exempt_ids: set[Any]) -> Any:
    if isinstance(message, dict) and "result" in message and message.get("id") not in exempt_ids:
        return {**message, "result": redact_result(message["result"])}
    return message


class RedactionMiddleware(MCPMiddleware):
    def after(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if not _is_mcp_post(request):
            return response
        exempt = _exempt_ids(request.body)
        if isinstance(response, StreamingHttpResponse):
            response.streaming_content = _redact_sse(response.streaming_content, exempt)
        elif isinstance(response, HttpResponse) and response.get("Content-Type", "").startswith("application/json"):
            _redact_json_response(response, exempt)
        return response

    async def after_async(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        large = isinstance(response, HttpResponse) and len(response.content) > OFF_LOOP_BYTES
        if large and _is_mcp_post(request):
            return await sync_to_async(self.after, thread_sensitive=False)(request, response)
        return self.after(request, response)


def _is_mcp_post(request: HttpRequest) -> bool:
    # path_info, as routing uses: request.path also holds the prefix a site is served under.
    return request.path_info in MCP_PATHS and request.method == "POST"


def _exempt_ids(body: bytes) -> set[Any]:
    """Ids of calls to exempt tools. Any JSON may sit in params, name and id (a list, a number): only a well-formed
    call is exempt, and nothing malformed may raise here (fuzzing found a list as params answered 500)."""
    exempt: set[Any] = set()
    for message in jsonrpc_messages(body) or []:
        params, request_id = message.get("params"), message.get("id")
        name = params.get("name") if isinstance(params, dict) else None
        if (
            message.get("method") == "tools/call"
            and isinstance(name, str)
            and name in EXEMPT_TOOLS
            and isinstance(request_id, str | int)
        ):
            exempt.add(request_id)
    return exempt


def _redact_json_response(response: HttpResponse, exempt: set[Any]) -> None:
    cleaned = _redact_data(response.content, exempt) if response.content else None
    if cleaned is not None:
        response.content = cleaned
        if response.has_header("Content-Length"):
            response["Content-Length"] = str(len(response.content))


def _redact_payload(payload: Any, exempt: set[Any]) -> Any:
    if isinstance(payload, list):
        return [redact_message(message, exempt) for message in payload]
    return redact_message(payload, exempt)


async def _redact_sse(chunks: AsyncIterator[bytes] | Iterator[bytes], exempt: set[Any]) -> AsyncIterator[bytes]:
    """Each event goes out as soon as it is complete, its data redacted."""
    async for event, line_ends in events(_aiter(chunks)):
        if len(event) > OFF_LOOP_BYTES:
            yield await sync_to_async(_redact_event, thread_sensitive=False)(event, exempt) + line_ends
        else:
            yield _redact_event(event, exempt) + line_ends


async def _aiter(chunks: AsyncIterator[bytes] | Iterator[bytes]) -> AsyncIterator[bytes]:
    if hasattr(chunks, "__aiter__"):
        async for chunk in chunks:
            yield chunk
    else:
        for chunk in chunks:
            yield chunk


def _redact_event(event: bytes, exempt: set[Any]) -> bytes:
    return rewrite_data(event, lambda data: _redact_data(data, exempt))


def _redact_data(data: bytes, exempt: set[Any]) -> bytes | None:
    """A JSON-RPC body (an answer, or an event's data) redacted, or None when redaction changes nothing. Bytes
    that are not JSON are redacted as text."""
    try:
        payload = json.loads(data)
    except (ValueError, RecursionError):
        text = data.decode("utf-8", errors="replace")
        cleaned_text = redact_string(text)
        return None if cleaned_text == text else cleaned_text.encode()
    cleaned = _redact_payload(payload, exempt)
    return None if cleaned == payload else json.dumps(cleaned).encode()
