"""Grant levels, the pause switch, and the check that every view declares its levels."""

import pytest
from django.core.checks import run_checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from rest_framework.test import APIClient

from hydrata.agents.services import account_set_paused
from tests.factories import make_grant, make_user
from tests.hydrata.agents import urls_with_an_undeclared_level as undeclared

pytestmark = pytest.mark.django_db
PROJECTS = "/api/v2/anuga/projects/"


def api(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


@pytest.mark.parametrize("level, status", [("read", 403), ("draft", 201), ("launch", 201)])
def test_creating_a_project_needs_at_least_a_draft_grant(level, status):
    _, key = make_grant(level=level)

    response = api(key).post(PROJECTS, {"name": "n", "projection": "EPSG:28356"}, format="json")

    assert response.status_code == status


def test_a_level_refusal_names_the_level_needed():
    _, key = make_grant(level="read")

    body = api(key).post(PROJECTS, {"name": "n", "projection": "EPSG:28356"}, format="json").json()

    assert body["code"] == "GRANT_LEVEL_TOO_LOW"
    assert body["required_level"] == "draft" and body["grant_level"] == "read"
    assert "draft" in body["detail"]


def test_a_paused_account_refuses_every_agent_request_until_unpaused():
    grant, key = make_grant(level="launch", paused=True)
    client = api(key)

    paused = client.get(PROJECTS)
    account_set_paused(user=grant.user, paused=False)
    resumed = client.get(PROJECTS)

    assert paused.status_code == 403 and paused.json()["code"] == "AGENT_PAUSED"
    assert resumed.status_code == 200


def test_pausing_agents_does_not_lock_the_person_out_of_the_site():
    user = make_user()
    account_set_paused(user=user, paused=True)
    client = APIClient()
    client.force_login(user)

    assert client.get(PROJECTS).status_code == 200


def grant_level_errors() -> list:
    return [message for message in run_checks() if message.id == "hydrata.E001"]


def test_a_view_that_declares_no_level_for_a_method_fails_the_system_check(settings):
    settings.ROOT_URLCONF = undeclared.__name__

    errors = grant_level_errors()

    assert [error.obj for error in errors] == [undeclared.UndeclaredDeleteView]
    assert "DELETE" in errors[0].msg and "GET" not in errors[0].msg
    with pytest.raises(SystemCheckError, match=r"hydrata\.E001"):
        call_command("check")


@pytest.mark.parametrize(("level", "status"), [("read", 403), ("draft", 403), ("launch", 204)])
def test_a_method_a_view_did_not_declare_needs_a_launch_grant(settings, level, status):
    settings.ROOT_URLCONF = undeclared.__name__
    _, key = make_grant(level=level)

    declared = api(key).get(undeclared.ROUTE)
    response = api(key).delete(undeclared.ROUTE)

    assert declared.status_code == 200  # GET is declared read: every key may
    assert response.status_code == status
    if status == 403:
        assert response.json()["code"] == "GRANT_LEVEL_TOO_LOW" and response.json()["required_level"] == "launch"


def test_the_shipped_urls_pass_the_grant_level_check():
    assert grant_level_errors() == []
    call_command("check")
