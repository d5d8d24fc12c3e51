"""The sign-off: a project's owner or editor approves a scenario for a run, as it is now."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from hydrata.agents.permissions import grant_of
from hydrata.anuga.api.base import ProjectScopedView
from hydrata.anuga.selectors.approvals import approval_summary
from hydrata.anuga.services.approvals import scenario_approve
from hydrata.core.answers import sent
from hydrata.core.requests import AuthenticatedRequest
from hydrata_contract.answers.scenarios import Approval


class ScenarioApproveView(ProjectScopedView):
    # Declared for the system check; the service refuses every agent key whatever its level.
    grant_levels = {"POST": "launch"}

    @extend_schema(request=None, responses={201: Approval})
    def post(self, request: AuthenticatedRequest, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        scenario_approve(scenario=scenario, user=request.user, grant=grant_of(request))
        return Response(sent(approval_summary(scenario=scenario, user=request.user)), status=status.HTTP_201_CREATED)
