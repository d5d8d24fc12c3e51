"""The routes that name a run, a scenario, a comparison or a map instead of a project hold that project's roles on
every way in, as the routes under a project do (tests/hydrata/anuga/test_project_scoped_views.py): a viewer reads
each and is refused every change (starting, cancelling or retrying a run, comparing, recomputing) with 403
PROJECT_READ_ONLY; a stranger is told for every method that the object does not exist. Generated from the URLconf,
with an agent key and with a connect-flow token, both at the launch level, so that only the role refuses."""

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client

from hydrata.anuga.models import Project
from tests.factories import make_finished_run, make_grant, make_project, make_user
from tests.hydrata.agents.test_level_matrix import declared
from tests.hydrata.oauth.flow import connect
from tests.hydrata.observations.helpers import api_for, event_of, observation

pytestmark = pytest.mark.django_db

OBJECT_IDS = ("<int:run_id>", "<int:scenario_id>", "<int:comparison_id>", "<int:map_id>")
NOT_FOUND = {"RUN_NOT_FOUND", "SCENARIO_NOT_FOUND", "COMPARISON_NOT_FOUND", "MAP_NOT_FOUND", "PROJECT_NOT_FOUND"}
TILE = {"<str:layer>": "max_depth", "<str:z>": "0", "<str:x>": "0", "<str:y>": "0"}


@pytest.fixture(autouse=True)
def no_registration_limit(settings):
    settings.HYDRATA_OAUTH_REGISTER_RATE_LIMIT = 0


def key_of(user: User) -> str:
    return make_grant(user, level="launch")[1]


def token_of(user: User) -> str:
    return connect(user, level="launch").access_token


def objects(project: Project) -> tuple[dict[str, str], dict]:
    """A finished run of the project, a second one to compare it with, a comparison of it with an event, and
    what each route's placeholder stands for; the body a change needs to reach its role check."""
    run = make_finished_run(project)
    other = make_finished_run(project, scenario=run.scenario, stage_above_ground=0.2)
    owner = api_for(project.owner)
    event = event_of(owner, project.pk)
    assert observation(owner, project.pk, event["id"]).status_code == 201
    compared = owner.post(f"/api/v2/anuga/runs/{run.pk}/compare/", {"event": event["id"]}, format="json")
    assert compared.status_code == 201, compared.content
    ids = {
        "<int:run_id>": str(run.pk),
        "<int:other_run_id>": str(other.pk),
        "<int:scenario_id>": str(run.scenario_id),
        "<int:comparison_id>": str(compared.json()["id"]),
        "<int:map_id>": str(project.base_map_id),
        **TILE,
    }
    return ids, {"event": event["id"]}


def routes() -> dict[tuple[str, str], str]:
    """(route, method) -> level, for every route that names one of the objects and no project."""
    return {
        (route, method): level
        for (route, method), level in declared().items()
        if "<int:project_id>" not in route and any(name in route for name in OBJECT_IDS)
    }


def ask(credential: str, method: str, route: str, ids: dict[str, str], body: dict):
    url = route
    for placeholder, value in ids.items():
        url = url.replace(placeholder, value)
    payload = {"data": body, "content_type": "application/json"} if method != "GET" else {}
    return getattr(Client(), method.lower())(url, **payload, HTTP_AUTHORIZATION=f"Bearer {credential}")


def code_of(response) -> str | None:
    return response.json().get("code") if response.get("Content-Type", "").startswith("application/json") else None


@pytest.mark.parametrize("credential_of", [key_of, token_of], ids=["agent key", "connect-flow token"])
def test_a_viewer_reads_every_route_that_names_an_object_and_is_refused_every_change_as_read_only(
    credential_of: Callable[[User], str],
):
    viewer = make_user("viewer")
    project = make_project(members={viewer: "viewer"})
    ids, body = objects(project)
    credential = credential_of(viewer)

    wrong = []
    for (route, method), level in routes().items():
        response = ask(credential, method, route, ids, body)
        refused = response.status_code == 403 and code_of(response) == "PROJECT_READ_ONLY"
        hidden = code_of(response) in NOT_FOUND  # (a finished run made here has no preview: that 404 is no refusal)
        if level == "read" and (refused or hidden or response.status_code >= 500):
            wrong.append(f"{method} {route}: {response.status_code} {code_of(response)}, a read")
        elif level != "read" and not refused:
            wrong.append(f"{method} {route}: {response.status_code} {code_of(response)}, a change")

    assert len(routes()) >= 15
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("credential_of", [key_of, token_of], ids=["agent key", "connect-flow token"])
def test_a_stranger_is_told_for_every_route_and_method_that_the_object_does_not_exist(
    credential_of: Callable[[User], str],
):
    ids, body = objects(make_project())
    credential = credential_of(make_user("stranger"))

    wrong = []
    for route, method in routes():
        response = ask(credential, method, route, ids, body)
        if response.status_code != 404 or code_of(response) not in NOT_FOUND:
            wrong.append(f"{method} {route}: {response.status_code} {code_of(response)}")

    assert not wrong, "\n".join(wrong)
