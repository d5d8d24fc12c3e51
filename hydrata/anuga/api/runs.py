from typing import Any

from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.agents.permissions import grant_of
from hydrata.anuga.api.base import ProjectScopedView
from hydrata.anuga.models import Run, RunStatus, Scenario
from hydrata.anuga.run_impact import comparable, runs_impact
from hydrata.anuga.run_results import preview_png, result_layers, sample
from hydrata.anuga.run_series import run_time_series, series_chart_png
from hydrata.anuga.selectors.projects import project_get_writable, projects_visible_to
from hydrata.anuga.selectors.runs import phase_of, run_get, runs_of
from hydrata.anuga.services.runs import run_cancel, run_retry, run_start, runs_reap_stale
from hydrata.core.errors import Conflict, NotFound

LOG_TAIL_LINES = 60


class StartInput(serializers.Serializer):
    compute_backend = serializers.CharField(default="local", max_length=10)


class PointInput(serializers.Serializer):
    x = serializers.FloatField()
    y = serializers.FloatField()


class SampleInput(serializers.Serializer):
    points = PointInput(many=True, allow_empty=False, max_length=1000)
    crs = serializers.CharField(required=False, allow_blank=True, default="")


class TimeSeriesInput(serializers.Serializer):
    gauges = serializers.ListField(child=serializers.CharField(max_length=200), required=False, allow_null=True,
                                   default=None, max_length=50)
    flow_lines = serializers.ListField(child=serializers.CharField(max_length=200), required=False,
                                       allow_null=True, default=None, max_length=50)
    points = PointInput(many=True, required=False, default=list, max_length=50)
    crs = serializers.CharField(required=False, allow_blank=True, default="")


def run_status(run: Run) -> dict[str, Any]:
    return {"id": run.pk, "status": run.status, "phase": phase_of(run), "progress_pct": round(run.progress_pct, 1),
            "eta_seconds": run.eta_seconds, "error_message": run.error_message, "user_message": run.user_message,
            "compute_backend": run.compute_backend or None, "sim_time": run.sim_time, "duration": run.duration,
            "cancel_requested": run.cancel_requested, "updated_at": run.updated_at}


def run_detail(run: Run) -> dict[str, Any]:
    return {
        **run_status(run),
        "scenario": run.scenario_id, "project": run.scenario.project_id, "scenario_name": run.scenario.name,
        "resolution": run.resolution, "mesh_triangle_count": run.mesh_triangle_count,
        "mesh_triangle_count_estimate": run.mesh_triangle_count_estimate,
        "compute_cost": None if run.compute_cost is None else str(run.compute_cost), "currency": "USD",
        "retry_of": run.retry_of_id, "created_at": run.created_at, "build_started_at": run.build_started_at,
        "build_finished_at": run.build_finished_at, "queued_at": run.queued_at, "started_at": run.started_at,
        "finished_at": run.finished_at, "wall_seconds": _wall_seconds(run),
        "log_tail": run.log.splitlines()[-LOG_TAIL_LINES:], "statistics": run.statistics,
        **result_layers(run),
    }


def _wall_seconds(run: Run) -> float | None:
    if run.started_at and run.finished_at:
        return round((run.finished_at - run.started_at).total_seconds(), 1)
    return None


def _writable_run(request: Request, run_id: int) -> Run:
    run = run_get(user=request.user, run_id=run_id)
    project_get_writable(user=request.user, project_id=run.scenario.project_id)
    return run


class ScenarioRunView(APIView):
    grant_levels = {"POST": "launch"}

    def post(self, request: Request, scenario_id: int) -> Response:
        scenario = Scenario.objects.filter(pk=scenario_id, project__in=projects_visible_to(user=request.user)).first()
        if scenario is None:
            raise NotFound(f"Scenario {scenario_id} does not exist or is not visible to this caller.",
                           code="SCENARIO_NOT_FOUND")
        project_get_writable(user=request.user, project_id=scenario.project_id)
        data = StartInput(data=request.data)
        data.is_valid(raise_exception=True)
        run = run_start(scenario=scenario, user=request.user, grant=grant_of(request), **data.validated_data)
        return Response(run_detail(run), status=status.HTTP_202_ACCEPTED)


class RunStatusView(APIView):
    """Light by design: one indexed lookup joined to the caller's visible projects."""

    grant_levels = {"GET": "read"}

    def get(self, request: Request, run_id: int) -> Response:
        runs_reap_stale()
        return Response(run_status(run_get(user=request.user, run_id=run_id)))


class RunDetailView(APIView):
    grant_levels = {"GET": "read"}

    def get(self, request: Request, run_id: int) -> Response:
        runs_reap_stale()
        return Response(run_detail(run_get(user=request.user, run_id=run_id)))


class RunCancelView(APIView):
    grant_levels = {"POST": "launch"}

    def post(self, request: Request, run_id: int) -> Response:
        run = run_cancel(run=_writable_run(request, run_id))
        return Response(run_status(run), status=status.HTTP_202_ACCEPTED)


class RunRetryView(APIView):
    grant_levels = {"POST": "launch"}

    def post(self, request: Request, run_id: int) -> Response:
        retry = run_retry(run=_writable_run(request, run_id), user=request.user, grant=grant_of(request))
        return Response(run_detail(retry), status=status.HTTP_202_ACCEPTED)


class ProjectRunsView(ProjectScopedView, GenericAPIView):
    grant_levels = {"GET": "read"}

    def get(self, request: Request) -> Response:
        wanted = request.query_params.get("status") or None
        if wanted and wanted not in RunStatus.values:
            raise Conflict(f"status must be one of {', '.join(RunStatus.values)}.", code="INVALID_STATUS_FILTER")
        page = self.paginate_queryset(runs_of(project=self.project, status=wanted))
        return self.get_paginated_response([run_detail(run) for run in page])


def _finished(run: Run) -> Run:
    if run.status != RunStatus.COMPLETE or not run.results_prefix:
        raise Conflict(f"Run {run.pk} has no results yet (status {run.status}).", code="RUN_NOT_COMPLETE",
                       status=run.status)
    return run


class RunResultsView(APIView):
    grant_levels = {"GET": "read"}

    def get(self, request: Request, run_id: int) -> Response:
        run = _finished(run_get(user=request.user, run_id=run_id))
        return Response({"id": run.pk, "status": run.status, "statistics": run.statistics, **result_layers(run)})


class RunPreviewView(APIView):
    grant_levels = {"GET": "read"}

    def get(self, request: Request, run_id: int) -> Response:
        run = _finished(run_get(user=request.user, run_id=run_id))
        return Response({"id": run.pk, "mime_type": "image/png", "data": preview_png(run)})


class RunSampleView(APIView):
    grant_levels = {"POST": "read"}

    def post(self, request: Request, run_id: int) -> Response:
        run = _finished(run_get(user=request.user, run_id=run_id))
        data = SampleInput(data=request.data)
        data.is_valid(raise_exception=True)
        crs = data.validated_data["crs"] or run.scenario.project.projection
        points = [(p["x"], p["y"]) for p in data.validated_data["points"]]
        return Response({"id": run.pk, "crs": crs, "points": sample(run, points=points, crs=crs)})


class RunTimeSeriesView(APIView):
    grant_levels = {"POST": "read"}

    def post(self, request: Request, run_id: int) -> Response:
        run = run_get(user=request.user, run_id=run_id)
        data = TimeSeriesInput(data=request.data)
        data.is_valid(raise_exception=True)
        asked = data.validated_data
        _finished(run)
        crs = asked["crs"] or run.scenario.project.projection
        series = run_time_series(run, gauges=asked["gauges"], flow_lines=asked["flow_lines"], crs=crs,
                                 points=[(p["x"], p["y"]) for p in asked["points"]])
        return Response({"id": run.pk, "crs": crs, "series": series,
                         "chart": {"mime_type": "image/png", "data": series_chart_png(run, series)}})


class RunImpactView(APIView):
    grant_levels = {"GET": "read"}

    def get(self, request: Request, run_id: int, other_run_id: int) -> Response:
        run = run_get(user=request.user, run_id=run_id)
        other = comparable(run, run_get(user=request.user, run_id=other_run_id))
        for finished in (run, other):
            _finished(finished)
        return Response({"id": run.pk, "project": run.scenario.project_id, "scenario": run.scenario_id,
                         **runs_impact(run=run, other=other)})
