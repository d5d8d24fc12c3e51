"""The bases of the API views whose route carries a project id or a run id (the idea of Sentry's ProjectEndpoint):
they resolve the object the caller may see before the handler runs, so no view looks anything up itself."""

from collections.abc import Callable, Mapping
from typing import Any

from django.http import HttpRequest, HttpResponseBase
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.agents.permissions import grant_of
from hydrata.anuga.models import Project, Run, Scenario
from hydrata.anuga.selectors import scenarios
from hydrata.anuga.selectors.links import project_link
from hydrata.anuga.selectors.projects import Reader, project_get, project_get_writable, reader_of
from hydrata.anuga.selectors.runs import run_get
from hydrata.core.requests import authenticated_user
from hydrata.core.schema import PageSchema
from hydrata_contract.links import Panel

PROJECT_URL_KWARG = "project_id"
RUN_URL_KWARG = "run_id"


def reader(request: Request, *, project_id: int) -> Reader:
    """How this request reads the project: the public-reader policy (`reader_of`) every route follows."""
    return reader_of(user=authenticated_user(request), project_id=project_id, agent=grant_of(request) is not None)


def published_face(
    data: dict[str, Any],
    *,
    keep: Callable[[str], bool],
    empty: Mapping[str, Any] | None = None,
    drop: Callable[[str], bool] = lambda key: False,
) -> dict[str, Any]:
    """The one way an answer is cut down for a public reader: the fields `keep` names (an allowlist: a new field is
    withheld until named), every other keeping its key with an empty value (None, or `empty`'s) and named in
    `withheld` beside `reduced: true`; the keys `drop` names (signed links) are left out altogether."""
    kept = {key: value for key, value in data.items() if keep(key)}
    withheld = {key: (empty or {}).get(key) for key in data if key not in kept and not drop(key)}
    return {**withheld, **kept, "reduced": True, "withheld": sorted(withheld)}


class RouteObjectView(APIView):
    """The route's object (its id under `route_kwarg`) resolved once, by `resolve`, before the handler runs: after
    authentication and the grant-level check, and only for a method the view serves (DRF answers 405 for another).
    Handlers take the route's other arguments only."""

    route_kwarg: str

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        self.route_id = int(kwargs.pop(self.route_kwarg))
        return super().dispatch(request, *args, **kwargs)

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        if hasattr(self, (request.method or "").lower()):
            self.resolve(request)

    def resolve(self, request: Request) -> None:
        raise NotImplementedError


class ProjectScopedView(RouteObjectView):
    """Resolves the route's project once, as `self.project`, before the handler runs.

    Safe methods need a project the caller can see, others one they may change: an invisible project is 404
    PROJECT_NOT_FOUND, a change to one they may only read is 403 PROJECT_READ_ONLY. This happens after
    authentication and the grant-level check (`grant_levels`, still declared by each view), so an agent below
    the level a method needs is told that first, as before. Handlers take the route's other arguments only.
    """

    project: Project
    route_kwarg = PROJECT_URL_KWARG

    def resolve(self, request: Request) -> None:
        get = project_get if request.method in SAFE_METHODS else project_get_writable
        self.project = get(user=authenticated_user(request), project_id=self.route_id)

    def reader(self, request: Request) -> Reader:
        return reader(request, project_id=self.project.pk)

    def scenario_get(self, scenario_id: int) -> Scenario:
        """A scenario of this project; any other is 404 SCENARIO_NOT_FOUND."""
        return scenarios.scenario_get(project=self.project, scenario_id=scenario_id)


class ProjectListView(ProjectScopedView, GenericAPIView):
    """A page of one kind of the project's things, with the map link of the panel that shows them (`ui_url`): a
    client hands people that link even when the page is empty."""

    list_panel: Panel
    schema = PageSchema()

    def get_paginated_response(self, data: Any) -> Response:
        response = super().get_paginated_response(data)
        response.data["ui_url"] = project_link(self.project, self.list_panel)
        return response


class RunScopedView(RouteObjectView):
    """Resolves the route's run once, as `self.run`, before the handler runs (ProjectScopedView's twin for the
    `runs/<run_id>/` routes).

    A run of a project the caller cannot see is 404 RUN_NOT_FOUND. A method that changes the run needs a project
    the caller may change (403 PROJECT_READ_ONLY otherwise), unless the view says its POST only reads the run
    (`post_reads_run`: sampling it, comparing it with observations). As in ProjectScopedView this comes after
    authentication and the grant-level check.
    """

    run: Run
    post_reads_run = False
    route_kwarg = RUN_URL_KWARG

    def resolve(self, request: Request) -> None:
        user = authenticated_user(request)
        self.run = run_get(user=user, run_id=self.route_id)
        if request.method not in SAFE_METHODS and not (request.method == "POST" and self.post_reads_run):
            project_get_writable(user=user, project_id=self.run.scenario.project_id)

    def reader(self, request: Request) -> Reader:
        """How the caller reads this run's project (a public reader gets its published fields, no signed link)."""
        return reader(request, project_id=self.run.scenario.project_id)
