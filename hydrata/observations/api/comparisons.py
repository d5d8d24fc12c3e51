from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.anuga.api.base import ProjectScopedView, RunScopedView
from hydrata.anuga.selectors.projects import project_get_writable
from hydrata.anuga.selectors.runs import run_get
from hydrata.core.answers import sent
from hydrata.core.bodies import parsed
from hydrata.core.requests import AuthenticatedRequest
from hydrata.observations.api.answers import comparison_detail, ranking_answer
from hydrata.observations.models import FloodEvent
from hydrata.observations.selectors import comparison_get, event_get, event_visible_get
from hydrata.observations.services.comparisons import comparison_compute, comparison_recompute, runs_rank
from hydrata_contract.answers import observations as answers
from hydrata_contract.requests.observations import RunCompare, RunsRank


def _writable_event(request: AuthenticatedRequest, event_id: int) -> FloodEvent:
    """An event the caller may see and change; whether the run is of its project the service checks (400)."""
    event = event_visible_get(user=request.user, event_id=event_id)
    project_get_writable(user=request.user, project_id=event.project_id)
    return event


class ComparisonDetailView(APIView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.ComparisonDetail})
    def get(self, request: AuthenticatedRequest, comparison_id: int) -> Response:
        comparison = comparison_get(user=request.user, comparison_id=comparison_id)
        return Response(sent(comparison_detail(comparison)))


class ComparisonRecomputeView(APIView):
    grant_levels = {"POST": "draft"}

    @extend_schema(request=None, responses={200: answers.ComparisonDetail})
    def post(self, request: AuthenticatedRequest, comparison_id: int) -> Response:
        comparison = comparison_get(user=request.user, comparison_id=comparison_id)
        project_get_writable(user=request.user, project_id=comparison.event.project_id)
        recomputed = comparison_recompute(comparison=comparison, user=request.user)
        return Response(sent(comparison_detail(recomputed)))


class RunCompareView(RunScopedView):
    post_reads_run = True  # it writes to the event's project, checked below

    grant_levels = {"POST": "draft"}

    @extend_schema(request=RunCompare, responses={201: answers.ComparisonDetail})
    def post(self, request: AuthenticatedRequest) -> Response:
        run = self.run
        event = _writable_event(request, parsed(RunCompare, request).event)
        comparison = comparison_compute(run=run, event=event, user=request.user)
        return Response(sent(comparison_detail(comparison)), status=status.HTTP_201_CREATED)


class RankingView(ProjectScopedView):
    grant_levels = {"POST": "draft"}

    @extend_schema(request=RunsRank, responses={200: answers.Ranking})
    def post(self, request: AuthenticatedRequest) -> Response:
        body = parsed(RunsRank, request)
        event = event_get(project=self.project, event_id=body.event)
        runs = [run_get(user=request.user, run_id=run_id) for run_id in dict.fromkeys(body.runs)]
        ranked = runs_rank(event=event, runs=runs, user=request.user)
        return Response(sent(ranking_answer(project=self.project, event=event, ranked=ranked)))
