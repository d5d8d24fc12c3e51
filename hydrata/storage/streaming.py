"""The local backend's signed PUT under the ASGI application: the body streams from the connection into storage.

Django's ASGI handler would first write the whole body (up to HYDRATA_TERRAIN_MAX_BYTES, 5 GiB) to a temporary file,
before the view had checked the link; then the view copied it into storage. Here the link, its Content-Type and
the size it announces are checked first, with nothing read, and then each chunk the server receives is written to
the file being stored (`LocalStorage.save_chunks`: all of it or nothing), off the event loop. config/asgi.py routes
PUTs to /storage/upload/ here; config/bodies.py has already refused a body over the limit.
"""

from collections.abc import Callable, Iterator

from asgiref.sync import async_to_sync, sync_to_async
from django.core.exceptions import RequestAborted
from django.http import QueryDict

from hydrata.core.asgi import Message, Receive, Scope, Send, header, send_json, send_refusal
from hydrata.storage.errors import StorageError, UploadIncomplete
from hydrata.storage.views import method_not_allowed_detail, upload_store
from hydrata_contract.errors import ErrorCode

UPLOAD_PATH = "/storage/upload/"  # the path of hydrata/storage/urls.py's upload, mounted under /storage/


class StreamedUpload:
    """An ASGI application for the PUTs of /storage/upload/<key>; `path_info` is the path as Django routes it."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send, *, path_info: str) -> None:
        if scope["method"] != "PUT":
            body = {"code": str(ErrorCode.METHOD_NOT_ALLOWED), "detail": method_not_allowed_detail(allowed="PUT")}
            await send_json(send, status=405, body=body, headers=[(b"allow", b"PUT")])
            return
        length = header(scope, b"content-length")
        try:
            stored = await sync_to_async(_store)(
                key=path_info.removeprefix(UPLOAD_PATH),
                query=QueryDict(bytes(scope.get("query_string", b"")).decode("utf-8", "replace")),
                content_type=(header(scope, b"content-type") or b"").decode("latin-1"),
                announced_bytes=int(length) if length is not None and length.isdigit() else None,
                receive=receive,
            )
        except RequestAborted:  # the client hung up, or config/bodies.py answered 413 for it: nothing is stored
            return
        except StorageError as error:
            await send_refusal(send, error)
            return
        await send_json(send, status=200, body=stored)


def _store(
    *, key: str, query: QueryDict, content_type: str, announced_bytes: int | None, receive: Receive
) -> dict[str, object]:
    """upload_store, on a request thread, with the body's chunks taken from the connection one at a time."""
    return upload_store(
        key=key,
        query=query,
        content_type=content_type,
        announced_bytes=announced_bytes,
        chunks=_chunks(async_to_sync(receive)),
    )


def _chunks(receive: Callable[[], Message]) -> Iterator[bytes]:
    """The body as it arrives: each http.request message's bytes, until the last; a hang-up raises RequestAborted."""
    while True:
        message = receive()
        if message["type"] == "http.disconnect":
            raise RequestAborted()
        if message["type"] != "http.request":
            raise UploadIncomplete()
        yield message.get("body", b"")
        if not message.get("more_body", False):
            return
