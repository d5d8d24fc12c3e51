"""The month an agent's spend is counted in: from its first instant (UTC) to its last, on both sides of each edge."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
import time_machine

from hydrata.agents.selectors import spend_used_this_month
from hydrata.agents.services import account_set_spend_limit, agent_spend_charge
from hydrata.core.errors import SpendLimitExceeded
from tests.factories import make_grant

pytestmark = pytest.mark.django_db

FIRST = datetime(2026, 12, 1, tzinfo=UTC)  # the first instant of December
INSTANT = timedelta(microseconds=1)


def charge(grant, amount: str, *, at: datetime) -> None:
    with time_machine.travel(at, tick=False):
        agent_spend_charge(grant=grant, amount=Decimal(amount), description="run", reference="run:1")


def test_a_charge_in_the_last_instant_of_a_month_counts_in_that_month_and_one_at_the_first_in_the_next():
    grant, _ = make_grant(level="launch")
    charge(grant, "1.00", at=FIRST - INSTANT)
    assert spend_used_this_month(user=grant.user, now=FIRST - INSTANT) == Decimal("1.00")

    charge(grant, "2.00", at=FIRST)

    assert spend_used_this_month(user=grant.user, now=FIRST) == Decimal("2.00")
    assert spend_used_this_month(user=grant.user, now=datetime(2026, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)) == 2
    assert spend_used_this_month(user=grant.user, now=datetime(2027, 1, 1, tzinfo=UTC)) == 0


def test_the_limit_refuses_a_charge_one_cent_past_it_and_takes_one_that_reaches_it_exactly():
    grant, _ = make_grant(level="launch")
    account_set_spend_limit(user=grant.user, limit=Decimal("3.00"))
    charge(grant, "1.00", at=FIRST - INSTANT)  # last month's: does not count against December
    charge(grant, "2.00", at=FIRST)

    with pytest.raises(SpendLimitExceeded):
        charge(grant, "1.01", at=FIRST + timedelta(days=3))
    charge(grant, "1.00", at=FIRST + timedelta(days=3))

    assert spend_used_this_month(user=grant.user, now=FIRST + timedelta(days=3)) == Decimal("3.00")
