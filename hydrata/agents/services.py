import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import AbstractApplication, get_refresh_token_model

from hydrata.agents.keys import code_digest, key_digest, key_display_prefix, key_generate
from hydrata.agents.models import AgentAccount, AgentActivity, AgentGrant, AgentSpend, CapabilitySuggestion
from hydrata.agents.selectors import CENT, spend_used_this_month
from hydrata.core.errors import SpendLimitExceeded, ValidationFailed
from hydrata_contract.errors import ErrorCode
from hydrata_contract.grants import GrantKind, GrantLevel

MAX_GRANT_NAME_LENGTH = 100


def grant_create(*, user: User, name: str, level: str, expires_at: datetime | None = None) -> tuple[AgentGrant, str]:
    """Create a grant and return it with its key. The key exists only in this return value."""
    name = name.strip()
    if not name or len(name) > MAX_GRANT_NAME_LENGTH:
        raise ValidationFailed(
            f"A grant needs a name of 1 to {MAX_GRANT_NAME_LENGTH} characters.", code=ErrorCode.INVALID_NAME
        )
    _check_level_and_expiry(level=level, expires_at=expires_at)
    key = key_generate()
    grant = AgentGrant.objects.create(
        user=user,
        name=name,
        level=level,
        key_prefix=key_display_prefix(key),
        key_digest=key_digest(key),
        expires_at=expires_at,
    )
    return grant, key


def _check_level_and_expiry(*, level: str, expires_at: datetime | None) -> None:
    if level not in GrantLevel.values():
        raise ValidationFailed(f"level must be one of {', '.join(GrantLevel.values())}.", code=ErrorCode.INVALID_LEVEL)
    if expires_at is not None and expires_at <= timezone.now():
        raise ValidationFailed("The expiry must be in the future.", code=ErrorCode.INVALID_EXPIRY)


def connect_grant_create(
    *,
    user: User,
    application: AbstractApplication,
    client_host: str,
    level: str,
    expires_at: datetime | None,
    authorization_code: str,
) -> AgentGrant:
    """The grant a person's consent creates for an OAuth client; the code and every token issued from it
    belong to it. Only a digest of the code is kept, to recognise the code if it is ever presented again."""
    _check_level_and_expiry(level=level, expires_at=expires_at)
    name = (application.name or client_host or application.client_id).strip()[:MAX_GRANT_NAME_LENGTH]
    return AgentGrant.objects.create(
        user=user,
        kind=GrantKind.CONNECT,
        name=name,
        level=level,
        expires_at=expires_at,
        application=application,
        client_host=client_host[:255],
        authorization_code_digest=code_digest(authorization_code),
    )


def connect_grant_bind_tokens(*, grant: AgentGrant, token_family: uuid.UUID) -> None:
    """Tie the refresh-token family of a connection's first token exchange to its grant (rotation keeps it)."""
    AgentGrant.objects.filter(pk=grant.pk, token_family__isnull=True).update(token_family=token_family)
    grant.token_family = token_family


def _connect_tokens_revoke(*, families: Iterable[uuid.UUID | None]) -> None:
    """Revoke every refresh token of these families and delete their access tokens (the library's own way)."""
    refresh_token_model = get_refresh_token_model()
    for family in families:
        if family is not None:
            refresh_token_model.revoke_family(family)


@transaction.atomic
def grant_revoke(*, grant: AgentGrant) -> AgentGrant:
    """Revoke a grant: a key stops working, a connected app loses its access and refresh tokens at once."""
    if grant.revoked_at is None:
        grant.revoked_at = timezone.now()
        grant.save(update_fields=["revoked_at"])
    _connect_tokens_revoke(families=[grant.token_family])
    return grant


@transaction.atomic
def grants_revoke_all(*, user: User) -> int:
    active = AgentGrant.objects.filter(user=user, revoked_at__isnull=True)
    families = list(active.filter(kind=GrantKind.CONNECT).values_list("token_family", flat=True))
    count = active.update(revoked_at=timezone.now())
    _connect_tokens_revoke(families=families)
    return count


def grant_touch(*, grant: AgentGrant, now: datetime) -> None:
    """Record use, at most once per throttle window so busy agents do not write on every request."""
    window = timedelta(seconds=settings.HYDRATA_GRANT_LAST_USED_THROTTLE_SECONDS)
    if grant.last_used_at is not None and now - grant.last_used_at < window:
        return
    AgentGrant.objects.filter(pk=grant.pk).update(last_used_at=now)
    grant.last_used_at = now


def account_get_or_create(*, user: User) -> AgentAccount:
    account, _ = AgentAccount.objects.get_or_create(user=user)
    return account


@transaction.atomic
def account_set_paused(*, user: User, paused: bool) -> AgentAccount:
    account = account_get_or_create(user=user)
    account.agents_paused = paused
    account.paused_at = timezone.now() if paused else None
    account.save(update_fields=["agents_paused", "paused_at"])
    return account


def account_set_runs_need_approval(*, user: User, required: bool) -> AgentAccount:
    account = account_get_or_create(user=user)
    account.runs_need_approval = required
    account.save(update_fields=["runs_need_approval"])
    return account


def account_set_spend_limit(*, user: User, limit: Decimal | None) -> AgentAccount:
    if limit is not None and limit < 0:
        raise ValidationFailed("The spend limit cannot be negative.", code=ErrorCode.INVALID_SPEND_LIMIT)
    account = account_get_or_create(user=user)
    account.monthly_spend_limit = limit
    account.save(update_fields=["monthly_spend_limit"])
    return account


def activity_record(
    *, grant: AgentGrant, method: str, path: str, status_code: int, client: str, session: str
) -> AgentActivity:
    return AgentActivity.objects.create(
        grant=grant,
        method=method[:10],
        path=path[:500],
        status_code=status_code,
        client=client[:100],
        session=session[:64],
    )


def capability_suggestion_create(
    *, user: User, grant: AgentGrant | None, summary: str, details: str = "", workflow: str = ""
) -> CapabilitySuggestion:
    return CapabilitySuggestion.objects.create(
        user=user, grant=grant, summary=summary, details=details, workflow=workflow
    )


@transaction.atomic
def agent_spend_refund(*, reference: str, keep: Decimal, description: str) -> Decimal:
    """Give back what agents were charged under `reference` beyond `keep`, as a negative entry dated now, so this
    month's spend falls by it. Returns the refund: 0 when nothing more was charged (a person's own run, or one
    refunded already)."""
    charges = list(AgentSpend.objects.select_for_update().filter(reference=reference).order_by("created_at"))
    refund = (sum((charge.amount for charge in charges), Decimal("0")) - keep).quantize(CENT)
    if not charges or refund <= 0:
        return Decimal("0")
    first = charges[0]
    AgentSpend.objects.create(
        user=first.user, grant=first.grant, amount=-refund, description=description[:200], reference=reference
    )
    return refund


@transaction.atomic
def agent_spend_rereference(*, reference: str, to: str, description: str) -> int:
    """Move what was charged under `reference` to `to` (a study's prepaid member, to the run that became it), so that
    a refund of `to` gives it back; the month's spend is unchanged. Returns how many entries moved."""
    return AgentSpend.objects.filter(reference=reference).update(reference=to[:100], description=description[:200])


@dataclass(frozen=True)
class SpendItem:
    amount: Decimal
    description: str
    reference: str


@transaction.atomic
def agent_spend_charge(*, grant: AgentGrant, amount: Decimal, description: str, reference: str) -> AgentSpend:
    """Record what an agent spends, refusing (402) when it would take the month past the account's limit."""
    return agent_spend_charge_all(
        grant=grant, items=[SpendItem(amount=amount, description=description, reference=reference)]
    )[0]


@transaction.atomic
def agent_spend_charge_all(*, grant: AgentGrant, items: list[SpendItem]) -> list[AgentSpend]:
    """Charge every item or none (402 when their sum would take the month past the account's limit), under the
    account's row lock, so no other charge of the account lands between the check and the entries."""
    account = AgentAccount.objects.select_for_update().filter(user=grant.user).first()
    limit = account.monthly_spend_limit if account else None
    amount = sum((item.amount for item in items), Decimal("0"))
    if limit is not None:
        used = spend_used_this_month(user=grant.user, now=timezone.now())
        if used + amount > limit:
            raise SpendLimitExceeded(
                f"This costs ${amount}; the account has spent ${used} of its ${limit} monthly agent limit. The "
                "account owner can raise the limit on the /agents/ page.",
                price=str(amount),
                spent_this_month=str(used),
                limit=str(limit),
            )
    return AgentSpend.objects.bulk_create(
        AgentSpend(
            user=grant.user,
            grant=grant,
            amount=item.amount,
            description=item.description[:200],
            reference=item.reference[:100],
        )
        for item in items
    )
