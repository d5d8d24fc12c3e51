"""What an engineer reads beyond the peaks: time series at gauges, flow lines and points, and the impact of one run
against another."""

import base64
from typing import Annotated

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ImageContent, TextContent
from pydantic import BaseModel, Field

from hydrata_contract import paths
from hydrata_contract.answers.base import Picture
from hydrata_contract.answers.runs import GaugeChange, ResultLayerEntry, RunTimeSeries, Series
from hydrata_contract.answers.runs import RunImpact as RunImpactAnswer
from hydrata_contract.requests.runs import RunSeriesQuery
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.handback import HandBack
from hydrata_mcp.tools.projections import Projection
from hydrata_mcp.tools.registry import tool
from hydrata_mcp.tools.runs import Point, RunId

Names = Annotated[list[Annotated[str, Field(min_length=1, max_length=200)]] | None, Field(max_length=50)]


class SeriesValues(Projection, of=Series, fields=tuple(Series.model_fields)):
    """A series with every key, null where its kind has none (a flow line's `stage`, a gauge's `discharge`): the
    platform's answer leaves those out, the tool's result has always named them."""


class TimeSeries(Projection, of=RunTimeSeries, fields=("id", "crs")):
    """The contract's series (gauges, then flow lines, then points, each in the order asked), its chart as an image
    beside them."""

    series: list[SeriesValues] = Field(description=RunTimeSeries.model_fields["series"].description)


class ImpactStatistics(BaseModel):
    max_increase_m: float | None = Field(description="Largest rise of maximum depth (other - run), m; 0 if none.")
    max_decrease_m: float | None = Field(description="Largest fall of maximum depth, as a positive number of m.")
    max_stage_increase_m: float | None
    max_stage_decrease_m: float | None
    area_wetter_m2: float = Field(description="Area where the maximum depth rose by more than 0.01 m.")
    area_drier_m2: float = Field(description="Area where it fell by more than 0.01 m.")
    area_newly_wet_m2: float = Field(description="Dry (< 1 cm) in the run, wet in the other.")
    area_no_longer_wet_m2: float
    area_wet_in_either_m2: float
    change_threshold_m: float


class RunImpact(
    HandBack,
    Projection,
    of=RunImpactAnswer,
    fields=("run", "other_run", "run_resolution_m", "other_resolution_m", "gauges"),
):
    """The contract's impact with its statistics typed (the contract keeps them a mapping) and its rasters by
    name."""

    statistics: ImpactStatistics
    result_layers: dict[str, ResultLayerEntry] = Field(
        description="The impact COGs: gn_layer_impact_depth, gn_layer_impact_stage."
    )


def _at_gauges(gauges: list[GaugeChange], resolution: float, other_resolution: float) -> str:
    """A sentence on the largest change of peak depth at a gauge; as mesh convergence when the resolutions differ."""
    changed = [gauge for gauge in gauges if gauge.change_m is not None]
    if not changed:
        return ""
    largest = max(changed, key=lambda gauge: abs(gauge.change_m or 0.0))
    share = "" if largest.change_pct is None else f" ({largest.change_pct:+.1f}%)"
    prefix = (
        f" Mesh convergence, {resolution:g} m to {other_resolution:g} m:"
        if resolution != other_resolution
        else " At the gauges:"
    )
    return f"{prefix} peak depth changes by at most {largest.change_m:+.3f} m{share}, at '{largest.name}'."


def _image(picture: Picture) -> ImageContent:
    base64.b64decode(picture.data, validate=True)  # only a real image goes to the model
    return ImageContent(type="image", data=picture.data, mime_type=picture.mime_type)


@tool(
    title="Get run time series",
    read_only=True,
    idempotent=True,
    relied_on=tuple(f"series.{key}" for key in ("name", "kind", "x", "y", "t", "stage", "depth", "speed", "discharge")),
)
async def get_run_time_series(
    ctx: Context,
    run_id: RunId,
    gauges: Annotated[Names, Field(description="Names in the run's gauge layer.")] = None,
    flow_lines: Annotated[Names, Field(description="Names in the run's flow_line layer.")] = None,
    points: Annotated[
        list[Point] | None, Field(max_length=50, description="Ad-hoc [{x, y}] in the project's CRS.")
    ] = None,
) -> Annotated[CallToolResult, TimeSeries]:
    """A complete run's stage, depth and speed over time at gauges and points, and discharge through flow lines,
    with a PNG chart; no arguments means every gauge and flow line."""
    api = PlatformClient.for_context(ctx)
    asked = body(
        RunSeriesQuery, gauges=gauges, flow_lines=flow_lines, points=[point.model_dump() for point in points or []]
    )
    data = (await api.post(paths.RUN_TIME_SERIES.url(run_id=run_id), json=asked)).data
    answered = RunTimeSeries.model_validate(data)
    result = TimeSeries.from_answer(answered, series=[SeriesValues.from_answer(item) for item in answered.series])
    return CallToolResult(
        content=[TextContent(type="text", text=result.model_dump_json(indent=2)), _image(answered.chart)],
        structured_content=result.model_dump(mode="json"),
    )


# The impact statistics a comparison's summary carries, and that clients rely on.
IMPACT_SUMMARY = (
    "max_increase_m",
    "max_decrease_m",
    "area_wetter_m2",
    "area_drier_m2",
    "area_newly_wet_m2",
    "area_no_longer_wet_m2",
)


@tool(
    title="Compare two runs",
    read_only=True,
    idempotent=True,
    relied_on=tuple(f"statistics.{key}" for key in IMPACT_SUMMARY),
)
async def compare_runs(
    ctx: Context,
    run_id: Annotated[int, Field(ge=1, description="The base run, e.g. existing conditions.")],
    other_run_id: Annotated[int, Field(ge=1, description="The run compared with it, e.g. with the development.")],
) -> Annotated[CallToolResult, RunImpact]:
    """Impact (afflux, other - run) of two complete runs on one DEM grid: max depth and stage up and down, areas
    changed over 1 cm, gauge peaks (two resolutions: mesh convergence), layers, PNG."""
    api = PlatformClient.for_context(ctx)
    data = (await api.get(paths.RUN_IMPACT.url(run_id=run_id, other_run_id=other_run_id))).data
    impact = RunImpactAnswer.model_validate(data)
    statistics = ImpactStatistics.model_validate(impact.statistics)
    link = impact.ui_url
    result = RunImpact.from_answer(
        impact,
        statistics=statistics,
        ui_url=link,
        result_layers={
            "gn_layer_impact_depth": impact.gn_layer_impact_depth,
            "gn_layer_impact_stage": impact.gn_layer_impact_stage,
        },
        summary={key: getattr(statistics, key) for key in IMPACT_SUMMARY},
        say_to_user=f"Run {other_run_id} against run {run_id}: maximum depth up to "
        f"{statistics.max_increase_m or 0:.2f} m higher and {statistics.max_decrease_m or 0:.2f} m "
        f"lower; {statistics.area_wetter_m2:,.0f} m² wetter, {statistics.area_newly_wet_m2:,.0f} m² "
        f"newly wet.{_at_gauges(impact.gauges, impact.run_resolution_m, impact.other_resolution_m)} "
        f"See the impact map here: {link}",
    )
    return CallToolResult(
        content=[TextContent(type="text", text=result.model_dump_json(indent=2)), _image(impact.image)],
        structured_content=result.model_dump(mode="json"),
    )
