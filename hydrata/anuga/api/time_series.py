from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectListView, ProjectScopedView
from hydrata.anuga.selectors.links import project_link
from hydrata.anuga.selectors.model_inputs import (
    time_series_detail,
    time_series_get,
    time_series_of,
    time_series_summary,
)
from hydrata.anuga.services.time_series import time_series_create
from hydrata.core.answers import page_answer, sent
from hydrata.core.bodies import parsed
from hydrata.core.requests import AuthenticatedRequest
from hydrata_contract.answers import time_series as answers
from hydrata_contract.links import Panel
from hydrata_contract.requests.time_series import TimeSeriesCreate


class TimeSeriesListCreateView(ProjectListView):
    grant_levels = {"GET": "read", "POST": "draft"}
    list_panel = Panel.TIME_SERIES

    @extend_schema(responses={200: answers.TimeSeriesPage})
    def get(self, request: AuthenticatedRequest) -> Response:
        page = self.paginate_queryset(time_series_of(project=self.project))
        results = [time_series_summary(series=series) for series in page or []]
        ui_url = project_link(self.project, self.list_panel)
        return Response(sent(page_answer(view=self, model=answers.TimeSeriesPage, results=results, ui_url=ui_url)))

    @extend_schema(request=TimeSeriesCreate, responses={201: answers.TimeSeriesDetail})
    def post(self, request: AuthenticatedRequest) -> Response:
        body = parsed(TimeSeriesCreate, request).model_dump()
        series = time_series_create(project=self.project, user=request.user, **body)
        return Response(sent(time_series_detail(series=series)), status=status.HTTP_201_CREATED)


class TimeSeriesDetailView(ProjectScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.TimeSeriesDetail})
    def get(self, request: AuthenticatedRequest, series_id: int) -> Response:
        series = time_series_get(project=self.project, series_id=series_id)
        return Response(sent(time_series_detail(series=series)))
