"""The Django admin: every model has a working changelist; a grant's digest is shown but never editable."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from hydrata.agents.models import AgentAccount, AgentActivity, AgentGrant, AgentSpend
from hydrata.agents.services import account_set_spend_limit, activity_record, capability_suggestion_create
from hydrata.anuga.models import Project
from hydrata.observations.services.observations import flood_event_create, observation_create
from hydrata.studies.services.inputs import design_input_create
from hydrata_contract.studies import DesignInputKind
from tests.data import ARR
from tests.factories import make_grant, make_project, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_browser(client):
    admin = get_user_model().objects.create_superuser(username="root", password="a-long-test-password")
    client.force_login(admin)
    return client


@pytest.fixture
def one_of_everything():
    user = make_user("owner")
    grant, _ = make_grant(user, name="admin-visible grant")
    account_set_spend_limit(user=user, limit=Decimal("100"))
    activity_record(grant=grant, method="GET", path="/api/v2/agents/me/", status_code=200, client="c", session="s")
    AgentSpend.objects.create(user=user, grant=grant, amount=Decimal("1.50"), description="a run")
    capability_suggestion_create(user=user, grant=grant, summary="draw a levee")
    project = make_project(user, name="Admin project", members={make_user("viewer"): "viewer"})
    event = flood_event_create(project=project, user=user, name="March 2022", started_at=timezone.now())
    observation_create(event=event, user=user, x=251100.0, y=6271900.0, quantity="peak_stage", value_m=12.3)
    ifd = (ARR / "Synthetic_IFD_Depths.csv").read_text()
    design_input_create(project=project, user=user, kind=DesignInputKind.IFD, name="ifd.csv", text=ifd)
    return grant


@pytest.mark.parametrize(
    "model",
    [
        "agents/agentaccount",
        "agents/agentgrant",
        "agents/agentactivity",
        "agents/agentspend",
        "agents/capabilitysuggestion",
        "anuga/map",
        "anuga/project",
        "anuga/projectmembership",
        "anuga/terrain",
        "anuga/terrainupload",
        "anuga/inputlayer",
        "anuga/timeseries",
        "anuga/scenario",
        "anuga/run",
        "anuga/scenarioapproval",
        "uploads/uploadexecution",
        "uploads/dataset",
        "observations/floodevent",
        "observations/observation",
        "observations/comparison",
        "studies/designinput",
        "studies/designstudy",
        "studies/designmember",
        "studies/designstudyapproval",
    ],
)
def test_every_models_changelist_answers_for_a_superuser(admin_browser, one_of_everything, model):
    response = admin_browser.get(f"/admin/{model}/")

    assert response.status_code == 200


def test_the_grant_changelist_shows_name_user_level_and_prefix(admin_browser, one_of_everything):
    body = admin_browser.get("/admin/agents/agentgrant/").content.decode()

    assert "admin-visible grant" in body
    assert one_of_everything.key_prefix in body
    assert "owner" in body


def test_a_grants_digest_is_shown_read_only_and_cannot_be_changed(admin_browser, one_of_everything):
    grant = one_of_everything
    url = f"/admin/agents/agentgrant/{grant.pk}/change/"

    page = admin_browser.get(url)

    assert page.status_code == 200
    body = page.content.decode()
    assert grant.key_digest in body
    assert 'name="key_digest"' not in body
    assert 'name="key_prefix"' not in body

    admin_browser.post(
        url, {"name": "renamed", "level": grant.level, "key_digest": "0" * 64, "key_prefix": "hk_forged"}
    )

    grant.refresh_from_db()
    assert grant.name == "renamed"
    assert grant.key_digest != "0" * 64 and grant.key_prefix != "hk_forged"


def test_grants_cannot_be_added_in_the_admin(admin_browser):
    assert admin_browser.get("/admin/agents/agentgrant/add/").status_code == 403


def test_the_admin_can_revoke_selected_grants(admin_browser, one_of_everything):
    response = admin_browser.post(
        "/admin/agents/agentgrant/",
        {
            "action": "revoke_selected",
            "_selected_action": [one_of_everything.pk],
        },
    )

    assert response.status_code == 302
    assert AgentGrant.objects.get(pk=one_of_everything.pk).revoked_at is not None


def test_agent_activity_is_read_only_in_the_admin(admin_browser, one_of_everything):
    entry = AgentActivity.objects.get()

    assert admin_browser.get("/admin/agents/agentactivity/add/").status_code == 403
    view = admin_browser.get(f"/admin/agents/agentactivity/{entry.pk}/change/")
    assert view.status_code == 200
    assert 'name="path"' not in view.content.decode()


def test_the_project_page_has_its_memberships_inline(admin_browser, one_of_everything):
    project = Project.objects.get(name="Admin project")

    body = admin_browser.get(f"/admin/anuga/project/{project.pk}/change/").content.decode()

    assert "memberships-TOTAL_FORMS" in body
    assert "viewer" in body


def test_a_non_staff_user_cannot_open_the_admin(client):
    client.force_login(make_user("plain"))

    response = client.get("/admin/agents/agentgrant/")

    assert response.status_code == 302


def test_a_revoked_grant_cannot_be_revived_in_the_admin(admin_browser, one_of_everything):
    grant = one_of_everything
    admin_browser.post("/admin/agents/agentgrant/", {"action": "revoke_selected", "_selected_action": [grant.pk]})

    admin_browser.post(
        f"/admin/agents/agentgrant/{grant.pk}/change/",
        {"name": grant.name, "level": grant.level, "revoked_at_0": "", "revoked_at_1": ""},
    )

    assert AgentGrant.objects.get(pk=grant.pk).revoked_at is not None


def test_pausing_an_account_in_the_admin_records_when(admin_browser, one_of_everything):
    account = AgentAccount.objects.get(user=one_of_everything.user)

    response = admin_browser.post(
        f"/admin/agents/agentaccount/{account.pk}/change/",
        {
            "user": account.user_id,
            "agents_paused": "on",
            "monthly_spend_limit": "100.00",
        },
    )

    assert response.status_code == 302
    account.refresh_from_db()
    assert account.agents_paused and account.paused_at is not None


def test_every_platform_model_has_an_admin():
    from django.apps import apps
    from django.contrib import admin

    ours = [model for model in apps.get_models() if model._meta.app_label in {"agents", "anuga", "uploads"}]

    assert [model.__name__ for model in ours if not admin.site.is_registered(model)] == []
