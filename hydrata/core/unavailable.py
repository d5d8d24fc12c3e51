"""A database that does not answer gives 503 with Retry-After and the code DATABASE_UNAVAILABLE, never a 500: the
REST API through the one DRF exception handler, every other view (the site's pages, the connect flow) through
this module's middleware. The same request may succeed seconds later (a pool with a free connection again, a
database back after its restart or failover, a writer that let go of SQLite's lock)."""

import logging
from collections.abc import Callable

from django.db import OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

from hydrata.core.errors import DatabaseUnavailable
from hydrata.core.statuses import http_status

logger = logging.getLogger(__name__)

PAGE_TEXT = "Hydrata is busy: its database did not answer. Try again in {seconds} seconds."


def database_unavailable(error: OperationalError, *, where: str) -> DatabaseUnavailable:
    log_database_unavailable(error, where=where)
    return DatabaseUnavailable()


def log_database_unavailable(error: OperationalError, *, where: str) -> None:
    # The names alone: the driver's message may name the database server and its user.
    cause = error.__cause__
    logger.warning(
        "The database did not answer in %s: %s from %s",
        where,
        type(error).__name__,
        type(cause).__name__ if cause is not None else "nothing further",
    )


class DatabaseUnavailableMiddleware:
    """A view (not the REST API's, which answers for itself) that met a database error answers 503: JSON under
    /api/, a line of text elsewhere. No template: the site's base page reads the session and the user, which
    need the database."""

    # Sync only, as the rest of the site's stack (see hydrata/agents/middleware.py).
    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError):
            return None
        match = request.resolver_match
        refusal = database_unavailable(exception, where=match.view_name if match else "a view")
        seconds = refusal.retry_after_seconds
        headers = {"Retry-After": str(seconds)}
        if request.path.startswith("/api/"):
            body = {"code": refusal.error_code, "detail": str(refusal.detail), "retry_after_seconds": seconds}
            return JsonResponse(body, status=http_status(refusal), headers=headers)
        return HttpResponse(
            PAGE_TEXT.format(seconds=seconds),
            status=http_status(refusal),
            content_type="text/plain; charset=utf-8",
            headers=headers,
        )
