"""The one DRF exception handler: every error body is {"code": ..., "detail": ..., ...}, and each kind of the
platform's refusals (hydrata/core/errors.py, which knows no HTTP) answers with its status here."""

import logging
import math
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import OperationalError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from hydrata.core.errors import PlatformError, RequestTooLarge
from hydrata.core.statuses import http_status
from hydrata.core.unavailable import database_unavailable
from hydrata_contract.errors import ErrorCode

logger = logging.getLogger(__name__)

_DRF_CODES: dict[type[exceptions.APIException], str] = {
    exceptions.ParseError: ErrorCode.PARSE_ERROR,
    exceptions.AuthenticationFailed: ErrorCode.AUTHENTICATION_FAILED,
    exceptions.NotAuthenticated: ErrorCode.NOT_AUTHENTICATED,
    exceptions.PermissionDenied: ErrorCode.PERMISSION_DENIED,
    exceptions.NotFound: ErrorCode.NOT_FOUND,
    exceptions.MethodNotAllowed: ErrorCode.METHOD_NOT_ALLOWED,
    exceptions.NotAcceptable: ErrorCode.NOT_ACCEPTABLE,
    exceptions.UnsupportedMediaType: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    exceptions.Throttled: ErrorCode.THROTTLED,
    exceptions.ValidationError: ErrorCode.VALIDATION_ERROR,
}


def _drf_code(exc: exceptions.APIException) -> str:
    for cls in type(exc).__mro__:
        if cls in _DRF_CODES:
            return _DRF_CODES[cls]
    return ErrorCode.ERROR


def _headers(exc: Exception) -> dict[str, str]:
    headers = {}
    auth_header = getattr(exc, "auth_header", None)
    if auth_header:
        headers["WWW-Authenticate"] = str(auth_header)
    retry_after = _retry_after(exc)
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    return headers


def _retry_after(exc: Exception) -> int | None:
    if isinstance(exc, PlatformError):
        return exc.retry_after_seconds
    wait = getattr(exc, "wait", None)  # DRF's Throttled sets it (its type stubs leave it out)
    return None if wait is None else max(1, math.ceil(wait))


def _validation_body(exc: exceptions.ValidationError) -> dict[str, Any]:
    errors = exc.detail
    if isinstance(errors, dict):
        first_field, first_messages = next(iter(errors.items()), ("", [""]))
        message = first_messages[0] if isinstance(first_messages, list) and first_messages else first_messages
        detail = f"{first_field}: {message}" if first_field != "non_field_errors" else str(message)
    elif isinstance(errors, list):
        detail = str(errors[0]) if errors else "Invalid input."
    else:
        detail = str(errors)
    return {"code": ErrorCode.VALIDATION_ERROR, "detail": detail, "errors": errors}


def _view_name(context: dict[str, Any]) -> str:
    view = context.get("view")
    return type(view).__name__ if view else "API view"


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    if isinstance(exc, Http404):
        exc = exceptions.NotFound("Not found, or not visible to this caller.")
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, OperationalError):  # Django's, also for psycopg_pool's PoolTimeout
        exc = database_unavailable(exc, where=_view_name(context))
    elif isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        exc = RequestTooLarge(
            f"The request body is larger than the {limit:,}-byte limit. Send less in one request.", limit=limit
        )

    if isinstance(exc, PlatformError):
        body = {"code": exc.error_code, "detail": str(exc.detail), **exc.extra}
        if exc.retry_after_seconds is not None:
            body["retry_after_seconds"] = exc.retry_after_seconds
        set_rollback()
        return _answer(body, status_code=http_status(exc), headers=_headers(exc))
    if isinstance(exc, exceptions.ValidationError):
        body = _validation_body(exc)
    elif isinstance(exc, exceptions.Throttled):
        body = {
            "code": ErrorCode.THROTTLED,
            "detail": "Too many requests with this agent key: at most "
            f"{settings.HYDRATA_AGENT_RATE_LIMIT} a minute. Wait before the next one.",
            "retry_after_seconds": _retry_after(exc),
        }
    elif isinstance(exc, exceptions.APIException):
        body = {"code": _drf_code(exc), "detail": str(exc.detail)}
    else:
        logger.exception("Unhandled error in %s", _view_name(context))
        set_rollback()
        return Response(
            {"code": ErrorCode.INTERNAL_ERROR, "detail": "An internal error occurred; it has been logged."},
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )

    set_rollback()
    return _answer(body, status_code=exc.status_code, headers=_headers(exc))


def _answer(body: dict[str, Any], *, status_code: int, headers: dict[str, str]) -> Response:
    # The code as a plain string: the schema view renders its errors in YAML too, which cannot write an enum member.
    return Response({**body, "code": str(body["code"])}, status=status_code, headers=headers)
