"""The sign-off over REST: owners and editors approve a scenario as it is; with the account switch on, agents
cannot start a run of a scenario their account's owner has not approved in its current state."""

import pytest
from django.test import Client

from config.celery import app as celery_app
from hydrata.agents.models import AgentSpend
from hydrata.agents.services import account_set_runs_need_approval
from hydrata.anuga.models import Project, Run, RunStatus
from tests.data import RAINFALL
from tests.factories import make_grant, make_user
from tests.model_setup import PROJECTS, api, attach, small_test_model, upload_geojson

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def built(live_asgi):
    """A built small_test scenario of an account that wants to approve runs; nothing computes (no worker)."""
    grant, key = make_grant(level="launch")
    account_set_runs_need_approval(user=grant.user, required=True)
    model = small_test_model(live_asgi.url, key)
    with api(live_asgi.url, key) as http:
        scenario = http.post(
            f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "sign me off", "resolution": 10, "duration": 300}
        ).json()
        assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").status_code == 202
    celery_app.conf.task_always_eager = False
    return grant, key, model, scenario


def person(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def approve(client, model, scenario):
    return client.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/approve/")


def start(url, key, scenario):
    with api(url, key) as http:
        return http.post(f"/api/v2/anuga/scenarios/{scenario['id']}/run/")


def test_an_agent_is_refused_until_the_owner_approves_and_then_it_starts(built, live_asgi):
    grant, key, model, scenario = built
    base_map = Project.objects.get(pk=model.project_id).base_map_id

    refused = start(live_asgi.url, key, scenario)
    approved = approve(person(grant.user), model, scenario)
    started = start(live_asgi.url, key, scenario)

    assert refused.status_code == 409 and refused.json()["code"] == "APPROVAL_REQUIRED"
    link = f"{live_asgi.url}/catalogue/#/map/{base_map}?panel=scenario&scenario={scenario['id']}"
    assert refused.json()["ui_url"] == link and link in refused.json()["detail"]
    assert approved.status_code == 201 and approved.json()["approved"] is True
    assert approved.json()["approvals"][0]["by"] == grant.user.username
    assert started.status_code == 202 and started.json()["status"] == "queued"
    assert AgentSpend.objects.count() == 1  # the refused start charged nothing


def test_a_change_to_the_scenario_leaves_the_approval_stale(built, live_asgi):
    grant, key, model, scenario = built
    approve(person(grant.user), model, scenario)
    celery_app.conf.task_always_eager = True  # the rebuild after the change runs at once
    with api(live_asgi.url, key) as http:
        http.patch(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/", json={"duration": 301})
        assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").status_code == 202
        read = http.get(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/").json()
    celery_app.conf.task_always_eager = False

    refused = start(live_asgi.url, key, scenario)

    assert read["approval"]["approved"] is False and read["approval"]["stale_approval"]["by"] == grant.user.username
    assert read["approval"]["required_for_your_agents"] is True
    assert refused.status_code == 409 and refused.json()["code"] == "APPROVAL_REQUIRED"


def test_a_change_to_an_input_row_leaves_the_approval_stale(built, live_asgi):
    grant, key, model, scenario = built
    approve(person(grant.user), model, scenario)
    celery_app.conf.task_always_eager = True  # the upload's import runs at once

    with api(live_asgi.url, key) as http:
        dataset = upload_geojson(http, "rainfall-again.geojson", RAINFALL)
        assert attach(http, model, "rainfall", dataset).status_code == 200
        read = http.get(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/").json()

    assert read["approval"]["approved"] is False and read["approval"]["stale_approval"] is not None


def test_an_agent_key_cannot_approve_whatever_its_level(built, live_asgi):
    _, key, model, scenario = built

    with api(live_asgi.url, key) as http:
        response = http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/approve/")

    assert response.status_code == 403 and response.json()["code"] == "APPROVAL_BY_PERSON_ONLY"


def test_viewers_cannot_approve_and_strangers_do_not_see_the_scenario(built):
    _, _, model, scenario = built
    viewer, stranger = make_user("victor"), make_user("mallory")
    Project.objects.get(pk=model.project_id).memberships.create(user=viewer, role="viewer")

    as_viewer = approve(person(viewer), model, scenario)
    as_stranger = approve(person(stranger), model, scenario)

    assert as_viewer.status_code == 403 and as_viewer.json()["code"] == "PROJECT_READ_ONLY"
    assert as_stranger.status_code == 404


def test_an_editors_approval_does_not_stand_in_for_the_account_owners_own(built, live_asgi):
    _, key, model, scenario = built
    editor = make_user("erin")
    Project.objects.get(pk=model.project_id).memberships.create(user=editor, role="editor")

    approve(person(editor), model, scenario)
    refused = start(live_asgi.url, key, scenario)

    assert refused.status_code == 409 and refused.json()["code"] == "APPROVAL_REQUIRED"


def test_a_person_starting_a_run_in_the_browser_needs_no_approval(built):
    grant, _, _, scenario = built

    response = person(grant.user).post(f"/api/v2/anuga/scenarios/{scenario['id']}/run/")

    assert response.status_code == 202
    assert Run.objects.get(pk=response.json()["id"]).status == RunStatus.QUEUED


def test_with_the_switch_off_agents_start_without_approval(built, live_asgi):
    grant, key, _, scenario = built
    account_set_runs_need_approval(user=grant.user, required=False)

    assert start(live_asgi.url, key, scenario).status_code == 202
