import hmac
from datetime import datetime
from decimal import Decimal

from django.contrib.auth.models import User
from django.db.models import QuerySet, Sum

from hydrata.agents.keys import key_digest, key_is_well_formed
from hydrata.agents.models import AgentAccount, AgentActivity, AgentGrant, AgentSpend

CENT = Decimal("0.01")


def grant_for_key(*, key: str) -> AgentGrant | None:
    """The grant a key belongs to, whatever its state; None for a malformed or unknown key."""
    if not key_is_well_formed(key):
        return None
    digest = key_digest(key)
    grant = AgentGrant.objects.select_related("user", "user__agent_account").filter(key_digest=digest).first()
    if grant is None or not hmac.compare_digest(grant.key_digest, digest):
        return None
    return grant


def grants_for_user(*, user: User) -> QuerySet[AgentGrant]:
    return AgentGrant.objects.filter(user=user).order_by("revoked_at", "-created_at")


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


def activity_for_user(*, user: User, limit: int = 50) -> QuerySet[AgentActivity]:
    return AgentActivity.objects.filter(grant__user=user).select_related("grant")[:limit]


def grant_owned_by(*, user: User, grant_id: int) -> AgentGrant | None:
    """One of the user's own grants; None for another user's grant or an unknown id."""
    return AgentGrant.objects.filter(user=user, pk=grant_id).first()
