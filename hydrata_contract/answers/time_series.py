"""A time series' answers: its summary, a page of them, and the series with its rows."""

from datetime import datetime
from typing import Literal

from pydantic import Field

from hydrata_contract.answers.base import Answer, Page, Sparse, map_link
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


class TimeSeriesApplied(Sparse):
    """compute/series_units.py series_applied: what the model applies of the series on its own, from its first
    instant to its last row; or, for units it does not know (or values they cannot hold), `problem`."""

    applies_as: Literal["rain", "flow", "stage"] | None
    units: str | None = None
    meaning: str | None = None
    starts_at: str | None = None
    ends_at: str | None = None
    total_depth_mm: float | None = None
    peak_intensity_mm_per_h: float | None = None
    volume_m3: float | None = None
    peak_m3_per_s: float | None = None
    min_m: float | None = None
    max_m: float | None = None
    problem: str | None = None


class TimeSeriesDetail(TimeSeriesSummary):
    applied: TimeSeriesApplied
    data: TimeSeriesRows


class TimeSeriesPage(Page):
    results: list[TimeSeriesSummary]
    ui_url: str = Field(description="The map's Time series panel.")
