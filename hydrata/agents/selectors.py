import hmac
import uuid
from datetime import datetime
from decimal import Decimal

from django.contrib.auth.models import User
from django.db.models import QuerySet, Sum

from hydrata.agents.keys import code_digest, key_digest, key_is_well_formed
from hydrata.agents.models import AgentAccount, AgentActivity, AgentGrant, AgentSpend, CapabilitySuggestion
from hydrata.core.rows import from_row
from hydrata_contract.answers import agents as answers
from hydrata_contract.grants import GrantKind

CENT = Decimal("0.01")


def grant_for_key(*, key: str) -> AgentGrant | None:
    """The grant a key belongs to, whatever its state; None for a malformed or unknown key."""
    if not key_is_well_formed(key):
        return None
    digest = key_digest(key)
    grant = AgentGrant.objects.select_related("user", "user__agent_account").filter(key_digest=digest).first()
    if grant is None or grant.key_digest is None or not hmac.compare_digest(grant.key_digest, digest):
        return None
    return grant


def connect_grant_get(*, grant_id: int) -> AgentGrant | None:
    """A connected app's grant, whatever its state."""
    return _connect_grants().filter(pk=grant_id).first()


def connect_grant_for_code(*, code: str) -> AgentGrant | None:
    """The grant a consent created along with this authorization code, used or not."""
    return _connect_grants().filter(authorization_code_digest=code_digest(code)).first()


def connect_grant_for_family(*, token_family: uuid.UUID | None) -> AgentGrant | None:
    if token_family is None:
        return None
    return _connect_grants().filter(token_family=token_family).first()


def _connect_grants() -> QuerySet[AgentGrant]:
    return AgentGrant.objects.select_related("user", "user__agent_account", "application").filter(
        kind=GrantKind.CONNECT
    )


def grants_for_user(*, user: User, kind: str | None = None) -> QuerySet[AgentGrant]:
    grants = AgentGrant.objects.filter(user=user).order_by("revoked_at", "-created_at")
    return grants if kind is None else grants.filter(kind=kind)


def account_for_user(*, user: User) -> AgentAccount | None:
    return AgentAccount.objects.filter(user=user).first()


def account_is_paused(*, user: User) -> bool:
    try:
        return user.agent_account.agents_paused
    except AgentAccount.DoesNotExist:
        return False


def month_start(now: datetime) -> datetime:
    return now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def spend_used_this_month(*, user: User, now: datetime) -> Decimal:
    """In cents: SQLite sums decimals as floats, which would show as $0.0100000000000000."""
    total = AgentSpend.objects.filter(user=user, created_at__gte=month_start(now)).aggregate(total=Sum("amount"))
    return (total["total"] or Decimal("0")).quantize(CENT)


def agent_me(*, grant: AgentGrant, now: datetime) -> answers.AgentMe:
    """The calling grant: its account, whether it is paused, the spend used this month (as of `now`) and the limit."""
    account = account_for_user(user=grant.user)
    limit = account.monthly_spend_limit if account else None
    return from_row(
        answers.AgentMe,
        grant,
        account=grant.user.get_username(),
        paused=bool(account and account.agents_paused),
        spend_used_this_month=str(spend_used_this_month(user=grant.user, now=now)),
        spend_limit_monthly=None if limit is None else str(limit),
        currency="USD",
    )


def capability_suggestion_answer(*, suggestion: CapabilitySuggestion) -> answers.CapabilitySuggestion:
    return from_row(answers.CapabilitySuggestion, suggestion)


def activity_for_user(*, user: User, limit: int = 50) -> QuerySet[AgentActivity]:
    return AgentActivity.objects.filter(grant__user=user).select_related("grant")[:limit]


def grant_owned_by(*, user: User, grant_id: int) -> AgentGrant | None:
    """One of the user's own grants; None for another user's grant or an unknown id."""
    return AgentGrant.objects.filter(user=user, pk=grant_id).first()
