from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from hydrata_contract import paths
from hydrata_contract.answers.observations import ComparisonDetail, ComparisonMetrics
from hydrata_contract.answers.observations import Ranking as RankingAnswer
from hydrata_contract.requests.observations import RunCompare, RunsRank
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.handback import HandBack
from hydrata_mcp.tools.arguments import ProjectId
from hydrata_mcp.tools.observations import EventId
from hydrata_mcp.tools.projections import Projection
from hydrata_mcp.tools.registry import tool
from hydrata_mcp.tools.runs import RunId

ComparisonId = Annotated[int, Field(ge=1, description="From compare_run_with_observations.")]
COMPARISON_NAMES = (
    "id",
    *(f"points.{key}" for key in ("observation_id", "observed", "modelled", "error", "within_tolerance")),
    *(f"metrics.{key}" for key in ("n", "bias", "mae", "rmse", "max_abs_error", "within_tolerance")),
)


class Comparison(
    Projection,
    of=ComparisonDetail,
    fields=(
        *("id", "run", "event", "event_name", "project", "scenario", "scenario_name", "method", "computed_at"),
        *("is_stale", "metrics", "points"),
    ),
):
    pass


class ComparisonHandBack(Comparison, HandBack):
    pass


class Ranking(HandBack, Projection, of=RankingAnswer, fields=("event", "event_name", "differing", "results")):
    pass


def comparison_of(data: dict[str, Any]) -> Comparison:
    return Comparison.from_answer(ComparisonDetail.model_validate(data))


def metrics_summary(metrics: ComparisonMetrics) -> dict[str, Any]:
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


def metrics_sentence(metrics: ComparisonMetrics) -> str:
    if not metrics.n:
        return "no observation lies on the model, so there is nothing to compare"
    return (
        f"{metrics.n} observation(s), bias {metrics.bias:+.3f} m, RMSE {metrics.rmse:.3f} m, "
        f"{metrics.within_tolerance} of {metrics.n} within tolerance"
    )


def _handed_back(data: dict[str, Any]) -> ComparisonHandBack:
    comparison = ComparisonDetail.model_validate(data)
    link = comparison.ui_url
    return ComparisonHandBack.from_answer(
        comparison,
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
    ranking = RankingAnswer.model_validate(data)
    results = ranking.results
    best = results[0]
    link = ranking.ui_url
    differing = ", ".join(f"{name} {best.settings.get(name)}" for name in ranking.differing) or "the same settings"
    return Ranking.from_answer(
        ranking,
        summary={
            "best_run": best.run,
            "differing": ranking.differing,
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
        say_to_user=f"Of {len(results)} run(s), run {best.run} fits '{ranking.event_name}' best "
        f"({metrics_sentence(best.metrics)}), with {differing}. See it here: {link}",
    )
