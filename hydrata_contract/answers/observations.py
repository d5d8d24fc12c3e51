"""The observations' answers: a project's flood events, their observations (one, a page, an import), a run
compared with an event's observations, and runs ranked against them."""

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from hydrata_contract.answers.base import Answer, Page, map_link
from hydrata_contract.observations import Quantity


class FloodEventDetail(Answer):
    """event_answer (hydrata/observations/api/answers.py)."""

    id: int
    project: int
    name: str
    started_at: datetime
    ended_at: datetime | None
    description: str
    observation_count: int
    ui_url: str = map_link()
    created_at: datetime
    updated_at: datetime


class FloodEventList(Answer):
    """EventListCreateView: every flood event of the project, not paginated."""

    results: list[FloodEventDetail]


class GivenPosition(Answer):
    """The point as it was sent, before it was put in the project CRS."""

    x: float
    y: float
    crs: str


class ObservationDetail(Answer):
    """observation_answer (hydrata/observations/api/answers.py)."""

    id: int
    event: int
    x: float = Field(description="Easting in the project CRS.")
    y: float = Field(description="Northing in the project CRS.")
    crs: str = Field(description="The project CRS, which x and y are in.")
    given: GivenPosition
    quantity: Quantity
    value_m: float
    tolerance_m: float
    observed_at: datetime | None
    source: str
    notes: str
    ui_url: str = map_link()
    created_at: datetime
    updated_at: datetime


class ObservationPage(Page):
    results: list[ObservationDetail]
    ui_url: str = Field(description="The map's Observations panel.")


class ObservationImport(Answer):
    """ObservationImportView."""

    event: int
    imported: int
    quantity: Quantity
    value_min: float | None
    value_max: float | None
    bbox_wgs84: list[float] | None = Field(description="[minx, miny, maxx, maxy] of the imported points.")
    observation_count: int = Field(description="The event's observations after the import.")


class ComparisonMetrics(Answer):
    """hydrata.compute.comparisons.comparison.metrics: over the points the model covers; null when it covers none."""

    n: int
    within_tolerance: int
    outside_model: int
    dry: int
    bias: float | None = Field(description="Mean error, modelled - observed (m).")
    mae: float | None
    rmse: float | None
    max_abs_error: float | None
    within_tolerance_share: float | None


class ComparedPoint(Answer):
    """hydrata.compute.comparisons.comparison.point_row, with the observation's place in the project CRS."""

    observation_id: int
    quantity: Quantity
    observed: float
    tolerance: float
    modelled: float | None = Field(description="The run's peak at the point; null off the model.")
    error: float | None = Field(description="modelled - observed (m).")
    within_tolerance: bool | None
    wet: bool | None
    in_model: bool
    x: float
    y: float


class ComparisonDetail(Answer):
    """comparison_detail (hydrata/observations/api/answers.py)."""

    id: int
    run: int
    event: int
    event_name: str
    project: int
    crs: str = Field(description="The project's CRS: the points' x and y are in it.")
    scenario: int
    scenario_name: str
    method: str
    computed_at: datetime
    is_stale: bool = Field(description="The observations changed since; recompute.")
    metrics: ComparisonMetrics
    points: list[ComparedPoint] = Field(description="One row per observation, in observation order.")
    ui_url: str = map_link()


class RankedRun(Answer):
    """ranking_answer (hydrata/observations/api/answers.py)."""

    rank: int
    run: int
    comparison: int
    metrics: ComparisonMetrics
    settings: dict[str, Any] = Field(description="What the run was built with (run_reading.run_settings).")


class Ranking(Answer):
    """RankingView."""

    project: int
    ui_url: str = map_link()
    event: int
    event_name: str
    differing: list[str] = Field(description="Settings the runs do not share.")
    results: list[RankedRun] = Field(description="Best first: lowest RMSE, ties by MAE.")


class EventPoints(Answer):
    """EventPointsView: the event's observations as a GeoJSON FeatureCollection in WGS84, for the map."""

    type: Literal["FeatureCollection"]
    event: int
    feature_count: int
    bbox_wgs84: list[float] | None = Field(description="[west, south, east, north] of the points.")
    features: list[dict[str, Any]] = Field(
        description="One GeoJSON Point per observation, in observation order; its properties are observation_id, "
        "quantity, value_m, tolerance_m and source."
    )


class EventComparison(Answer):
    """One run's comparison with the event, in its place among the event's comparisons."""

    rank: int
    run: int
    comparison: int
    scenario: int
    scenario_name: str
    computed_at: datetime
    is_stale: bool
    metrics: ComparisonMetrics
    ui_url: str = map_link()


class EventComparisons(Answer):
    """EventComparisonsView: every run compared with the event, ranked as rank_runs ranks them."""

    event: int
    event_name: str
    results: list[EventComparison] = Field(description="Best first: lowest RMSE, ties by MAE, then by run id.")
