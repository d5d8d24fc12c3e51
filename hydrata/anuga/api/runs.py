from typing import TypeVar

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.agents.permissions import grant_of
from hydrata.anuga.api.base import ProjectListView, RunScopedView, published_face, reader
from hydrata.anuga.models import Run
from hydrata.anuga.selectors.links import project_link
from hydrata.anuga.selectors.projects import project_get_writable
from hydrata.anuga.selectors.run_answers import (
    run_detail,
    run_impact,
    run_preview,
    run_results,
    run_sample,
    run_series,
    run_state,
)
from hydrata.anuga.selectors.runs import run_get, runs_of
from hydrata.anuga.selectors.scenarios import scenario_get_visible
from hydrata.anuga.services.run_impact import comparable, runs_impact
from hydrata.anuga.services.runs import run_cancel, run_retry, run_start
from hydrata.core.answers import page_answer, sent
from hydrata.core.bodies import parsed
from hydrata.core.errors import Conflict
from hydrata.core.projections import crs_code_validate
from hydrata.core.requests import AuthenticatedRequest
from hydrata_contract.answers import runs as answers
from hydrata_contract.answers.base import Withheld
from hydrata_contract.errors import ErrorCode
from hydrata_contract.links import Panel
from hydrata_contract.requests.runs import PointXY, RunSampleQuery, RunSeriesQuery, RunStart
from hydrata_contract.states import RunStatus

# What a caller who sees a project only because it is public may read of its runs: their published results
# (state, timing, statistics and the result layers' descriptions, the preview, values at points). Every other
# field is withheld: the cost, the log, error details, the compute target, and every signed download link.
PUBLISHED_RUN_FIELDS = frozenset(
    {
        "id",
        "status",
        "ui_url",
        "phase",
        "progress_pct",
        "eta_seconds",
        "sim_time",
        "duration",
        "updated_at",
        "scenario",
        "project",
        "scenario_name",
        "resolution",
        "mesh_triangle_count",
        "created_at",
        "started_at",
        "finished_at",
        "statistics",
        "currency",
        "worker_silent_seconds",
    }
)
# A withheld field keeps its key, empty: null, or these for the fields a member's answer never has null.
WITHHELD_AS = {"error_message": "", "user_message": "", "log_tail": []}


def crs_of(asked: str, run: Run) -> str:
    """The CRS a request's points are in: its authority code (anything else is 400 INVALID_CRS), or the project's."""
    return crs_code_validate(asked) if asked else run.scenario.project.projection


def xy(points: list[PointXY]) -> list[tuple[float, float]]:
    return [(point.x, point.y) for point in points]


WithheldT = TypeVar("WithheldT", bound=Withheld)


def published_run(answer: WithheldT, *, in_full: bool) -> WithheldT:
    """The one place a run's answer is cut down for a public reader (see PUBLISHED_RUN_FIELDS). Withheld fields
    keep their key with an empty value, so a client reads one shape; signed links are left out altogether."""
    if in_full:
        return answer
    face = published_face(
        answer.model_dump(),
        keep=lambda key: key in PUBLISHED_RUN_FIELDS or key.startswith("gn_layer_"),
        empty=WITHHELD_AS,
        drop=lambda key: key.startswith("s3_"),
    )
    return type(answer).model_validate(face)


class ScenarioRunView(APIView):
    grant_levels = {"POST": "launch"}

    @extend_schema(request=RunStart, responses={202: answers.RunDetail})
    def post(self, request: AuthenticatedRequest, scenario_id: int) -> Response:
        scenario = scenario_get_visible(user=request.user, scenario_id=scenario_id)
        project_get_writable(user=request.user, project_id=scenario.project_id)
        start = parsed(RunStart, request)
        run = run_start(
            scenario=scenario,
            user=request.user,
            grant=grant_of(request),
            compute_backend=start.compute_backend,
            ranks=start.ranks,
        )
        detail = run_detail(run=run, signed_links=reader(request, project_id=scenario.project_id).signed_links)
        return Response(sent(detail), status=status.HTTP_202_ACCEPTED)


class RunStatusView(RunScopedView):
    """Light by design: one indexed lookup joined to the caller's visible projects, and no write (stale runs are
    ended by the periodic sweep, anuga.runs_reap_stale)."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.RunState})
    def get(self, request: AuthenticatedRequest) -> Response:
        return Response(sent(published_run(run_state(run=self.run), in_full=self.reader(request).in_full)))


class RunDetailView(RunScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.RunDetail})
    def get(self, request: AuthenticatedRequest) -> Response:
        policy = self.reader(request)
        detail = run_detail(run=self.run, signed_links=policy.signed_links)
        return Response(sent(published_run(detail, in_full=policy.in_full)))


class RunCancelView(RunScopedView):
    grant_levels = {"POST": "launch"}

    @extend_schema(request=None, responses={202: answers.RunState})
    def post(self, request: AuthenticatedRequest) -> Response:
        run = run_cancel(run=self.run)
        return Response(sent(run_state(run=run)), status=status.HTTP_202_ACCEPTED)


class RunRetryView(RunScopedView):
    grant_levels = {"POST": "launch"}

    @extend_schema(request=None, responses={202: answers.RunDetail})
    def post(self, request: AuthenticatedRequest) -> Response:
        retry = run_retry(run=self.run, user=request.user, grant=grant_of(request))
        detail = run_detail(run=retry, signed_links=self.reader(request).signed_links)
        return Response(sent(detail), status=status.HTTP_202_ACCEPTED)


class ProjectRunsView(ProjectListView):
    grant_levels = {"GET": "read"}
    list_panel = Panel.RUN

    @extend_schema(
        parameters=[OpenApiParameter("status", str, enum=RunStatus.values(), description="Only runs in this state.")],
        responses={200: answers.RunPage},
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        wanted = request.query_params.get("status") or None
        if wanted and wanted not in RunStatus.values():
            raise Conflict(
                f"status must be one of {', '.join(RunStatus.values())}.", code=ErrorCode.INVALID_STATUS_FILTER
            )
        page = self.paginate_queryset(runs_of(project=self.project, status=wanted))
        policy = self.reader(request)
        details = [run_detail(run=run, signed_links=policy.signed_links) for run in page or []]
        results = [published_run(detail, in_full=policy.in_full) for detail in details]
        ui_url = project_link(self.project, self.list_panel)
        return Response(sent(page_answer(view=self, model=answers.RunPage, results=results, ui_url=ui_url)))


def finished_run(run: Run) -> Run:
    if run.status != RunStatus.COMPLETE or not run.results_prefix:
        raise Conflict(
            f"Run {run.pk} has no results yet (status {run.status}).",
            code=ErrorCode.RUN_NOT_COMPLETE,
            status=run.status,
        )
    return run


class RunResultsView(RunScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.RunResults})
    def get(self, request: AuthenticatedRequest) -> Response:
        policy = self.reader(request)
        results = run_results(run=finished_run(self.run), signed_links=policy.signed_links)
        return Response(sent(published_run(results, in_full=policy.in_full)))


class RunPreviewView(RunScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.RunPreview})
    def get(self, request: AuthenticatedRequest) -> Response:
        return Response(sent(run_preview(run=finished_run(self.run))))


class RunSampleView(RunScopedView):
    post_reads_run = True
    grant_levels = {"POST": "read"}

    @extend_schema(request=RunSampleQuery, responses={200: answers.RunSample})
    def post(self, request: AuthenticatedRequest) -> Response:
        run = finished_run(self.run)
        body = parsed(RunSampleQuery, request)
        crs = crs_of(body.crs, run)
        return Response(sent(run_sample(run=run, points=xy(body.points), crs=crs)))


class RunTimeSeriesView(RunScopedView):
    post_reads_run = True
    grant_levels = {"POST": "read"}

    @extend_schema(request=RunSeriesQuery, responses={200: answers.RunTimeSeries})
    def post(self, request: AuthenticatedRequest) -> Response:
        run = self.run
        asked = parsed(RunSeriesQuery, request)
        crs = crs_of(asked.crs, run)
        finished_run(run)
        series = run_series(run=run, gauges=asked.gauges, flow_lines=asked.flow_lines, points=xy(asked.points), crs=crs)
        return Response(sent(series))


class RunImpactView(RunScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.RunImpact})
    def get(self, request: AuthenticatedRequest, other_run_id: int) -> Response:
        run = self.run
        other = comparable(run, run_get(user=request.user, run_id=other_run_id))
        for finished in (run, other):
            finished_run(finished)
        # Signed links only for those who read the run in full through an agent (the public-reader policy).
        impact = run_impact(
            run=run,
            other=other,
            impact=runs_impact(run=run, other=other),
            signed_links=self.reader(request).signed_links,
        )
        return Response(sent(impact))
