"""The platform's JSON answers sent from the ASGI level, where a request never reaches Django: the same shape as the
one exception handler's ({"code", "detail", ...}) and the same status for each kind of refusal."""

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from hydrata.core.errors import PlatformError
from hydrata.core.statuses import http_status

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def send_json(
    send: Send, *, status: int, body: dict[str, Any], headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    content = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(content)).encode()),
                (b"x-content-type-options", b"nosniff"),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": content})


async def send_refusal(send: Send, error: PlatformError, *, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    body = {"code": str(error.error_code), "detail": str(error.detail), **error.extra}
    await send_json(send, status=http_status(error), body=body, headers=headers)


def header(scope: Scope, name: bytes) -> bytes | None:
    """The request's one header of this (lower-case) name; None when it has none, or more than one."""
    values = [value for key, value in scope.get("headers", []) if key.lower() == name]
    return values[0] if len(values) == 1 else None
