"""The middleware shell: `before` may answer instead of the stack, `after` sees every answer, sync or async."""

import asyncio

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.test import RequestFactory

from hydrata_mcp.middleware import MCPMiddleware


class Stamping(MCPMiddleware):
    def before(self, request: HttpRequest) -> HttpResponse | None:
        return HttpResponse("refused", status=403) if request.path == "/refuse/" else None

    def after(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        response["X-After"] = "seen"
        return response


def view(request: HttpRequest) -> HttpResponse:
    return HttpResponse("from the view")


async def async_view(request: HttpRequest) -> HttpResponse:
    return HttpResponse("from the async view")


def test_in_a_sync_stack_before_can_answer_and_after_sees_the_views_answer():
    middleware = Stamping(view)
    factory = RequestFactory()

    refused = middleware(factory.get("/refuse/"))
    passed = middleware(factory.get("/pass/"))

    assert not iscoroutinefunction(middleware)
    assert (refused.status_code, refused.content, refused.has_header("X-After")) == (403, b"refused", False)
    assert (passed.content, passed["X-After"]) == (b"from the view", "seen")


def test_in_an_async_stack_the_middleware_is_a_coroutine_function_with_the_same_hooks():
    middleware = Stamping(async_view)
    factory = RequestFactory()

    refused = asyncio.run(middleware(factory.get("/refuse/")))
    passed = asyncio.run(middleware(factory.get("/pass/")))

    assert iscoroutinefunction(middleware)
    assert (refused.status_code, refused.has_header("X-After")) == (403, False)
    assert (passed.content, passed["X-After"]) == (b"from the async view", "seen")
