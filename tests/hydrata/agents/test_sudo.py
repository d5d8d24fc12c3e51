"""Sudo mode, as GitHub's: on the /agents/ page and the consent page, an action that widens what agents may do
needs the password again unless the person signed in or entered it within HYDRATA_SUDO_SECONDS. A script riding a
signed-in session (stored script in a page, a forged form) knows no password, so it cannot do these.

Every test signs in on the real sign-in page and keeps a real session; the clock is moved with time-machine."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from hydrata.agents.models import AgentAccount, AgentGrant
from hydrata.agents.services import account_set_paused, account_set_runs_need_approval, account_set_spend_limit
from hydrata_contract.grants import GrantKind
from tests.factories import PASSWORD, make_grant, make_user, sign_in
from tests.hydrata.agents.test_pages import CREATE, KEY_IN_PAGE, PAGE, PAUSE, REVOKE_ALL, RUN_APPROVAL, SPEND_LIMIT
from tests.hydrata.oauth.flow import Pkce, authorize_url, consent, redirect_params, register

pytestmark = pytest.mark.django_db

WINDOW = 600
WRONG = "not-the-password-at-all"


@pytest.fixture(autouse=True)
def window(settings):
    settings.HYDRATA_SUDO_SECONDS = WINDOW
    cache.clear()  # wrong-password counts of an earlier test's user (ids come round again)


@pytest.fixture
def clock():
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        yield traveller


@pytest.fixture
def user():
    return make_user("alice")


@pytest.fixture
def stale(client, user, clock):
    """Signed in on the sign-in page longer ago than the window: a valid session, but no fresh password."""
    sign_in(client, user)
    clock.shift(timedelta(seconds=WINDOW + 1))
    return client


def _account(user: User) -> AgentAccount:
    return AgentAccount.objects.get(user=user)


def _nothing(user: User) -> None:
    return None


@dataclass(frozen=True)
class Action:
    url: str
    data: dict[str, str]
    done: Callable[[User], bool]
    arrange: Callable[[User], object] = field(default=_nothing)


WIDENING = {
    "create a launch key": Action(
        CREATE, {"name": "launcher", "level": "launch"}, lambda u: AgentGrant.objects.filter(level="launch").exists()
    ),
    "raise the spend limit": Action(
        SPEND_LIMIT,
        {"limit": "50"},
        lambda u: _account(u).monthly_spend_limit == Decimal("50"),
        lambda u: account_set_spend_limit(user=u, limit=Decimal("10")),
    ),
    "remove the spend limit": Action(
        SPEND_LIMIT,
        {"limit": ""},
        lambda u: _account(u).monthly_spend_limit is None,
        lambda u: account_set_spend_limit(user=u, limit=Decimal("10")),
    ),
    "switch run approval off": Action(
        RUN_APPROVAL,
        {"required": "0"},
        lambda u: not _account(u).runs_need_approval,
        lambda u: account_set_runs_need_approval(user=u, required=True),
    ),
    "resume paused agents": Action(
        PAUSE,
        {"paused": "0"},
        lambda u: not _account(u).agents_paused,
        lambda u: account_set_paused(user=u, paused=True),
    ),
}

NARROWING = {
    "create a draft key": Action(
        CREATE, {"name": "builder", "level": "draft"}, lambda u: AgentGrant.objects.filter(level="draft").exists()
    ),
    "create a read key": Action(
        CREATE, {"name": "reader", "level": "read"}, lambda u: AgentGrant.objects.filter(level="read").exists()
    ),
    "lower the spend limit": Action(
        SPEND_LIMIT,
        {"limit": "5"},
        lambda u: _account(u).monthly_spend_limit == Decimal("5"),
        lambda u: account_set_spend_limit(user=u, limit=Decimal("10")),
    ),
    "set a first spend limit": Action(
        SPEND_LIMIT, {"limit": "1000"}, lambda u: _account(u).monthly_spend_limit == Decimal("1000")
    ),
    "switch run approval on": Action(RUN_APPROVAL, {"required": "1"}, lambda u: _account(u).runs_need_approval),
    "pause agents": Action(PAUSE, {"paused": "1"}, lambda u: _account(u).agents_paused),
    "revoke every key": Action(
        REVOKE_ALL,
        {},
        lambda u: not AgentGrant.objects.filter(revoked_at__isnull=True).exists(),
        lambda u: make_grant(u, level="launch"),
    ),
}


def perform(client: Client, user: User, action: Action, **extra: str):
    action.arrange(user)
    return client.post(action.url, {**action.data, **extra})


def test_with_a_valid_session_but_no_fresh_password_a_launch_key_cannot_be_created(stale, user):
    response = stale.post(CREATE, {"name": "launcher", "level": "launch"})

    body = response.content.decode()
    assert response.status_code == 403
    assert "Creating a launch-level key needs your password" in body
    assert not KEY_IN_PAGE.search(body)
    assert not AgentGrant.objects.filter(user=user).exists()


@pytest.mark.parametrize("name", WIDENING)
def test_with_a_valid_session_but_no_fresh_password_what_widens_agents_is_refused_and_changes_nothing(
    stale, user, name
):
    response = perform(stale, user, WIDENING[name])

    assert response.status_code == 403
    assert "needs your password" in response.content.decode()
    assert not WIDENING[name].done(user)


@pytest.mark.parametrize("name", WIDENING)
def test_what_widens_agents_goes_through_with_the_password_entered_again(stale, user, name):
    response = perform(stale, user, WIDENING[name], password=PASSWORD)

    assert response.status_code in (200, 302), response.content.decode()
    assert WIDENING[name].done(user)


@pytest.mark.parametrize("name", WIDENING)
def test_a_wrong_password_is_refused_changes_nothing_and_is_not_shown_back(stale, user, name):
    response = perform(stale, user, WIDENING[name], password=WRONG)

    body = response.content.decode()
    assert response.status_code == 403
    assert "That is not your password" in body and WRONG not in body
    assert not WIDENING[name].done(user)


@pytest.mark.parametrize("name", WIDENING)
@pytest.mark.parametrize(
    ("seconds", "allowed"), [(WINDOW - 1, True), (WINDOW + 1, False)], ids=["just-inside", "just-outside"]
)
def test_a_sign_in_counts_as_the_password_for_the_window_and_not_a_second_longer(
    client, user, clock, name, seconds, allowed
):
    sign_in(client, user)
    clock.shift(timedelta(seconds=seconds))

    response = perform(client, user, WIDENING[name])

    expected = (200 if name == "create a launch key" else 302) if allowed else 403
    assert response.status_code == expected
    assert WIDENING[name].done(user) is allowed


def test_entering_the_password_counts_for_a_new_window(stale, user, clock):
    first = stale.post(CREATE, {"name": "first", "level": "launch", "password": PASSWORD})
    clock.shift(timedelta(seconds=WINDOW - 1))
    second = stale.post(CREATE, {"name": "second", "level": "launch"})
    clock.shift(timedelta(seconds=2))
    third = stale.post(CREATE, {"name": "third", "level": "launch"})

    assert (first.status_code, second.status_code, third.status_code) == (200, 200, 403)
    assert set(AgentGrant.objects.values_list("name", flat=True)) == {"first", "second"}


def test_a_session_signed_in_on_the_admin_needs_the_password_on_the_agents_page(client):
    staff = make_user("sam", is_staff=True)
    signed_in = client.post("/admin/login/?next=/admin/", {"username": "sam", "password": PASSWORD, "next": "/admin/"})

    refused = client.post(CREATE, {"name": "launcher", "level": "launch"})
    allowed = client.post(CREATE, {"name": "launcher", "level": "launch", "password": PASSWORD})

    assert signed_in.status_code == 302 and signed_in["Location"] == "/admin/"
    assert refused.status_code == 403 and allowed.status_code == 200
    assert AgentGrant.objects.get(user=staff).level == "launch"


@pytest.mark.parametrize("name", NARROWING)
def test_what_does_not_widen_agents_needs_no_password(stale, user, name):
    response = perform(stale, user, NARROWING[name])

    assert response.status_code in (200, 302), response.content.decode()
    assert NARROWING[name].done(user)


def test_revoking_one_key_needs_no_password(stale, user):
    grant, _ = make_grant(user, level="launch")

    response = stale.post(f"/agents/grants/{grant.pk}/revoke/")

    grant.refresh_from_db()
    assert response.status_code == 302 and grant.revoked_at is not None


def test_too_many_wrong_passwords_refuse_even_the_right_one_until_the_window_passes(stale, user, clock, settings):
    settings.HYDRATA_SUDO_MAX_FAILURES = 3
    launch = {"name": "launcher", "level": "launch"}

    wrong = [stale.post(CREATE, {**launch, "password": WRONG}).status_code for _ in range(3)]
    held = stale.post(CREATE, {**launch, "password": PASSWORD})
    clock.shift(timedelta(seconds=WINDOW + 1))
    later = stale.post(CREATE, {**launch, "password": PASSWORD})

    assert wrong == [403, 403, 403]
    assert held.status_code == 403 and "Too many wrong passwords" in held.content.decode()
    assert later.status_code == 200
    assert AgentGrant.objects.filter(user=user).count() == 1


def test_the_page_asks_for_the_password_only_when_it_is_needed(client, user, clock):
    account_set_runs_need_approval(user=user, required=True)
    account_set_spend_limit(user=user, limit=Decimal("10"))
    sign_in(client, user)

    fresh = client.get(PAGE).content.decode()
    clock.shift(timedelta(seconds=WINDOW + 1))
    stale = client.get(PAGE).content.decode()

    assert 'type="password"' not in fresh
    # creating a key, the spend limit, removing it, and switching approval off
    assert stale.count('type="password"') == 4
    assert "needs your password" not in stale  # asked for, not yet refused


def _launch_consent(browser: Client, **fields: str):
    client_id = register(Client())["client_id"]
    return consent(browser, authorize_url(client_id, Pkce()), level="launch", **fields)


def test_with_a_valid_session_but_no_fresh_password_an_app_cannot_be_connected_at_launch_level(stale, user):
    response = _launch_consent(stale)

    assert response.status_code == 403
    assert "Connecting an app at launch level needs your password" in response.content.decode()
    assert not AgentGrant.objects.filter(kind=GrantKind.CONNECT).exists()


def test_an_app_is_connected_at_launch_level_with_the_password_entered_again(stale, user):
    response = _launch_consent(stale, password=PASSWORD)

    assert "code" in redirect_params(response)
    assert AgentGrant.objects.get(user=user, kind=GrantKind.CONNECT).level == "launch"


def test_a_wrong_password_on_the_consent_page_connects_nothing(stale, user):
    response = _launch_consent(stale, password=WRONG)

    assert response.status_code == 403 and WRONG not in response.content.decode()
    assert not AgentGrant.objects.filter(kind=GrantKind.CONNECT).exists()


def test_signing_in_when_the_consent_page_asks_connects_at_launch_level_without_asking_again(client, user, clock):
    url = authorize_url(register(Client())["client_id"], Pkce())
    to_sign_in = client.get(url)
    signed_in = client.post(to_sign_in["Location"], {"username": "alice", "password": PASSWORD, "next": url})
    clock.shift(timedelta(seconds=WINDOW - 1))

    response = consent(client, url, level="launch")

    assert signed_in.status_code == 302 and signed_in["Location"] == url
    assert "code" in redirect_params(response)
    assert AgentGrant.objects.get(user=user, kind=GrantKind.CONNECT).level == "launch"


def test_connecting_an_app_below_launch_level_needs_no_password(stale, user):
    client_id = register(Client())["client_id"]

    response = consent(stale, authorize_url(client_id, Pkce()), level="draft")

    assert "code" in redirect_params(response)
    assert AgentGrant.objects.get(user=user, kind=GrantKind.CONNECT).level == "draft"


def test_the_consent_page_asks_for_the_password_only_when_it_is_needed(client, user, clock):
    url = authorize_url(register(Client())["client_id"], Pkce())
    sign_in(client, user)

    fresh = client.get(url).content.decode()
    clock.shift(timedelta(seconds=WINDOW + 1))
    stale = client.get(url).content.decode()

    assert 'type="password"' not in fresh and stale.count('type="password"') == 1
