from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectListView, ProjectScopedView
from hydrata.anuga.api.runs import run_answer
from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.selectors.approvals import approval_summary, build_state
from hydrata.anuga.selectors.links import scenario_link
from hydrata.anuga.selectors.projects import reads_in_full
from hydrata.anuga.selectors.queue import run_queue_place
from hydrata.anuga.selectors.scenarios import (
    computed_status,
    latest_run,
    scenario_estimate,
    scenario_forcing,
    scenarios_of,
)
from hydrata.anuga.services.build import scenario_build_request
from hydrata.anuga.services.scenarios import scenario_clone, scenario_create, scenario_update
from hydrata.core.answers import answer
from hydrata.core.bodies import parsed
from hydrata.core.requests import AuthenticatedRequest
from hydrata_contract.answers import scenarios as answers
from hydrata_contract.links import Panel
from hydrata_contract.requests.scenarios import ScenarioChanges, ScenarioClone, ScenarioCreate

REFERENCES = ("terrain", *Scenario.INPUT_FIELDS)


def run_compact(run: Run | None) -> dict[str, Any] | None:
    if run is None:
        return None
    return {
        "id": run.pk,
        "status": run.status,
        "error_message": run.error_message,
        "user_message": run.user_message,
        "mesh_triangle_count": run.mesh_triangle_count,
        "created_at": run.created_at,
        "queue": run_queue_place(run=run),
    }


def scenario_detail(scenario: Scenario, *, user: User) -> dict[str, Any]:
    run = latest_run(scenario=scenario)
    built = build_state(scenario=scenario)
    return {
        "id": scenario.pk,
        "project": scenario.project_id,
        "name": scenario.name,
        "description": scenario.description,
        **{name: getattr(scenario, f"{name}_id") for name in REFERENCES},
        "resolution": scenario.resolution,
        "duration": scenario.duration,
        "model_start": scenario.model_start,
        "inundation_threshold_m": scenario.inundation_threshold_m,
        "computed_status": computed_status(run=run),
        "latest_run": run_compact(run),
        "latest_run_is_valid": built.current is not None,
        "changed_since_build": built.changes,
        **scenario_estimate(scenario=scenario),
        "currency": "USD",
        "forcing": scenario_forcing(scenario=scenario),
        "approval": approval_summary(scenario=scenario, user=user),
        "ui_url": scenario_link(scenario),
        "created_at": scenario.created_at,
        "updated_at": scenario.updated_at,
    }


def scenario_public(scenario: Scenario) -> dict[str, Any]:
    """What a non-member reading a public project sees: no inputs, no runs, no prices."""
    return {
        "id": scenario.pk,
        "project": scenario.project_id,
        "name": scenario.name,
        "description": scenario.description,
        "resolution": scenario.resolution,
        "duration": scenario.duration,
        "computed_status": computed_status(run=latest_run(scenario=scenario)),
        "ui_url": scenario_link(scenario),
        "reduced": True,
    }


def _shape(request: AuthenticatedRequest, scenario: Scenario) -> dict[str, Any]:
    in_full = reads_in_full(user=request.user, project_id=scenario.project_id)
    return scenario_detail(scenario, user=request.user) if in_full else scenario_public(scenario)


class ScenarioListCreateView(ProjectListView):
    grant_levels = {"GET": "read", "POST": "draft"}
    list_panel = Panel.SCENARIO

    @extend_schema(responses={200: answers.ScenarioPage})
    def get(self, request: AuthenticatedRequest) -> Response:
        page = self.paginate_queryset(scenarios_of(project=self.project).prefetch_related("runs"))
        in_full = reads_in_full(user=request.user, project_id=self.project.pk)
        response = self.get_paginated_response([_compact(s, in_full=in_full) for s in page or []])
        answer(answers.ScenarioPage, response.data)
        return response

    @extend_schema(request=ScenarioCreate, responses={201: answers.ScenarioDetail})
    def post(self, request: AuthenticatedRequest) -> Response:
        # Left out and null differ for a reference (the project's default, or none): only what was sent goes on.
        fields = parsed(ScenarioCreate, request).model_dump(exclude_unset=True)
        scenario = scenario_create(project=self.project, user=request.user, **fields)
        detail = scenario_detail(scenario, user=request.user)
        return Response(answer(answers.ScenarioDetail, detail), status=status.HTTP_201_CREATED)


def _compact(scenario: Scenario, *, in_full: bool) -> dict[str, Any]:
    run = latest_run(scenario=scenario)
    compact = run_compact(run)
    latest = None if compact is None else run_answer(compact, in_full=in_full)
    return {
        "id": scenario.pk,
        "name": scenario.name,
        "resolution": scenario.resolution,
        "duration": scenario.duration,
        "computed_status": computed_status(run=run),
        "latest_run": latest,
        "latest_run_is_valid": scenario.latest_run_is_valid,
        "ui_url": scenario_link(scenario),
        "updated_at": scenario.updated_at,
    }


class ScenarioDetailView(ProjectScopedView):
    grant_levels = {"GET": "read", "PATCH": "draft"}

    @extend_schema(responses={200: answers.ScenarioRead})
    def get(self, request: AuthenticatedRequest, scenario_id: int) -> Response:
        return Response(answer(answers.ScenarioRead, _shape(request, self.scenario_get(scenario_id))))

    @extend_schema(request=ScenarioChanges, responses={200: answers.ScenarioDetail})
    def patch(self, request: AuthenticatedRequest, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        changes = parsed(ScenarioChanges, request).model_dump(exclude_unset=True)
        scenario = scenario_update(scenario=scenario, changes=changes)
        return Response(answer(answers.ScenarioDetail, scenario_detail(scenario, user=request.user)))


class ScenarioCloneView(ProjectScopedView):
    grant_levels = {"POST": "draft"}

    @extend_schema(request=ScenarioClone, responses={201: answers.ScenarioDetail})
    def post(self, request: AuthenticatedRequest, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        body = parsed(ScenarioClone, request)
        overrides = body.overrides.model_dump(exclude_unset=True)
        clone = scenario_clone(scenario=scenario, user=request.user, name=body.name, overrides=overrides)
        detail = scenario_detail(clone, user=request.user)
        return Response(answer(answers.ScenarioDetail, detail), status=status.HTTP_201_CREATED)


class ScenarioBuildView(ProjectScopedView):
    grant_levels = {"POST": "draft"}

    @extend_schema(request=None, responses={202: answers.ScenarioBuild})
    def post(self, request: AuthenticatedRequest, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        run = scenario_build_request(scenario=scenario, user=request.user)
        built = {
            "run": {**(run_compact(run) or {}), "mesh_triangle_count_estimate": run.mesh_triangle_count_estimate},
            "scenario": scenario.pk,
        }
        return Response(answer(answers.ScenarioBuild, built), status=status.HTTP_202_ACCEPTED)
