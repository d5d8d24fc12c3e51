"""Records every REST request made with an agent grant, after the response is known."""

from django.db import OperationalError
from django.http import HttpRequest, HttpResponse

from hydrata.agents.services import activity_record
from hydrata.core.unavailable import log_database_unavailable


class AgentActivityMiddleware:
    # Sync only, on purpose: as the innermost middleware it decides the mode of the whole stack. Sync, every
    # middleware and the sync views of a request run on one thread with no hop between them; async-capable, Django
    # would hop threads twice for each of its own middleware (and once more for the sync WhiteNoise above them).
    sync_capable = True
    async_capable = False

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        response = self.get_response(request)
        try:
            _record(request, response)
        except OperationalError as error:
            # The database that failed the request (its 503 says so) or failed since: the answer stands, a 500
            # in its place would tell the caller less and record nothing either.
            log_database_unavailable(error, where="the activity record")
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
