"""Django's 404 for URLs no route matches (an id that is not a number, a misspelt path): under /api/ the error
body every API refusal has, elsewhere the site's page. Found by fuzzing: /api/v2/runs/-1/ answered HTML."""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found

from hydrata_contract.errors import ErrorCode


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"code": ErrorCode.NOT_FOUND, "detail": "No API endpoint at this path (ids are positive integers)."},
            status=404,
        )
    return page_not_found(request, exception or Exception())
