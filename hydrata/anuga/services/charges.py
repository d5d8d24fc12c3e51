"""What a run costs an agent's monthly spend: its price at the start, and only the share it computed once it is
cancelled (the rest given back in the month's spend)."""

from decimal import ROUND_HALF_UP, Decimal

from hydrata.agents.models import AgentGrant
from hydrata.agents.selectors import CENT
from hydrata.agents.services import agent_spend_charge, agent_spend_refund
from hydrata.anuga.models import Run


def _reference(run: Run) -> str:
    return f"run:{run.pk}"


def run_charge(*, run: Run, grant: AgentGrant | None, price: Decimal) -> None:
    """Charge the run's price to the agent's month (402 past the limit). A person's own run charges no agent."""
    if grant is not None:
        agent_spend_charge(
            grant=grant,
            amount=price,
            reference=_reference(run),
            description=f"Run {run.pk} of scenario '{run.scenario.name}'",
        )


def run_cost_of_computed(*, run: Run, computed_share: float) -> tuple[Decimal | None, Decimal]:
    """A cancelled run costs its price times the share of its simulated time it computed (0 to 1); agents get the
    rest of what they were charged for it back. Returns (what the run cost, the refund)."""
    if run.compute_cost is None:
        return None, Decimal("0")
    share = Decimal(str(min(1.0, max(0.0, computed_share))))
    cost = (run.compute_cost * share).quantize(CENT, rounding=ROUND_HALF_UP)
    refund = agent_spend_refund(
        reference=_reference(run),
        keep=cost,
        description=f"Refund of run {run.pk}, cancelled with {share:.0%} of its simulated time computed",
    )
    return cost, refund


def refund_sentence(refund: Decimal) -> str:
    return f" ${refund} of its charge was given back to this month's agent spend." if refund > 0 else ""
