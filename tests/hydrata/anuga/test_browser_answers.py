"""Signed download links go to agents, which move the bytes; a person's browser session never receives one."""

import pytest
from rest_framework.test import APIClient

from tests.factories import make_finished_run, make_grant, make_project, make_user

pytestmark = pytest.mark.django_db

SIGNATURE = "X-Hydrata-Signature"


@pytest.fixture
def run():
    return make_finished_run(make_project(make_user("alice")))


def browser(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def agent(user) -> APIClient:
    _, key = make_grant(user, level="read")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def answers(client: APIClient, run) -> dict[str, str]:
    project = run.scenario.project_id
    paths = [
        f"/api/v2/anuga/runs/{run.pk}/",
        f"/api/v2/anuga/runs/{run.pk}/results/",
        f"/api/v2/anuga/projects/{project}/runs/",
        f"/api/v2/anuga/projects/{project}/terrain/",
        f"/api/v2/anuga/projects/{project}/terrain/{run.scenario.terrain_id}/",
    ]
    return {path: client.get(path).content.decode() for path in paths}


def test_a_signed_in_browser_gets_run_and_terrain_answers_without_signed_links(run):
    for path, body in answers(browser(run.scenario.project.owner), run).items():
        assert SIGNATURE not in body and '"s3_' not in body, path
    detail = browser(run.scenario.project.owner).get(f"/api/v2/anuga/runs/{run.pk}/").json()
    assert detail["gn_layer_max_depth"]["units"] == "m"


def test_an_agent_still_gets_the_signed_links_it_downloads_with(run):
    bodies = answers(agent(run.scenario.project.owner), run)

    assert SIGNATURE in bodies[f"/api/v2/anuga/runs/{run.pk}/"]
    assert '"s3_hillshade_url"' in bodies[f"/api/v2/anuga/projects/{run.scenario.project_id}/terrain/"]
