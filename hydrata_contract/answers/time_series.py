"""A time series' answers: its summary, a page of them, and the series with its rows."""

from datetime import datetime

from pydantic import Field

from hydrata_contract.answers.base import Answer, map_link
from hydrata_contract.inputs import SeriesType


class TimeSeriesSummary(Answer):
    id: int
    name: str
    series_type: SeriesType
    units: str
    timezone: str
    source: str
    location_name: str
    description: str
    row_count: int
    first_timestamp: datetime
    last_timestamp: datetime
    created_at: datetime
    ui_url: str = map_link()


class TimeSeriesRow(Answer):
    timestamp: datetime = Field(description="ISO 8601, UTC.")
    value: float


class TimeSeriesRows(Answer):
    rowData: list[TimeSeriesRow] = Field(description="Sorted by time.")  # noqa: N815  # the wire's spelling


class TimeSeriesDetail(TimeSeriesSummary):
    data: TimeSeriesRows


class TimeSeriesPage(Answer):
    count: int
    next: str | None
    previous: str | None
    results: list[TimeSeriesSummary]
    ui_url: str = Field(description="The map's Time series panel.")
