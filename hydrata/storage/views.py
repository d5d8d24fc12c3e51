"""The endpoints behind the local backend's signed URLs. No login: the signature is the authority."""

from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any, BinaryIO

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.views.decorators.csrf import csrf_exempt

from hydrata.core.statuses import http_status
from hydrata.storage.errors import StorageError, StorageObjectNotFound, UploadTooLarge
from hydrata.storage.local import CHUNK_BYTES, LocalStorage, too_large_detail
from hydrata.storage.signing import verify_download, verify_upload
from hydrata_contract.errors import ErrorCode


@csrf_exempt
def upload(request: HttpRequest, key: str) -> HttpResponse:
    """The signed PUT as Django serves it (the test client, WSGI). Under the ASGI application the body never
    reaches Django: hydrata/storage/streaming.py streams it into storage with the same `upload_store`."""
    if request.method != "PUT":
        return _method_not_allowed(allowed="PUT")
    try:
        stored = upload_store(
            key=key,
            query=request.GET,
            content_type=request.META.get("CONTENT_TYPE", ""),
            announced_bytes=_content_length(request),
            # request.read() in chunks, never request.body: the body may be gigabytes.
            chunks=iter(lambda: request.read(CHUNK_BYTES), b""),
        )
    except StorageError as error:
        return _refusal(error)
    return JsonResponse(stored)


def upload_store(
    *, key: str, query: Mapping[str, str], content_type: str, announced_bytes: int | None, chunks: Iterable[bytes]
) -> dict[str, Any]:
    """Check the signed PUT, then store its body under the key (all of it or nothing): {"key", "size"}, or the
    StorageError that refuses it. The body is not read before the link and the size it announced are accepted."""
    if settings.HYDRATA_STORAGE_BACKEND != "local":
        raise StorageObjectNotFound()
    max_bytes = settings.HYDRATA_TERRAIN_MAX_BYTES
    verify_upload(key=key, query=query, request_content_type=content_type)
    if announced_bytes is not None and announced_bytes > max_bytes:
        raise UploadTooLarge(too_large_detail(max_bytes=max_bytes))
    size = _storage().save_chunks(key=key, chunks=chunks, max_bytes=max_bytes, expected_bytes=announced_bytes)
    return {"key": key, "size": size}


def download(request: HttpRequest, key: str) -> HttpResponseBase:
    if request.method != "GET":
        return _method_not_allowed(allowed="GET")
    if settings.HYDRATA_STORAGE_BACKEND != "local":
        return _refusal(StorageObjectNotFound())
    try:
        filename = verify_download(key=key, query=request.GET)
        path = _storage().path(key=key)
        stream = path.open("rb")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return _refusal(StorageObjectNotFound())
    except StorageError as error:
        return _refusal(error)
    response = FileResponse(stream, as_attachment=filename is not None, filename=filename or path.name)
    if isinstance(request, ASGIRequest):
        # Django's ASGI handler reads a synchronous file iterator into memory in one piece before sending.
        response.streaming_content = _read_in_chunks(stream)
    return response


async def _read_in_chunks(stream: BinaryIO) -> AsyncIterator[bytes]:
    read = sync_to_async(stream.read, thread_sensitive=False)
    while chunk := await read(CHUNK_BYTES):
        yield chunk


def _storage() -> LocalStorage:
    return LocalStorage(root=settings.MEDIA_ROOT)


def _content_length(request: HttpRequest) -> int | None:
    try:
        return int(request.META["CONTENT_LENGTH"])
    except (KeyError, ValueError):
        return None


def method_not_allowed_detail(*, allowed: str) -> str:
    return f"This link accepts only {allowed} requests."


def _refusal(error: StorageError) -> JsonResponse:
    return JsonResponse({"code": error.error_code, "detail": str(error.detail)}, status=http_status(error))


def _method_not_allowed(*, allowed: str) -> JsonResponse:
    response = JsonResponse(
        {"code": ErrorCode.METHOD_NOT_ALLOWED, "detail": method_not_allowed_detail(allowed=allowed)}, status=405
    )
    response["Allow"] = allowed
    return response
