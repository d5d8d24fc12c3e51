"""The one shell of this wing's Django middleware: the same hooks in a sync or an async stack.

A subclass implements `before` (a response it returns is the answer; the rest of the stack never runs)
and/or `after` (it may rewrite the response on its way out).
"""

from collections.abc import Awaitable, Callable
from typing import cast

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest
from django.http.response import HttpResponseBase

GetResponse = Callable[[HttpRequest], HttpResponseBase | Awaitable[HttpResponseBase]]


class MCPMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponseBase | Awaitable[HttpResponseBase]:
        if self.async_mode:
            return self._acall(request)
        early = self.before(request)
        if early is not None:
            return early
        return self.after(request, cast(HttpResponseBase, self.get_response(request)))

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        early = self.before(request)
        if early is not None:
            return early
        return self.after(request, await cast(Awaitable[HttpResponseBase], self.get_response(request)))

    def before(self, request: HttpRequest) -> HttpResponseBase | None:
        return None

    def after(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        return response
