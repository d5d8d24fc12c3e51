from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectListView, ProjectScopedView
from hydrata.anuga.api.runs import run_answer
from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.selectors.approvals import approval_summary
from hydrata.anuga.selectors.links import scenario_link
from hydrata.anuga.selectors.projects import reads_in_full
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
from hydrata.core.limits import DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH
from hydrata.core.requests import AuthenticatedRequest
from hydrata_contract.answers import scenarios as answers
from hydrata_contract.links import Panel

REFERENCES = ("terrain", *Scenario.INPUT_FIELDS)


class ScenarioInput(serializers.Serializer):
    name = serializers.CharField(max_length=NAME_MAX_LENGTH)
    description = serializers.CharField(required=False, allow_blank=True, default="", max_length=DESCRIPTION_MAX_LENGTH)
    resolution = serializers.FloatField()
    duration = serializers.IntegerField()
    model_start = serializers.DateTimeField(required=False, allow_null=True, default=None)
    terrain = serializers.IntegerField(required=False, allow_null=True)
    boundary = serializers.IntegerField(required=False, allow_null=True)
    friction = serializers.IntegerField(required=False, allow_null=True)
    inflow = serializers.IntegerField(required=False, allow_null=True)
    rainfall = serializers.IntegerField(required=False, allow_null=True)
    structure = serializers.IntegerField(required=False, allow_null=True)
    mesh_region = serializers.IntegerField(required=False, allow_null=True)
    gauge = serializers.IntegerField(required=False, allow_null=True)
    flow_line = serializers.IntegerField(required=False, allow_null=True)
    inundation_threshold_m = serializers.FloatField(required=False)


class CloneInput(serializers.Serializer):
    name = serializers.CharField(max_length=NAME_MAX_LENGTH)
    overrides = serializers.DictField(required=False, default=dict)

    def validate_overrides(self, overrides: dict[str, Any]) -> dict[str, Any]:
        """The same rules as a new scenario's fields; keys that are no field are left for the service to name."""
        fields = ScenarioInput(data=overrides, partial=True)
        if not fields.is_valid():
            name, messages = next(iter(fields.errors.items()))
            raise serializers.ValidationError(f"{name}: {messages[0]}")
        return {**overrides, **fields.validated_data}


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
    }


def scenario_detail(scenario: Scenario, *, user: User) -> dict[str, Any]:
    run = latest_run(scenario=scenario)
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
        "latest_run_is_valid": scenario.latest_run_is_valid,
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

    @extend_schema(request=ScenarioInput, responses={201: answers.ScenarioDetail})
    def post(self, request: AuthenticatedRequest) -> Response:
        data = ScenarioInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        references = {name: fields.pop(name) for name in REFERENCES if name in fields}
        scenario = scenario_create(project=self.project, user=request.user, **fields, **references)
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

    @extend_schema(request=ScenarioInput, responses={200: answers.ScenarioDetail})
    def patch(self, request: AuthenticatedRequest, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        data = ScenarioInput(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        changes = {name: value for name, value in data.validated_data.items() if name in request.data}
        scenario = scenario_update(scenario=scenario, changes=changes)
        return Response(answer(answers.ScenarioDetail, scenario_detail(scenario, user=request.user)))


class ScenarioCloneView(ProjectScopedView):
    grant_levels = {"POST": "draft"}

    @extend_schema(request=CloneInput, responses={201: answers.ScenarioDetail})
    def post(self, request: AuthenticatedRequest, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        data = CloneInput(data=request.data)
        data.is_valid(raise_exception=True)
        clone = scenario_clone(scenario=scenario, user=request.user, **data.validated_data)
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
