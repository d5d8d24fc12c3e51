"""Signing a scenario off for a run, and the refusal an agent meets when its account asks for that sign-off."""

from django.contrib.auth.models import User
from django.db import transaction

from hydrata.agents.models import AgentGrant
from hydrata.anuga.models import Scenario, ScenarioApproval
from hydrata.anuga.selectors.approvals import (
    approvals_current,
    runs_need_approval,
    scenario_state_parts,
    state_digest_of,
)
from hydrata.anuga.selectors.links import scenario_link
from hydrata.core.errors import Conflict, Forbidden
from hydrata_contract.errors import ErrorCode


@transaction.atomic
def scenario_approve(*, scenario: Scenario, user: User, grant: AgentGrant | None) -> ScenarioApproval:
    """Record that `user` approved the scenario as it is now. A person does this in the map; an agent never can."""
    if grant is not None:
        raise Forbidden(
            "Only a person can approve a scenario for a run, in the map; agent keys cannot.",
            code=ErrorCode.APPROVAL_BY_PERSON_ONLY,
        )
    scenario = Scenario.objects.select_for_update().get(pk=scenario.pk)
    for approval in approvals_current(scenario=scenario):
        if approval.approved_by_id == user.pk:
            return approval
    parts = scenario_state_parts(scenario=scenario)
    return ScenarioApproval.objects.create(
        scenario=scenario, approved_by=user, state_digest=state_digest_of(parts=parts), state_parts=parts
    )


def run_approval_check(*, scenario: Scenario, grant: AgentGrant | None) -> None:
    """409 APPROVAL_REQUIRED, with the link to sign off, when the grant's account wants its own approval first."""
    if grant is None or not runs_need_approval(user=grant.user):
        return
    if any(approval.approved_by_id == grant.user_id for approval in approvals_current(scenario=scenario)):
        return
    link = scenario_link(scenario)
    raise Conflict(
        f"This account asks that its owner approve a scenario before an agent runs it, and scenario "
        f"'{scenario.name}' is not approved as it is now (any change since an approval needs a new one). Ask the "
        f"user to review it and press 'Approve for a run' in the map: {link}",
        code=ErrorCode.APPROVAL_REQUIRED,
        ui_url=link,
        scenario=scenario.pk,
    )
