"""Keys are verified by the platform on every REST call a tool makes; the tool reports the refusal."""

import pytest

from hydrata.agents.models import AgentActivity
from tests.factories import make_grant, make_project, make_user
from tests.mcp_client import call

pytestmark = pytest.mark.django_db(transaction=True)


def error_text(result) -> str:
    assert result.is_error
    return result.content[0].text


def test_a_valid_key_lists_its_projects(live_asgi):
    grant, key = make_grant(level="read")
    make_project(grant.user, name="Mine")

    result = call(live_asgi.url, key, "list_projects")

    assert not result.is_error
    assert [p["name"] for p in result.structured_content["results"]] == ["Mine"]


def test_an_unknown_key_is_refused_with_401(live_asgi):
    result = call(live_asgi.url, "hk_" + "x" * 43, "list_projects")

    text = error_text(result)
    assert "HTTP 401" in text and "AGENT_KEY_INVALID" in text


def test_a_revoked_key_is_refused_and_the_attempt_is_logged(live_asgi):
    grant, key = make_grant(level="launch", revoked=True)

    text = error_text(call(live_asgi.url, key, "get_agent_grant"))

    assert "HTTP 401" in text and "AGENT_KEY_REVOKED" in text
    assert AgentActivity.objects.get(grant=grant).status_code == 401


def test_an_expired_key_is_refused(live_asgi):
    _, key = make_grant(level="launch", expired=True)

    text = error_text(call(live_asgi.url, key, "list_projects"))

    assert "HTTP 401" in text and "AGENT_KEY_EXPIRED" in text


def test_a_paused_account_refuses_every_agent_request(live_asgi):
    _, key = make_grant(level="launch", paused=True)

    for tool, arguments in [("list_projects", {}), ("create_project", {"name": "x", "projection": "EPSG:28356"})]:
        text = error_text(call(live_asgi.url, key, tool, arguments))
        assert "HTTP 403" in text and "AGENT_PAUSED" in text


def test_a_read_key_cannot_create_a_project_and_is_told_the_level_it_needs(live_asgi):
    grant, key = make_grant(level="read")

    text = error_text(call(live_asgi.url, key, "create_project", {"name": "x", "projection": "EPSG:28356"}))

    assert "HTTP 403" in text and "GRANT_LEVEL_TOO_LOW" in text and "draft" in text
    assert not grant.user.owned_projects.exists()


def test_a_draft_key_creates_a_project(live_asgi):
    grant, key = make_grant(level="draft")

    result = call(live_asgi.url, key, "create_project", {"name": "Creek", "projection": "EPSG:28356"})

    assert not result.is_error
    assert grant.user.owned_projects.get().name == "Creek"


def test_a_user_sees_only_projects_they_may_see(live_asgi):
    _, key = make_grant(level="read")
    stranger = make_user()
    private = make_project(stranger, name="Someone else's")
    public = make_project(stranger, name="Public", is_public=True)

    listed = call(live_asgi.url, key, "list_projects").structured_content["results"]
    hidden = call(live_asgi.url, key, "get_project", {"project_id": private.pk})
    visible = call(live_asgi.url, key, "get_project", {"project_id": public.pk})

    assert [p["name"] for p in listed] == ["Public"]
    assert "HTTP 404" in error_text(hidden) and "Someone else" not in error_text(hidden)
    assert visible.structured_content["role"] == "public"


def test_a_member_sees_a_shared_project_with_their_role(live_asgi):
    grant, key = make_grant(level="read")
    shared = make_project(make_user(), name="Shared", members={grant.user: "viewer"})

    result = call(live_asgi.url, key, "get_project", {"project_id": shared.pk})

    assert result.structured_content["role"] == "viewer"
