"""A run's answers as the contract's models (hydrata_contract/answers/runs.py), built from the row: each model takes
the row's own fields by attribute (`from_attributes`), and only what is worked out is named here, so a field added to
`Run` and to the answer needs no builder of its own. A public reader's answer is the same model cut down by the
view (api/runs.py: published_run)."""

from typing import Any

from hydrata.anuga.models import Run
from hydrata.anuga.selectors.links import run_link
from hydrata.anuga.selectors.queue import run_queue_place
from hydrata.anuga.selectors.run_results import preview_png, result_layers, sample
from hydrata.anuga.selectors.run_series import run_time_series, series_chart_png
from hydrata.anuga.selectors.runs import phase_of, run_statistics, worker_silent_seconds
from hydrata.core.rows import from_row
from hydrata_contract.answers.base import Picture
from hydrata_contract.answers.runs import (
    BuiltRun,
    RunCompact,
    RunDetail,
    RunImpact,
    RunPreview,
    RunResults,
    RunSample,
    RunState,
    RunTimeSeries,
)

LOG_TAIL_LINES = 60


def _state(run: Run) -> dict[str, Any]:
    """What a run's state works out beside the row's own fields."""
    return {
        "phase": phase_of(run),
        "progress_pct": round(run.progress_pct, 1),
        "compute_backend": run.compute_backend or None,
        "ui_url": run_link(run),
        "worker_silent_seconds": worker_silent_seconds(run=run),
        "queue": run_queue_place(run=run),
    }


def run_state(*, run: Run) -> RunState:
    return from_row(RunState, run, **_state(run))


def run_detail(*, run: Run, signed_links: bool) -> RunDetail:
    return from_row(
        RunDetail,
        run,
        **_state(run),
        scenario=run.scenario_id,
        project=run.scenario.project_id,
        scenario_name=run.scenario.name,
        compute_cost=None if run.compute_cost is None else str(run.compute_cost),
        currency="USD",
        retry_of=run.retry_of_id,
        wall_seconds=_wall_seconds(run),
        log_tail=run.log.splitlines()[-LOG_TAIL_LINES:],
        statistics=run_statistics(run=run),
        **result_layers(run, signed_links=signed_links),
    )


def run_results(*, run: Run, signed_links: bool) -> RunResults:
    return from_row(
        RunResults,
        run,
        ui_url=run_link(run),
        statistics=run_statistics(run=run),
        **result_layers(run, signed_links=signed_links),
    )


def run_compact(*, run: Run) -> RunCompact:
    """The latest run as a scenario's answer carries it."""
    return from_row(RunCompact, run, queue=run_queue_place(run=run))


def built_run(*, run: Run) -> BuiltRun:
    """The run a build request made or found."""
    return from_row(BuiltRun, run, queue=run_queue_place(run=run))


def run_impact(*, run: Run, other: Run, impact: dict[str, Any], signed_links: bool) -> RunImpact:
    """other - run (services/run_impact.runs_impact's `impact`), with signed links only for `signed_links`."""
    answer = {
        "id": run.pk,
        "project": run.scenario.project_id,
        "scenario": run.scenario_id,
        "ui_url": run_link(run, compare=other.pk),
        **impact,
    }
    if not signed_links:
        answer = {key: value for key, value in answer.items() if not key.startswith("s3_")}
    return RunImpact.model_validate(answer)


def run_preview(*, run: Run) -> RunPreview:
    return RunPreview(id=run.pk, mime_type="image/png", data=preview_png(run))


def run_sample(*, run: Run, points: list[tuple[float, float]], crs: str) -> RunSample:
    """The values at `points` (in `crs`)."""
    return RunSample.model_validate({"id": run.pk, "crs": crs, "points": sample(run, points=points, crs=crs)})


def run_series(
    *, run: Run, gauges: list[str] | None, flow_lines: list[str] | None, points: list[tuple[float, float]], crs: str
) -> RunTimeSeries:
    """The series asked for (run_series.run_time_series), with their chart."""
    series = run_time_series(run, gauges=gauges, flow_lines=flow_lines, crs=crs, points=points)
    chart = Picture(mime_type="image/png", data=series_chart_png(run, series))
    return RunTimeSeries.model_validate({"id": run.pk, "crs": crs, "series": series, "chart": chart})


def _wall_seconds(run: Run) -> float | None:
    if run.started_at and run.finished_at:
        return round((run.finished_at - run.started_at).total_seconds(), 1)
    return None
