"""Records every REST request made with an agent grant, after the response is known."""

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.http import HttpRequest, HttpResponse

from hydrata.agents.services import activity_record


class AgentActivityMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        if iscoroutinefunction(self):
            return self._acall(request)
        response = self.get_response(request)
        _record(request, response)
        return response

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        response = await self.get_response(request)
        if getattr(request, "agent_grant", None) is not None:
            await sync_to_async(_record)(request, response)
        return response


def _record(request: HttpRequest, response: HttpResponse) -> None:
    grant = getattr(request, "agent_grant", None)
    if grant is None:
        return
    activity_record(
        grant=grant,
        method=request.method or "",
        path=request.path,
        status_code=response.status_code,
        client=request.headers.get("X-Hydrata-Client", ""),
        session=request.headers.get("X-Hydrata-Session", ""),
    )
