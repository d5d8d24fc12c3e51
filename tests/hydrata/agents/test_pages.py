"""The /agents/ page: a person creates, sees and revokes grants, pauses agents and caps their spending."""

import hashlib
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from hydrata.agents.models import AgentAccount, AgentGrant, AgentSpend
from hydrata.agents.services import account_set_paused, account_set_spend_limit, activity_record
from tests.factories import make_grant, make_user, sign_in

pytestmark = pytest.mark.django_db

PAGE = "/agents/"
CREATE = "/agents/grants/new/"
REVOKE_ALL = "/agents/grants/revoke-all/"
PAUSE = "/agents/pause/"
SPEND_LIMIT = "/agents/spend-limit/"
RUN_APPROVAL = "/agents/run-approval/"
KEY_IN_PAGE = re.compile(r"hk_[A-Za-z0-9_-]{43,128}")


def revoke_url(grant: AgentGrant) -> str:
    return f"/agents/grants/{grant.pk}/revoke/"


@pytest.fixture
def user():
    return make_user("alice")


@pytest.fixture
def signed_in(client, user):
    """Signed in on the sign-in page just now, so what widens agents needs no password again (tests/hydrata/agents/
    test_sudo.py covers the password)."""
    return sign_in(client, user)


def test_the_page_lists_the_users_own_grants_and_not_other_peoples(signed_in, user):
    make_grant(user, name="laptop agent", level="read")
    make_grant(user, name="old key", revoked=True)
    make_grant(make_user("bob"), name="bobs secret agent")

    response = signed_in.get(PAGE)

    assert response.status_code == 200
    body = response.content.decode()
    assert "laptop agent" in body and "old key" in body
    assert "bobs secret agent" not in body
    assert "revoked" in body and "active" in body
    laptop = AgentGrant.objects.get(name="laptop agent")
    assert laptop.key_prefix in body


@pytest.mark.parametrize(
    "url", [PAGE, CREATE, REVOKE_ALL, PAUSE, SPEND_LIMIT, RUN_APPROVAL, "/agents/grants/1/revoke/"]
)
def test_anonymous_visitors_are_sent_to_sign_in(client, url):
    response = client.post(url) if url != PAGE else client.get(url)

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_creating_a_grant_shows_the_key_once(signed_in, user):
    response = signed_in.post(CREATE, {"name": "CI runner", "level": "draft"})

    assert response.status_code == 200
    grant = AgentGrant.objects.get(user=user, name="CI runner")
    body = response.content.decode()
    key = KEY_IN_PAGE.search(body).group(0)
    assert key.startswith(grant.key_prefix)
    assert "will not be shown again" in body
    assert f"Authorization: Bearer {key}" in body
    assert "no-store" in response["Cache-Control"]

    # Only the digest is stored, and the key never comes back on a later visit.
    assert grant.key_digest == hashlib.sha256(key.encode()).hexdigest()
    assert key not in {value for value in vars(grant).values() if isinstance(value, str)}
    later = signed_in.get(PAGE).content.decode()
    assert "CI runner" in later
    assert key not in later
    assert "will not be shown again" not in later


def test_the_new_key_is_not_kept_in_the_session(signed_in, user):
    response = signed_in.post(CREATE, {"name": "probe", "level": "read"})
    grant = AgentGrant.objects.get(user=user, name="probe")

    assert response.status_code == 200
    key = KEY_IN_PAGE.search(response.content.decode()).group(0)
    assert key.startswith(grant.key_prefix)
    assert all(grant.key_prefix not in str(value) for value in signed_in.session.values())
    assert all(key not in morsel.value for morsel in response.cookies.values())


def test_a_grant_with_an_expiry_date_stops_at_the_end_of_that_day(signed_in, user):
    day = timezone.localdate() + timedelta(days=10)

    response = signed_in.post(CREATE, {"name": "short-lived", "level": "launch", "expires_on": day.isoformat()})

    assert response.status_code == 200
    grant = AgentGrant.objects.get(user=user, name="short-lived")
    assert grant.level == "launch"
    assert timezone.localtime(grant.expires_at).date() == day + timedelta(days=1)


def test_an_expiry_in_the_past_is_shown_as_a_form_error(signed_in, user):
    yesterday = timezone.localdate() - timedelta(days=2)

    response = signed_in.post(CREATE, {"name": "too late", "level": "read", "expires_on": yesterday.isoformat()})

    assert response.status_code == 400
    assert "The expiry must be in the future." in response.content.decode()
    assert not AgentGrant.objects.filter(user=user).exists()


def test_a_blank_name_or_unknown_level_creates_nothing(signed_in, user):
    blank = signed_in.post(CREATE, {"name": "   ", "level": "read"})
    unknown = signed_in.post(CREATE, {"name": "x", "level": "admin"})

    assert blank.status_code == 400 and unknown.status_code == 400
    assert not KEY_IN_PAGE.search(blank.content.decode() + unknown.content.decode())
    assert not AgentGrant.objects.filter(user=user).exists()


def test_the_level_choices_are_explained(signed_in):
    body = signed_in.get(PAGE).content.decode()

    assert "Cannot change anything" in body
    assert "Cannot start runs that cost money" in body
    assert "spend money" in body


def test_revoking_a_grant_redirects_back_and_marks_it_revoked(signed_in, user):
    grant, _ = make_grant(user, name="to revoke")

    response = signed_in.post(revoke_url(grant))

    assert response.status_code == 302 and response["Location"] == PAGE
    grant.refresh_from_db()
    assert grant.revoked_at is not None
    assert "Revoked “to revoke”" in signed_in.get(PAGE).content.decode()


def test_revoking_another_users_grant_is_404(signed_in):
    other, _ = make_grant(make_user("bob"), name="bobs")

    response = signed_in.post(revoke_url(other))

    assert response.status_code == 404
    other.refresh_from_db()
    assert other.revoked_at is None


def test_revoke_needs_a_post(signed_in, user):
    grant, _ = make_grant(user)

    assert signed_in.get(revoke_url(grant)).status_code == 405
    grant.refresh_from_db()
    assert grant.revoked_at is None


def test_revoking_all_grants_revokes_only_the_users_own(signed_in, user):
    make_grant(user, name="a")
    make_grant(user, name="b")
    bobs, _ = make_grant(make_user("bob"))

    response = signed_in.post(REVOKE_ALL)

    assert response.status_code == 302
    assert not AgentGrant.objects.filter(user=user, revoked_at__isnull=True).exists()
    bobs.refresh_from_db()
    assert bobs.revoked_at is None
    assert "Revoked 2 grants" in signed_in.get(PAGE).content.decode()


def test_posts_without_a_csrf_token_are_refused(user):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    make_grant(user, name="kept")

    response = browser.post(REVOKE_ALL)

    assert response.status_code == 403
    assert AgentGrant.objects.get(user=user).revoked_at is None


def test_pausing_and_resuming_toggles_agent_access(signed_in, user):
    paused = signed_in.post(PAUSE, {"paused": "1"})

    assert paused.status_code == 302
    account = AgentAccount.objects.get(user=user)
    assert account.agents_paused and account.paused_at is not None
    page = signed_in.get(PAGE).content.decode()
    assert "Resume agent access" in page

    resumed = signed_in.post(PAUSE, {"paused": "0"})

    assert resumed.status_code == 302
    account.refresh_from_db()
    assert not account.agents_paused and account.paused_at is None
    assert "Pause all agent access" in signed_in.get(PAGE).content.decode()


def test_a_malformed_pause_request_changes_nothing(signed_in, user):
    response = signed_in.post(PAUSE, {"paused": "maybe"})

    assert response.status_code == 400
    assert not AgentAccount.objects.filter(user=user, agents_paused=True).exists()


def test_setting_and_clearing_the_spend_limit(signed_in, user):
    set_response = signed_in.post(SPEND_LIMIT, {"limit": "250.50"})

    assert set_response.status_code == 302
    assert AgentAccount.objects.get(user=user).monthly_spend_limit == Decimal("250.50")
    assert "$250.50" in signed_in.get(PAGE).content.decode()

    clear_response = signed_in.post(SPEND_LIMIT, {"limit": ""})

    assert clear_response.status_code == 302
    assert AgentAccount.objects.get(user=user).monthly_spend_limit is None
    assert "no monthly limit" in signed_in.get(PAGE).content.decode()


def test_a_negative_spend_limit_shows_the_services_error(signed_in, user):
    account_set_spend_limit(user=user, limit=Decimal("10"))

    response = signed_in.post(SPEND_LIMIT, {"limit": "-5"})

    assert response.status_code == 400
    assert "The spend limit cannot be negative." in response.content.decode()
    assert AgentAccount.objects.get(user=user).monthly_spend_limit == Decimal("10.00")


def test_the_page_shows_spend_used_this_month(signed_in, user):
    AgentSpend.objects.create(user=user, amount=Decimal("12.34"), description="run 1")
    AgentSpend.objects.create(user=make_user("bob"), amount=Decimal("99.00"), description="not alice's")

    body = signed_in.get(PAGE).content.decode()

    assert "$12.34" in body
    assert "$99.00" not in body


def test_money_on_the_page_is_shown_in_dollars_and_cents(signed_in, user):
    for amount in ("0.01", "0.10", "1.20"):
        AgentSpend.objects.create(user=user, amount=Decimal(amount), description="a run")
    account_set_spend_limit(user=user, limit=Decimal("5"))

    body = signed_in.get(PAGE).content.decode()

    assert "Spent by agents this month: <strong>$1.31</strong>" in body
    assert "<strong>$5.00</strong> monthly limit" in body
    assert not re.search(r"\$\d+\.\d{3,}", body), re.search(r"\$\d+\.\d{3,}", body)


def test_the_page_shows_the_latest_agent_activity(signed_in, user):
    grant, _ = make_grant(user, name="activity agent")
    activity_record(
        grant=grant,
        method="POST",
        path="/api/v2/anuga/projects/",
        status_code=201,
        client="claude-desktop",
        session="s1",
    )
    bobs, _ = make_grant(make_user("bob"), name="bob agent")
    activity_record(
        grant=bobs, method="GET", path="/api/v2/secret-bob-path/", status_code=200, client="x", session="s2"
    )

    body = signed_in.get(PAGE).content.decode()

    assert "/api/v2/anuga/projects/" in body and "claude-desktop" in body and "201" in body
    assert "secret-bob-path" not in body


def test_names_are_escaped_on_the_page(signed_in, user):
    make_grant(user, name="<script>alert(1)</script>")

    body = signed_in.get(PAGE).content.decode()

    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_a_paused_account_is_shown_as_paused(signed_in, user):
    account_set_paused(user=user, paused=True)

    body = signed_in.get(PAGE).content.decode()

    assert "All agent access is paused" in body


def test_an_ordinary_account_signs_in_on_the_site_login_page_and_out_again(user):
    browser = Client()

    signed_in = browser.post(
        "/accounts/login/?next=/agents/", {"username": "alice", "password": "a-long-test-password", "next": "/agents/"}
    )
    page = browser.get(PAGE)
    signed_out = browser.post("/accounts/logout/")

    assert signed_in.status_code == 302 and signed_in["Location"] == "/agents/"
    assert page.status_code == 200
    assert signed_out.status_code == 302 and browser.get(PAGE).status_code == 302


def test_the_approval_switch_is_off_by_default_and_turns_on_and_off(signed_in, user):
    before = signed_in.get(PAGE).content.decode()

    on = signed_in.post(RUN_APPROVAL, {"required": "1"})
    while_on = signed_in.get(PAGE).content.decode()
    signed_in.post(RUN_APPROVAL, {"required": "0"})

    assert "Agents with a launch key start runs without asking." in before
    assert on.status_code == 302
    assert "Agents need my approval before they start a run: they are refused" in while_on
    assert AgentAccount.objects.get(user=user).runs_need_approval is False


def test_the_approval_switch_refuses_a_post_that_says_neither(signed_in, user):
    response = signed_in.post(RUN_APPROVAL, {"required": "maybe"})

    assert response.status_code == 400
    assert not AgentAccount.objects.filter(user=user, runs_need_approval=True).exists()
