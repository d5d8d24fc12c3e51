"""A finished run's time series: its gauges and flow lines as recorded while it computed (time_series.json), and
any point read back from its ANUGA output (run.sww); with a chart of them."""

import base64
import json
from typing import Any

from hydrata.anuga.models import Run
from hydrata.anuga.selectors.run_results import in_project_crs
from hydrata.anuga.selectors.runs import run_outputs
from hydrata.compute.figures.charts import series_chart
from hydrata.compute.outputs.sww_series import point_series
from hydrata.core.errors import NotFound, ValidationFailed
from hydrata.storage import get_storage
from hydrata_contract.compute import RunOutputs
from hydrata_contract.errors import ErrorCode

GAUGE_KEYS = ("x", "y", "stage", "depth", "speed", "xvel", "yvel")


def recorded_series(run: Run) -> dict[str, Any]:
    """time_series.json of the run; a run from before gauges were recorded has none."""
    storage, key = get_storage(), f"{run.results_prefix}/time_series.json"
    if not storage.exists(key=key):
        return {"t": [], "gauges": [], "flow_lines": []}
    with storage.open(key=key) as stream:
        return json.load(stream)


def _pick(recorded: list[dict[str, Any]], names: list[str], what: str, code: ErrorCode) -> list[dict[str, Any]]:
    by_name = {item["name"]: item for item in recorded}
    unknown = [name for name in names if name not in by_name]
    if unknown:
        known = ", ".join(repr(name) for name in by_name) or "none"
        raise ValidationFailed(
            f"The run recorded no {what} named {', '.join(map(repr, unknown))}; it recorded {known}.",
            code=code,
            names=unknown,
        )
    return [by_name[name] for name in names]


def run_time_series(
    run: Run, *, gauges: list[str] | None, flow_lines: list[str] | None, points: list[tuple[float, float]], crs: str
) -> list[dict[str, Any]]:
    """The series asked for, gauges then flow lines then points, each in the order given. With no gauges and no
    flow lines named and no points, every gauge and flow line the run recorded."""
    recorded = recorded_series(run)
    if gauges is None and flow_lines is None and not points:
        if not recorded["gauges"] and not recorded["flow_lines"]:
            raise ValidationFailed(
                f"Run {run.pk} recorded no series: its scenario had no gauge points and no flow_line lines. Ask "
                "for points [{x, y}] to read its stored output there, or add gauge points (each with a unique "
                "name) or flow_line lines to the scenario and run it again.",
                code=ErrorCode.NO_RECORDED_SERIES,
            )
        gauges = [item["name"] for item in recorded["gauges"]]
        flow_lines = [item["name"] for item in recorded["flow_lines"]]
    times = recorded["t"]
    series = [
        {"name": gauge["name"], "kind": "gauge", "t": times, **{key: gauge[key] for key in GAUGE_KEYS}}
        for gauge in _pick(recorded["gauges"], gauges or [], "gauge", ErrorCode.UNKNOWN_GAUGE)
    ]
    series += [
        {"name": line["name"], "kind": "flow_line", "t": times, "discharge": line["discharge"]}
        for line in _pick(recorded["flow_lines"], flow_lines or [], "flow line", ErrorCode.UNKNOWN_FLOW_LINE)
    ]
    if points:
        series += _point_series(run, points, crs)
    return series


def _point_series(run: Run, points: list[tuple[float, float]], crs: str) -> list[dict[str, Any]]:
    if run_outputs(run=run) == RunOutputs.ENVELOPE:
        raise NotFound(
            f"Run {run.pk} is a design study's member: it keeps no .sww, so it has no series at points. Its gauges' "
            "and flow lines' series are kept: ask for those instead.",
            code=ErrorCode.LAYER_NOT_FOUND,
        )
    with get_storage().local_path(key=f"{run.results_prefix}/run.sww") as sww:
        read = point_series(sww, in_project_crs(run, points, crs))
    return [
        {
            "name": f"point {number}",
            "kind": "point",
            "x": x,
            "y": y,
            "t": values.t,
            "stage": values.stage,
            "depth": values.depth,
            "speed": values.speed,
        }
        for number, ((x, y), values) in enumerate(zip(points, read, strict=True), start=1)
    ]


def series_chart_png(run: Run, series: list[dict[str, Any]]) -> str:
    """The chart of `series` as base64 PNG."""
    return base64.b64encode(series_chart(series, title=f"Run {run.pk}: {run.scenario.name}")).decode("ascii")
