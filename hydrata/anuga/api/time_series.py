from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectListView, ProjectScopedView
from hydrata.anuga.models import TimeSeries
from hydrata.anuga.selectors.links import time_series_link
from hydrata.anuga.selectors.model_inputs import time_series_applied, time_series_get, time_series_of
from hydrata.anuga.services.time_series import time_series_create
from hydrata.core.answers import answer
from hydrata.core.bodies import parsed
from hydrata.core.links import MapLinkField
from hydrata.core.requests import AuthenticatedRequest
from hydrata_contract.answers import time_series as answers
from hydrata_contract.links import Panel
from hydrata_contract.requests.time_series import TimeSeriesCreate

SUMMARY_FIELDS = [
    "id",
    "name",
    "series_type",
    "units",
    "timezone",
    "source",
    "location_name",
    "description",
    "row_count",
    "first_timestamp",
    "last_timestamp",
    "created_at",
]


class TimeSeriesSummary(serializers.ModelSerializer):
    ui_url = MapLinkField(time_series_link)

    class Meta:
        model = TimeSeries
        fields = [*SUMMARY_FIELDS, "ui_url"]


class TimeSeriesDetail(serializers.ModelSerializer):
    data = serializers.SerializerMethodField()  # type: ignore[assignment]  # the API's field name shadows Serializer.data for the type checker only
    ui_url = MapLinkField(time_series_link)
    applied = serializers.SerializerMethodField(
        help_text="What the model applies of the series: applies_as (rain, flow, stage or null), starts_at, ends_at, "
        "and for rain "
        "total_depth_mm and peak_intensity_mm_per_h, for flow volume_m3 and peak_m3_per_s, for a level min_m and "
        "max_m; or problem."
    )

    class Meta:
        model = TimeSeries
        fields = [*SUMMARY_FIELDS, "ui_url", "applied", "data"]

    def get_data(self, series: TimeSeries) -> dict:
        return {"rowData": series.rows}

    def get_applied(self, series: TimeSeries) -> dict[str, Any]:
        return time_series_applied(series=series)


def series_detail(series: TimeSeries) -> dict[str, Any]:
    """TimeSeriesDetail's answer (its `data` field hides the serializer's `.data` from the type checker)."""
    return TimeSeriesDetail(series).to_representation(series)


class TimeSeriesListCreateView(ProjectListView):
    grant_levels = {"GET": "read", "POST": "draft"}
    list_panel = Panel.TIME_SERIES

    @extend_schema(responses={200: answers.TimeSeriesPage})
    def get(self, request: AuthenticatedRequest) -> Response:
        page = self.paginate_queryset(time_series_of(project=self.project))
        response = self.get_paginated_response(TimeSeriesSummary(page, many=True).data)
        answer(answers.TimeSeriesPage, response.data)
        return response

    @extend_schema(request=TimeSeriesCreate, responses={201: answers.TimeSeriesDetail})
    def post(self, request: AuthenticatedRequest) -> Response:
        body = parsed(TimeSeriesCreate, request).model_dump()
        series = time_series_create(project=self.project, user=request.user, **body)
        return Response(answer(answers.TimeSeriesDetail, series_detail(series)), status=status.HTTP_201_CREATED)


class TimeSeriesDetailView(ProjectScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.TimeSeriesDetail})
    def get(self, request: AuthenticatedRequest, series_id: int) -> Response:
        series = time_series_get(project=self.project, series_id=series_id)
        return Response(answer(answers.TimeSeriesDetail, series_detail(series)))
