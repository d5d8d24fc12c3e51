from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render

from hydrata.anuga.models import Project
from hydrata.anuga.selectors.projects import projects_visible_to, roles_for
from hydrata.core.requests import AuthenticatedHttpRequest
from hydrata_contract.projects import Visibility
from hydrata_contract.scripts import script_constants


def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    return redirect("catalogue")


def _visibility(project: Project) -> Visibility:
    return Visibility.PUBLIC if project.is_public else Visibility.PRIVATE


@login_required
def catalogue(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The project list is rendered here; the map a link points at (`#/map/<id>?...`) is read by the page's
    script, because the fragment never reaches the server."""
    projects = list(projects_visible_to(user=request.user))
    roles = roles_for(user=request.user, project_ids=[project.pk for project in projects])
    # A public project's reader who is no member sees it as public, in the role's place.
    rows = [
        (project, _visibility(project), roles.get(project.pk) or (Visibility.PUBLIC if project.is_public else ""))
        for project in projects
    ]
    map_config = {"basemap": settings.HYDRATA_BASEMAP_URL, "attribution": settings.HYDRATA_BASEMAP_ATTRIBUTION}
    context = {"projects": rows, "map_config": map_config, "contract": script_constants()}
    return render(request, "map/catalogue.html", context)
