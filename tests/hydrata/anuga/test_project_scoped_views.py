"""Every route under a project resolves it once, in ProjectScopedView: visible to read, writable to change."""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from hydrata.anuga.api.base import ProjectScopedView
from tests.factories import make_grant, make_project, make_user

pytestmark = pytest.mark.django_db
SAFE = {"GET"}


def api_routes(patterns=None, prefix=""):
    """(route, view class) of every class-based route, the route as written in the URL configuration."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            yield from api_routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern) and getattr(pattern.callback, "cls", None) is not None:
            yield prefix + str(pattern.pattern), pattern.callback.cls


def project_routes():
    return [(route, view) for route, view in api_routes() if "<int:project_id>" in route]


def url(route: str, project_id: int) -> str:
    """The route with this project and an id no nested object has."""
    filled = route.replace("<int:project_id>", str(project_id))
    return "/" + re.sub(r"<int:\w+>", "999999", filled)


def agent(user, level="launch") -> APIClient:
    _, key = make_grant(user, level=level)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def call(client: APIClient, method: str, path: str):
    return getattr(client, method.lower())(path, {}, format="json")


def test_every_route_that_carries_a_project_id_is_a_project_scoped_view():
    routes = project_routes()

    assert len(routes) >= 20
    assert [route for route, view in routes if not issubclass(view, ProjectScopedView)] == []


def test_a_project_the_caller_cannot_see_is_project_not_found_for_every_method_of_every_route():
    project, stranger = make_project(), agent(make_user())

    answers = {
        (route, method): call(stranger, method, url(route, project.pk))
        for route, view in project_routes()
        for method in view.grant_levels
    }

    unexpected = {
        key: (r.status_code, r.json().get("code"))
        for key, r in answers.items()
        if (r.status_code, r.json().get("code")) != (404, "PROJECT_NOT_FOUND")
    }
    assert unexpected == {}


def test_a_viewer_reads_every_route_but_every_change_is_project_read_only():
    viewer = make_user()
    project = make_project(members={viewer: "viewer"})
    client = agent(viewer)

    answers = {
        (route, method): call(client, method, url(route, project.pk))
        for route, view in project_routes()
        for method in view.grant_levels
    }

    # A POST that only reads (a study's sample) is a read: a viewer may ask it.
    reading = {(route, "POST") for route, view in project_routes() if getattr(view, "post_reads", False)}
    changes = {
        key: (r.status_code, r.json().get("code"))
        for key, r in answers.items()
        if key[1] not in SAFE and key not in reading
    }
    reads = {key: r.json().get("code") for key, r in answers.items() if key[1] in SAFE or key in reading}
    assert changes and set(changes.values()) == {(403, "PROJECT_READ_ONLY")}
    assert reads and "PROJECT_NOT_FOUND" not in reads.values() and "PROJECT_READ_ONLY" not in reads.values()


def test_an_agent_below_the_level_a_method_needs_is_told_so_before_anything_about_the_project():
    project = make_project()  # the caller cannot see it

    response = agent(make_user(), level="read").post(
        f"/api/v2/anuga/projects/{project.pk}/scenarios/", {}, format="json"
    )

    assert response.status_code == 403 and response.json()["code"] == "GRANT_LEVEL_TOO_LOW"


def test_a_method_a_project_route_does_not_serve_is_405_even_on_an_invisible_project():
    project = make_project()

    response = agent(make_user()).delete(f"/api/v2/anuga/projects/{project.pk}/")

    assert response.status_code == 405
