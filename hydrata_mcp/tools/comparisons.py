from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from hydrata_contract import paths
from hydrata_contract.requests.observations import RunCompare, RunsRank
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.handback import HandBack
from hydrata_mcp.tools.arguments import ProjectId
from hydrata_mcp.tools.observations import EventId
from hydrata_mcp.tools.registry import tool
from hydrata_mcp.tools.runs import RunId

ComparisonId = Annotated[int, Field(ge=1, description="From compare_run_with_observations.")]
COMPARISON_NAMES = (
    "id",
    *(f"points.{key}" for key in ("observation_id", "observed", "modelled", "error", "within_tolerance")),
    *(f"metrics.{key}" for key in ("n", "bias", "mae", "rmse", "max_abs_error", "within_tolerance")),
)


class Metrics(BaseModel):
    n: int = Field(description="Observations compared (those on the model).")
    bias: float | None = Field(description="Mean error, modelled - observed (m): positive = the model is high.")
    mae: float | None = Field(description="Mean absolute error (m).")
    rmse: float | None = Field(description="Root mean square error (m).")
    max_abs_error: float | None
    within_tolerance: int = Field(description="How many errors are within their observation's tolerance.")
    within_tolerance_share: float | None
    dry: int = Field(description="Compared points the model never wetted (their stage is the ground level).")
    outside_model: int = Field(description="Observations off the model, not compared.")


class ComparedPoint(BaseModel):
    observation_id: int
    quantity: str
    x: float
    y: float
    observed: float
    modelled: float | None = Field(description="The run's peak at the point; null off the model.")
    error: float | None = Field(description="modelled - observed (m).")
    tolerance: float
    within_tolerance: bool | None
    wet: bool | None = Field(description="False where the model never wetted the point.")
    in_model: bool


class Comparison(BaseModel):
    id: int
    run: int
    event: int
    event_name: str
    project: int
    scenario: int
    scenario_name: str
    method: str = Field(description="raster_cell: the run's max_stage / max_depth cell containing the point.")
    computed_at: datetime
    is_stale: bool = Field(description="True when observations changed since: call recompute_comparison.")
    metrics: Metrics
    points: list[ComparedPoint]


class ComparisonHandBack(Comparison, HandBack):
    pass


class RankedRun(BaseModel):
    rank: int
    run: int
    comparison: int
    metrics: Metrics
    settings: dict[str, Any] = Field(
        description="Scenario, resolution, duration, and the friction (Manning's n), "
        "inflow and rainfall values the run was built with."
    )


class Ranking(HandBack):
    event: int
    event_name: str
    differing: list[str] = Field(description="The settings that differ between the runs.")
    results: list[RankedRun] = Field(description="Best first: lowest RMSE, ties by MAE.")


def comparison_of(data: dict[str, Any]) -> Comparison:
    return Comparison.model_validate(data)  # the model's fields are the allowlist: other keys are dropped


def metrics_summary(metrics: Metrics) -> dict[str, Any]:
    return {
        "n": metrics.n,
        "bias": metrics.bias,
        "rmse": metrics.rmse,
        "mae": metrics.mae,
        "max_abs_error": metrics.max_abs_error,
        "within_tolerance": metrics.within_tolerance,
        "dry": metrics.dry,
        "outside_model": metrics.outside_model,
    }


def metrics_sentence(metrics: Metrics) -> str:
    if not metrics.n:
        return "no observation lies on the model, so there is nothing to compare"
    return (
        f"{metrics.n} observation(s), bias {metrics.bias:+.3f} m, RMSE {metrics.rmse:.3f} m, "
        f"{metrics.within_tolerance} of {metrics.n} within tolerance"
    )


def _handed_back(data: dict[str, Any]) -> ComparisonHandBack:
    comparison = comparison_of(data)
    link = data["ui_url"]
    return ComparisonHandBack(
        **comparison.model_dump(),
        ui_url=link,
        summary=metrics_summary(comparison.metrics),
        say_to_user=f"Run {comparison.run} against '{comparison.event_name}': "
        f"{metrics_sentence(comparison.metrics)}. See it point by point: {link}",
    )


@tool(title="Compare with observations", relied_on=COMPARISON_NAMES)
async def compare_run_with_observations(ctx: Context, run_id: RunId, event_id: EventId) -> ComparisonHandBack:
    """Compare a complete run's peaks with a flood event's observations point by point (error = modelled -
    observed), with metrics; again for the same pair updates it."""
    api = PlatformClient.for_context(ctx)
    return _handed_back(
        (await api.post(paths.RUN_COMPARE.url(run_id=run_id), json=body(RunCompare, event=event_id))).data
    )


@tool(title="Recompute a comparison", idempotent=True, relied_on=COMPARISON_NAMES)
async def recompute_comparison(ctx: Context, comparison_id: ComparisonId) -> ComparisonHandBack:
    """Compute a comparison again from the event's observations as they are now."""
    api = PlatformClient.for_context(ctx)
    return _handed_back((await api.post(paths.COMPARISON_RECOMPUTE.url(comparison_id=comparison_id))).data)


@tool(title="Get a comparison", read_only=True, idempotent=True, relied_on=COMPARISON_NAMES)
async def get_comparison(ctx: Context, comparison_id: ComparisonId) -> Comparison:
    """Read a comparison: points, metrics, and whether observations changed since (is_stale)."""
    api = PlatformClient.for_context(ctx)
    return comparison_of((await api.get(paths.COMPARISON_DETAIL.url(comparison_id=comparison_id))).data)


@tool(title="Rank runs by observations")
async def rank_runs_against_observations(
    ctx: Context,
    project_id: ProjectId,
    event_id: EventId,
    run_ids: Annotated[
        list[int],
        Field(min_length=1, max_length=20, description="Complete runs of the project, e.g. one per Manning's n."),
    ],
) -> Ranking:
    """Calibration: compare runs with an event's observations, ranked by RMSE then MAE, with the settings that
    differ between them (e.g. which Manning's n fits best)."""
    api = PlatformClient.for_context(ctx)
    ranked = body(RunsRank, event=event_id, runs=run_ids)
    data = (await api.post(paths.RANKINGS.url(project_id=project_id), json=ranked)).data
    results = [RankedRun.model_validate(entry) for entry in data["results"]]
    best = results[0]
    link = data["ui_url"]
    differing = ", ".join(f"{name} {best.settings.get(name)}" for name in data["differing"]) or "the same settings"
    return Ranking(
        event=data["event"],
        event_name=data["event_name"],
        differing=data["differing"],
        results=results,
        ui_url=link,
        summary={
            "best_run": best.run,
            "differing": data["differing"],
            "ranking": [
                {
                    "rank": r.rank,
                    "run": r.run,
                    "rmse": r.metrics.rmse,
                    "mae": r.metrics.mae,
                    "within_tolerance": r.metrics.within_tolerance,
                    "n": r.metrics.n,
                }
                for r in results
            ],
        },
        say_to_user=f"Of {len(results)} run(s), run {best.run} fits '{data['event_name']}' best "
        f"({metrics_sentence(best.metrics)}), with {differing}. See it here: {link}",
    )
