from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectListView, ProjectScopedView
from hydrata.anuga.api.runs import published_run
from hydrata.anuga.models import Scenario
from hydrata.anuga.selectors.links import project_link
from hydrata.anuga.selectors.projects import reads_in_full
from hydrata.anuga.selectors.run_answers import run_compact
from hydrata.anuga.selectors.scenario_answers import (
    scenario_build,
    scenario_detail,
    scenario_public,
    scenario_summary,
)
from hydrata.anuga.selectors.scenarios import latest_run, scenarios_of
from hydrata.anuga.services.build import scenario_build_request
from hydrata.anuga.services.scenarios import scenario_clone, scenario_create, scenario_update
from hydrata.core.answers import page_answer, sent
from hydrata.core.bodies import parsed
from hydrata.core.requests import AuthenticatedRequest
from hydrata_contract.answers import scenarios as answers
from hydrata_contract.links import Panel
from hydrata_contract.requests.scenarios import ScenarioChanges, ScenarioClone, ScenarioCreate


def _read(request: AuthenticatedRequest, scenario: Scenario) -> answers.ScenarioDetail | answers.ScenarioPublic:
    """A member reads the scenario in full; a non-member of a public project its published part."""
    if reads_in_full(user=request.user, project_id=scenario.project_id):
        return scenario_detail(scenario=scenario, user=request.user)
    return scenario_public(scenario=scenario)


def _summary(scenario: Scenario, *, in_full: bool) -> answers.ScenarioSummary:
    run = latest_run(scenario=scenario)
    latest = None if run is None else published_run(run_compact(run=run), in_full=in_full)
    return scenario_summary(scenario=scenario, run=run, latest=latest)


class ScenarioListCreateView(ProjectListView):
    grant_levels = {"GET": "read", "POST": "draft"}
    list_panel = Panel.SCENARIO

    @extend_schema(responses={200: answers.ScenarioPage})
    def get(self, request: AuthenticatedRequest) -> Response:
        page = self.paginate_queryset(scenarios_of(project=self.project).prefetch_related("runs"))
        in_full = reads_in_full(user=request.user, project_id=self.project.pk)
        results = [_summary(scenario, in_full=in_full) for scenario in page or []]
        ui_url = project_link(self.project, self.list_panel)
        return Response(sent(page_answer(view=self, model=answers.ScenarioPage, results=results, ui_url=ui_url)))

    @extend_schema(request=ScenarioCreate, responses={201: answers.ScenarioDetail})
    def post(self, request: AuthenticatedRequest) -> Response:
        # Left out and null differ for a reference (the project's default, or none): only what was sent goes on.
        fields = parsed(ScenarioCreate, request).model_dump(exclude_unset=True)
        scenario = scenario_create(project=self.project, user=request.user, **fields)
        return Response(sent(scenario_detail(scenario=scenario, user=request.user)), status=status.HTTP_201_CREATED)


class ScenarioDetailView(ProjectScopedView):
    grant_levels = {"GET": "read", "PATCH": "draft"}

    @extend_schema(responses={200: answers.ScenarioRead})
    def get(self, request: AuthenticatedRequest, scenario_id: int) -> Response:
        return Response(sent(_read(request, self.scenario_get(scenario_id))))

    @extend_schema(request=ScenarioChanges, responses={200: answers.ScenarioDetail})
    def patch(self, request: AuthenticatedRequest, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        changes = parsed(ScenarioChanges, request).model_dump(exclude_unset=True)
        scenario = scenario_update(scenario=scenario, changes=changes)
        return Response(sent(scenario_detail(scenario=scenario, user=request.user)))


class ScenarioCloneView(ProjectScopedView):
    grant_levels = {"POST": "draft"}

    @extend_schema(request=ScenarioClone, responses={201: answers.ScenarioDetail})
    def post(self, request: AuthenticatedRequest, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        body = parsed(ScenarioClone, request)
        overrides = body.overrides.model_dump(exclude_unset=True)
        clone = scenario_clone(scenario=scenario, user=request.user, name=body.name, overrides=overrides)
        return Response(sent(scenario_detail(scenario=clone, user=request.user)), status=status.HTTP_201_CREATED)


class ScenarioBuildView(ProjectScopedView):
    grant_levels = {"POST": "draft"}

    @extend_schema(request=None, responses={202: answers.ScenarioBuild})
    def post(self, request: AuthenticatedRequest, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        run = scenario_build_request(scenario=scenario, user=request.user)
        return Response(sent(scenario_build(scenario=scenario, run=run)), status=status.HTTP_202_ACCEPTED)
