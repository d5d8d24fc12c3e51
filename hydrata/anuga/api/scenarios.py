from typing import Any

from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectScopedView
from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.selectors.projects import roles_for
from hydrata.anuga.selectors.scenarios import computed_status, latest_run, scenario_estimate, scenarios_of
from hydrata.anuga.services.build import scenario_build_request
from hydrata.anuga.services.scenarios import scenario_clone, scenario_create, scenario_update

REFERENCES = ("terrain", *Scenario.INPUT_FIELDS)


class ScenarioInput(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, default="")
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
    name = serializers.CharField(max_length=200)
    overrides = serializers.DictField(required=False, default=dict)


def run_compact(run: Run | None) -> dict[str, Any] | None:
    if run is None:
        return None
    return {"id": run.pk, "status": run.status, "error_message": run.error_message, "user_message": run.user_message,
            "mesh_triangle_count": run.mesh_triangle_count, "created_at": run.created_at}


def scenario_detail(scenario: Scenario) -> dict[str, Any]:
    run = latest_run(scenario=scenario)
    return {
        "id": scenario.pk, "project": scenario.project_id, "name": scenario.name,
        "description": scenario.description,
        **{name: getattr(scenario, f"{name}_id") for name in REFERENCES},
        "resolution": scenario.resolution, "duration": scenario.duration, "model_start": scenario.model_start,
        "inundation_threshold_m": scenario.inundation_threshold_m,
        "computed_status": computed_status(run=run), "latest_run": run_compact(run),
        "latest_run_is_valid": scenario.latest_run_is_valid, **scenario_estimate(scenario=scenario),
        "currency": "USD", "created_at": scenario.created_at, "updated_at": scenario.updated_at,
    }


def scenario_public(scenario: Scenario) -> dict[str, Any]:
    """What a non-member reading a public project sees: no inputs, no runs, no prices."""
    return {"id": scenario.pk, "project": scenario.project_id, "name": scenario.name,
            "description": scenario.description, "resolution": scenario.resolution, "duration": scenario.duration,
            "computed_status": computed_status(run=latest_run(scenario=scenario)), "reduced": True}


def _shape(request: Request, scenario: Scenario) -> dict[str, Any]:
    is_member = bool(roles_for(user=request.user, project_ids=[scenario.project_id]))
    return scenario_detail(scenario) if is_member else scenario_public(scenario)


class ScenarioListCreateView(ProjectScopedView):
    grant_levels = {"GET": "read", "POST": "draft"}

    def get(self, request: Request) -> Response:
        scenarios = scenarios_of(project=self.project).prefetch_related("runs")
        return Response({"results": [_compact(s) for s in scenarios]})

    def post(self, request: Request) -> Response:
        data = ScenarioInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        references = {name: fields.pop(name) for name in REFERENCES if name in fields}
        scenario = scenario_create(project=self.project, user=request.user, **fields, **references)
        return Response(scenario_detail(scenario), status=status.HTTP_201_CREATED)


def _compact(scenario: Scenario) -> dict[str, Any]:
    run = latest_run(scenario=scenario)
    return {"id": scenario.pk, "name": scenario.name, "resolution": scenario.resolution,
            "duration": scenario.duration, "computed_status": computed_status(run=run),
            "latest_run": run_compact(run), "latest_run_is_valid": scenario.latest_run_is_valid,
            "updated_at": scenario.updated_at}


class ScenarioDetailView(ProjectScopedView):
    grant_levels = {"GET": "read", "PATCH": "draft"}

    def get(self, request: Request, scenario_id: int) -> Response:
        return Response(_shape(request, self.scenario_get(scenario_id)))

    def patch(self, request: Request, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        data = ScenarioInput(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        changes = {name: value for name, value in data.validated_data.items() if name in request.data}
        return Response(scenario_detail(scenario_update(scenario=scenario, changes=changes)))


class ScenarioCloneView(ProjectScopedView):
    grant_levels = {"POST": "draft"}

    def post(self, request: Request, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        data = CloneInput(data=request.data)
        data.is_valid(raise_exception=True)
        clone = scenario_clone(scenario=scenario, user=request.user, **data.validated_data)
        return Response(scenario_detail(clone), status=status.HTTP_201_CREATED)


class ScenarioBuildView(ProjectScopedView):
    grant_levels = {"POST": "draft"}

    def post(self, request: Request, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        run = scenario_build_request(scenario=scenario, user=request.user)
        return Response({"run": run_compact(run) | {"mesh_triangle_count_estimate": run.mesh_triangle_count_estimate},
                         "scenario": scenario.pk}, status=status.HTTP_202_ACCEPTED)
