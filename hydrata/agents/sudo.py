"""Sudo mode, as GitHub's: an action that widens what agents may do on an account needs the person's password
again, unless they signed in or entered it within HYDRATA_SUDO_SECONDS.

A script riding a signed-in browser (stored script in a page, a forged form) has the session but not the
password, so it cannot create a launch-level key, raise the spend limit, switch run approval off, resume paused
agents or connect an app at launch level. What narrows agents (a read or draft key, a lower limit, approval on,
pause, revoke) needs nothing more than the session: it must stay one click away.

The moment of the last sign-in or password is kept in the session, not taken from the user's `last_login`, which
a sign-in in another browser would refresh for this one too.
"""

from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.backends.base import SessionBase
from django.core.cache import cache
from django.utils import timezone

from hydrata.agents.selectors import account_for_user
from hydrata.core.errors import PasswordRequired
from hydrata_contract.grants import GrantLevel

SESSION_KEY = "hydrata_sudo_at"


def sudo_start(*, session: SessionBase, now: datetime | None = None) -> None:
    """The person has just proved who they are (signed in, or entered the password): a new window starts."""
    session[SESSION_KEY] = (now or timezone.now()).timestamp()


def sudo_active(*, session: SessionBase, now: datetime | None = None) -> bool:
    """Whether this session signed in or entered the password within HYDRATA_SUDO_SECONDS."""
    started = session.get(SESSION_KEY)
    if not isinstance(started, int | float):
        return False
    elapsed = (now or timezone.now()).timestamp() - started
    return 0 <= elapsed <= settings.HYDRATA_SUDO_SECONDS


def sudo_require(*, session: SessionBase, user: User, password: str, action: str, now: datetime | None = None) -> None:
    """Pass when the session is in sudo mode or `password` is the user's (which starts a new window); otherwise
    raise PasswordRequired (403) saying what to do. `action` names what was asked for, as a sentence's subject.

    Wrong passwords are counted per user: after HYDRATA_SUDO_MAX_FAILURES of them the password is not checked
    until the window has passed, so the form is no way to guess it."""
    now = now or timezone.now()
    if sudo_active(session=session, now=now):
        return
    minutes = sudo_window_minutes()
    if not password:
        raise PasswordRequired(
            f"{action} needs your password: enter it and try again. It is asked for when you have not signed in "
            f"or entered it in the last {minutes} minutes."
        )
    failures = _failures_key(user)
    if cache.get(failures, 0) >= settings.HYDRATA_SUDO_MAX_FAILURES:
        raise PasswordRequired(
            f"Too many wrong passwords. {action} needs your password; try again in {minutes} minutes, or sign out "
            "and sign in again."
        )
    if not user.check_password(password):
        cache.add(failures, 0, timeout=settings.HYDRATA_SUDO_SECONDS)
        cache.incr(failures)
        raise PasswordRequired(f"That is not your password. {action} needs your password.")
    cache.delete(failures)
    sudo_start(session=session, now=now)


def sudo_window_minutes() -> int:
    return max(1, round(settings.HYDRATA_SUDO_SECONDS / 60))


def _failures_key(user: User) -> str:
    return f"hydrata-sudo-failures:{user.pk}"


def grant_level_widens(*, level: str) -> bool:
    """A launch-level grant spends money; read and draft grants are the everyday ones."""
    return level == GrantLevel.LAUNCH


def spend_limit_widens(*, user: User, limit: Decimal | None) -> bool:
    """Any raise: to a higher limit, or to none (no limit is the widest). A first limit, or a lower one, narrows."""
    account = account_for_user(user=user)
    current = account.monthly_spend_limit if account else None
    if current is None:
        return False
    return limit is None or limit > current


def run_approval_widens(*, user: User, required: bool) -> bool:
    """Switching the approval off lets launch grants start runs nobody signed off."""
    account = account_for_user(user=user)
    return not required and bool(account and account.runs_need_approval)


def resume_widens(*, user: User, paused: bool) -> bool:
    """Resuming gives every active grant its access back at once."""
    account = account_for_user(user=user)
    return not paused and bool(account and account.agents_paused)
