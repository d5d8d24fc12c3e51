from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from hydrata_contract import paths
from hydrata_contract.answers.time_series import TimeSeriesDetail, TimeSeriesPage, TimeSeriesRow, TimeSeriesSummary
from hydrata_contract.inputs import SeriesType
from hydrata_contract.requests.time_series import TimeSeriesCreate
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.handback import HandBack
from hydrata_mcp.tools.arguments import ProjectId
from hydrata_mcp.tools.projections import Projection, argument
from hydrata_mcp.tools.registry import tool

# The units a series is taken in when none are given. None for rain: mm/hr, mm/interval and mm cumulative all read
# as plausible numbers, and a wrong guess scales every storm, so a hyetograph names its units or is refused.
DEFAULT_UNITS = {"hyetograph": None, "hydrograph": "m3/s", "stage": "m", "generic": ""}
RAIN_UNITS_NEEDED = (
    "A hyetograph needs `units`: mm/hr (an intensity), mm/interval (the depth in the interval ending at each row) "
    "or mm cumulative (the depth since the first row). 'mm' alone is ambiguous. Call again with one of them."
)
# What the model applies of a series, as the platform computed it, that a hand-back summary carries.
APPLIED = (
    "applies_as",
    "starts_at",
    "ends_at",
    "total_depth_mm",
    "peak_intensity_mm_per_h",
    "volume_m3",
    "peak_m3_per_s",
    "min_m",
    "max_m",
    "problem",
)


class Row(
    Projection,
    of=TimeSeriesRow,
    fields=("timestamp", "value"),
    described={"timestamp": "ISO 8601; no offset: in the series' timezone.", "value": None},
):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class SeriesData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # The platform's wire name, as Hydrata clients send it.
    rowData: list[Row] = Field(min_length=1, max_length=100_000)  # noqa: N815


class TimeSeries(
    Projection,
    of=TimeSeriesSummary,
    fields=(
        *("id", "name", "series_type", "units", "timezone", "location_name", "row_count", "first_timestamp"),
        "last_timestamp",
    ),
):
    pass


class TimeSeriesList(BaseModel):
    results: list[TimeSeries]


class CreatedTimeSeries(TimeSeries, HandBack):
    pass


# The contract's series types written inline in the argument's schema (hydrata_mcp.tools.arguments says why).
SeriesTypeChoice = Annotated[
    SeriesType, WithJsonSchema({"type": "string", "enum": SeriesType.values()}, mode="validation")
]


def figure(value: float) -> str:
    """A figure for a sentence: four significant digits, thousands separated."""
    return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"


def applied_in_words(applied: dict[str, Any]) -> str:
    """What the model will apply, in the platform's numbers."""
    span = f"from {applied.get('starts_at')} to {applied.get('ends_at')}"
    if applied.get("applies_as") == "rain":
        return (
            f"The model will apply {figure(applied['total_depth_mm'])} mm of rain in total {span}, at most "
            f"{figure(applied['peak_intensity_mm_per_h'])} mm/h."
        )
    if applied.get("applies_as") == "flow":
        return (
            f"The model will bring in {figure(applied['volume_m3'])} m³ {span}, at most "
            f"{figure(applied['peak_m3_per_s'])} m³/s."
        )
    if applied.get("applies_as") == "stage":
        return f"As a water level it ranges from {figure(applied['min_m'])} to {figure(applied['max_m'])} m."
    return f"The model cannot apply it: {applied.get('problem')}"


@tool(title="Create a time series", relied_on=("id",))
async def create_time_series(
    ctx: Context,
    project_id: ProjectId,
    name: Annotated[
        str,
        argument(TimeSeriesCreate, "name", "Unique in the project; rainfall `data` may name it."),
    ],
    data: Annotated[SeriesData, Field(description="Rows of timestamp and value.")],
    series_type: Annotated[
        SeriesTypeChoice,
        argument(TimeSeriesCreate, "series_type", "hyetograph: rain, hydrograph: flow, stage: water level."),
    ] = SeriesType.HYETOGRAPH,
    units: Annotated[
        str | None,
        Field(
            max_length=30,
            description="hyetograph (required): mm/hr, mm/interval (ending at the row) or mm "
            "cumulative; hydrograph: m3/s; stage: m.",
        ),
    ] = None,
    description: Annotated[str, argument(TimeSeriesCreate, "description", "Free text.")] = "",
    source: Annotated[str, argument(TimeSeriesCreate, "source", "Where the numbers come from.")] = "",
    location_name: Annotated[str, argument(TimeSeriesCreate, "location_name", "The gauge or place.")] = "",
    timezone: Annotated[
        str, argument(TimeSeriesCreate, "timezone", "IANA zone for timestamps without an offset.")
    ] = "UTC",
) -> CreatedTimeSeries:
    """Store a gauge record (rain, flow or level over time) in a project; a bad row is refused by its index."""
    units = DEFAULT_UNITS[series_type] if units is None else units
    if units is None:
        raise ToolError(RAIN_UNITS_NEEDED)
    api = PlatformClient.for_context(ctx)
    rows = [{"timestamp": row.timestamp.isoformat(), "value": row.value} for row in data.rowData]
    response = await api.post(
        paths.TIME_SERIES.url(project_id=project_id),
        json=body(
            TimeSeriesCreate,
            name=name,
            series_type=series_type,
            units=units,
            timezone=timezone,
            description=description,
            source=source,
            location_name=location_name,
            data={"rowData": rows},
        ),
    )
    series = TimeSeriesDetail.model_validate(response.data)
    applied = series.applied.model_dump(exclude_unset=True)
    values = [row.value for row in data.rowData]
    link = series.ui_url
    return CreatedTimeSeries.from_answer(
        series,
        summary={
            "row_count": series.row_count,
            "first_timestamp": series.first_timestamp.isoformat(),
            "last_timestamp": series.last_timestamp.isoformat(),
            "min_value": min(values),
            "max_value": max(values),
            "units": series.units,
            **{name: applied[name] for name in APPLIED if name in applied},
        },
        say_to_user=f"I stored '{series.name}': {series.row_count} values from {series.first_timestamp:%Y-%m-%d %H:%M} "
        f"to {series.last_timestamp:%Y-%m-%d %H:%M} UTC, {min(values)} to {max(values)} "
        f"{series.units}. {applied_in_words(applied)} See it here: {link}",
    )


@tool(title="List time series", read_only=True, idempotent=True)
async def list_time_series(ctx: Context, project_id: ProjectId) -> TimeSeriesList:
    """List a project's time series: id, name, type, units, row count, first and last timestamp (not the rows)."""
    api = PlatformClient.for_context(ctx)
    listed = TimeSeriesPage.model_validate((await api.get(paths.TIME_SERIES.url(project_id=project_id))).data)
    return TimeSeriesList(results=[TimeSeries.from_answer(series) for series in listed.results])
