"""What a cancelled run costs the agent that started it: its price times the share computed, the rest given back
once to this month's spend; on both sides of each edge (nothing computed, all of it, and a share between)."""

from decimal import Decimal

import pytest
from django.utils import timezone

from hydrata.agents.models import AgentSpend
from hydrata.agents.selectors import spend_used_this_month
from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.services.charges import run_charge, run_cost_of_computed
from hydrata_contract.states import RunStatus
from tests.factories import make_grant, make_project

pytestmark = pytest.mark.django_db


def charged_run(price: str) -> tuple[Run, object]:
    grant, _ = make_grant(level="launch")
    scenario = Scenario.objects.create(project=make_project(grant.user), name="s", resolution=10, duration=600)
    run = Run.objects.create(
        scenario=scenario, status=RunStatus.COMPUTING, resolution=10, duration=600, compute_cost=Decimal(price)
    )
    run_charge(run=run, grant=grant, price=run.compute_cost)
    return run, grant


@pytest.mark.parametrize(
    "share, cost, refund",
    [
        (0.0, "0.00", "1.25"),
        (0.4, "0.50", "0.75"),
        (0.999, "1.25", "0.00"),
        (1.0, "1.25", "0.00"),
        (1.7, "1.25", "0.00"),
    ],
)
def test_a_cancelled_run_costs_its_price_times_the_share_computed_and_the_rest_comes_back(share, cost, refund):
    run, grant = charged_run("1.25")

    kept, given_back = run_cost_of_computed(run=run, computed_share=share)

    assert (kept, given_back) == (Decimal(cost), Decimal(refund))
    assert spend_used_this_month(user=grant.user, now=timezone.now()) == Decimal(cost)


def test_the_rest_comes_back_once_however_often_it_is_asked():
    run, grant = charged_run("2.00")

    run_cost_of_computed(run=run, computed_share=0.25)
    _, again = run_cost_of_computed(run=run, computed_share=0.25)

    assert again == 0 and AgentSpend.objects.filter(amount__lt=0).count() == 1
    assert spend_used_this_month(user=grant.user, now=timezone.now()) == Decimal("0.50")


def test_a_run_no_agent_was_charged_for_gives_nothing_back_and_still_says_what_it_cost():
    grant, _ = make_grant(level="launch")
    scenario = Scenario.objects.create(project=make_project(grant.user), name="s", resolution=10, duration=600)
    run = Run.objects.create(
        scenario=scenario, status=RunStatus.COMPUTING, resolution=10, duration=600, compute_cost=Decimal("1.00")
    )

    assert run_cost_of_computed(run=run, computed_share=0.5) == (Decimal("0.50"), Decimal("0"))
    assert not AgentSpend.objects.exists()
