"""What a report holds, read through the same selectors the API answers from (a run's statistics as
`get_run_results` reads them, its forcing as `get_scenario` reads it, a comparison as `get_comparison` reads it, a
calibration study's results as `get_calibration_study` hands them back), so every number in a report is the one the
tools hand back."""

import hashlib
import json
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Q

from hydrata.agents.models import AgentActivity, AgentGrant
from hydrata.anuga.models import Run, Scenario, TimeSeries
from hydrata.anuga.selectors.approvals import approvals_current, scenario_state_digest
from hydrata.anuga.selectors.links import run_link
from hydrata.anuga.selectors.projects import project_get, reader_of, reads_in_full
from hydrata.anuga.selectors.run_series import recorded_series
from hydrata.anuga.selectors.runs import run_get, run_statistics
from hydrata.anuga.selectors.scenarios import layer_features, scenario_forcing, scenario_geometry
from hydrata.calibration.models import CalibrationStudy
from hydrata.calibration.selectors import (
    calibration_link,
    calibration_members,
    calibration_results,
    calibration_study_get,
    study_parameters,
)
from hydrata.compute.simulation.forcing import DEFAULT_MANNINGS
from hydrata.compute.simulation.solver import default_algorithm_parameters, vertical_datum
from hydrata.compute.spatial.geometry import feature_name
from hydrata.core.errors import Conflict, NotFound
from hydrata.observations.api.answers import comparison_detail
from hydrata.observations.models import Comparison, Observation
from hydrata.observations.selectors import comparison_get, comparison_is_stale, comparison_metrics, comparison_points
from hydrata.reports import figures
from hydrata.reports.calibration_charts import MorrisPoint
from hydrata.reports.run_package import PackageSeries, RunPackage, run_package
from hydrata_contract.answers.calibration import BestFit, MorrisOutput, MorrisResults
from hydrata_contract.answers.runs import RunStatistics
from hydrata_contract.answers.studies import StudyEstimate
from hydrata_contract.calibration import CalibrationMethod
from hydrata_contract.errors import ErrorCode
from hydrata_contract.hazard import HazardClass
from hydrata_contract.inputs import BoundaryType
from hydrata_contract.links import ReportKind, report_url
from hydrata_contract.states import RunStatus
from hydrata_contract.studies import StudyStatus

ACTIVITY_ROWS = 40
POINT_ROWS = 50  # a report's table of compared points: the largest errors; the full list is the comparison's


@dataclass
class Section:
    title: str
    anchor: str


@dataclass
class Report:
    """What a report template shows: `context` for the template, the figures' titles in order, the sections."""

    kind: ReportKind
    object_id: int
    title: str
    context: dict[str, Any]
    figures: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)

    @property
    def ui_url(self) -> str:
        return report_url(site_url=settings.HYDRATA_SITE_URL, kind=self.kind, object_id=self.object_id)

    @property
    def pdf_url(self) -> str:
        return report_url(site_url=settings.HYDRATA_SITE_URL, kind=self.kind, object_id=self.object_id, pdf=True)


def _version_of(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


def report_run_get(*, user: User, run_id: int) -> Run:
    """A complete run the caller may see (404 otherwise); one not complete is refused with what to do."""
    run = run_get(user=user, run_id=run_id)
    if run.status != RunStatus.COMPLETE or not run.results_prefix:
        raise Conflict(
            f"Run {run.pk} is {run.status}: a report is made of a complete run's results. Wait for it with "
            "get_run_status, or report on a complete run of the scenario (list_runs with status_filter complete).",
            code=ErrorCode.RUN_NOT_COMPLETE,
            status=run.status,
        )
    return run


def _input_files(run: Run, manifest: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Each file of the package the run ran, with the SHA-256 recorded when it was written (never hashed again
    here: on S3 that was a whole download per view) and the name of the upload behind it. A member's own files
    (its storm and rain) have no upload."""
    scenario = run.scenario
    if manifest is None:
        return []
    own = set(manifest.get("own_files") or ())
    sources = {"elevation": scenario.terrain.source_filename if scenario.terrain else ""}
    for name in Scenario.INPUT_FIELDS:
        layer = getattr(scenario, name)
        sources[name] = layer.dataset.name if layer is not None and layer.dataset is not None else ""
    named = {key: manifest.get(key) for key in ("elevation", *Scenario.INPUT_FIELDS, "mesh")}
    named |= {f"time series {name}": path for name, path in (manifest.get("time_series") or {}).items()}
    return [
        {
            "role": role,
            "file": relative,
            "source": "" if relative in own else sources.get(role, ""),
            "sha256": run.package_sha256.get(relative, ""),
        }
        for role, relative in named.items()
        if relative
    ]


def _forcing_series(scenario: Scenario, forcing: dict[str, Any]) -> list[TimeSeries]:
    names = {str(item.get("data") or "") for item in (*forcing["rainfall"], *forcing["inflow"])}
    return list(TimeSeries.objects.filter(project_id=scenario.project_id, name__in=names).order_by("name"))


READS = ("GET", "HEAD", "OPTIONS")


def _activity(run: Run) -> list[AgentActivity]:
    """What the agents did to this run or its scenario (their requests that change things; reads, such as asking
    for this very report, are not provenance), oldest first."""
    about = Q(path__contains=f"/runs/{run.pk}/") | Q(path__contains=f"/scenarios/{run.scenario_id}/")
    members = run.scenario.project.memberships.values("user_id")
    found = AgentActivity.objects.filter(about, grant__user__in=members).exclude(method__in=READS)
    found = found.select_related("grant")
    return list(found.order_by("-created_at")[:ACTIVITY_ROWS])[::-1]


def _model(run: Run, package: RunPackage | None) -> dict[str, Any]:
    """The model as the run's package built it (its regions and boundary tags); as the scenario is now only for a
    run whose package is no longer kept, which the report says."""
    scenario = run.scenario
    friction = scenario.friction
    if package is not None:
        regions, tags = package.regions(), package.manifest.get("boundary_tags") or {}
    else:
        geometry = scenario_geometry(scenario=scenario) if scenario.boundary is not None else None
        regions, tags = (geometry.regions, geometry.ring.boundary_tags()) if geometry else ([], {})
    terrain = scenario.terrain
    return {
        "terrain": terrain,
        "vertical_datum": vertical_datum(terrain.native_crs or terrain.crs) if terrain is not None else None,
        "default_mannings": DEFAULT_MANNINGS,
        "triangles": run.mesh_triangle_count,
        "resolution": run.resolution,
        "regions": regions,
        "boundary_tags": tags,
        "friction": friction,
        "friction_source": friction.dataset.name if friction is not None and friction.dataset is not None else "",
        "inputs": _input_files(run, package.manifest if package else None),
        "as_ran": package is not None,
        "initial_condition": scenario.initial_condition,  # where the water starts
        "soil": scenario.soil,  # what the ground takes
        "stage_edges": _stage_edges(scenario),
        "changed_since": bool(run.state_digest) and run.state_digest != scenario_state_digest(scenario=scenario),
    }


def _stage_edges(scenario: Scenario) -> list[dict[str, Any]]:
    """Each Dirichlet edge of the boundary with its own stage (a number in m, or a stage series' name)."""
    kinds = (BoundaryType.DIRICHLET, BoundaryType.DIRICHLET_ZERO_MOMENTUM)
    edges = []
    for index, feature in enumerate(layer_features(layer=scenario.boundary, crs=scenario.project.projection)):
        properties = feature.get("properties") or {}
        if properties.get("boundary") in kinds and properties.get("location") == "External":
            stage = properties.get("stage", properties.get("data"))
            edges.append({"feature": feature_name(index, feature), "type": properties["boundary"], "stage": stage})
    return edges


def _solver(statistics: RunStatistics) -> dict[str, Any]:
    """The solver and its wet/dry settings: as the run recorded them (compute/simulation/solver.py `solver_record`), or,
    for a run from before runs recorded them, as the installed ANUGA starts every domain (the simulation sets none)."""
    recorded = statistics.solver
    parameters = dict((recorded and recorded.parameters) or default_algorithm_parameters())
    return {
        "anuga_version": (recorded and recorded.anuga_version) or _version_of("anuga"),
        "recorded": bool(recorded and recorded.model_dump()),
        "parameters": {
            name: f"{value:g}" if isinstance(value, float) else str(value) for name, value in parameters.items()
        },
    }


def _last_output(run: Run, recorded: dict[str, Any]) -> float:
    times = recorded.get("t") or []
    return float(times[-1]) if times else float(run.duration)


def _peaks_at_the_end(run: Run, statistics: RunStatistics) -> dict[str, Any]:
    """Every peak the run reached at its last output time (the flood may still have been rising when it stopped):
    the overall peak depth, speed and stage, each gauge's depth and each flow line's discharge, from the run's
    own statistics and recorded series."""
    recorded = recorded_series(run)
    last = _last_output(run, recorded)
    tolerance = 1e-6 * max(1.0, abs(last))
    found = []
    for at, what in (
        (statistics.peak_depth_at, "Peak depth"),
        (statistics.peak_speed_at, "Peak speed"),
        (statistics.peak_stage_at, "Peak stage"),
    ):
        if at is not None and at.t is not None and float(at.t) >= last - tolerance:
            found.append(what)
    kinds = (("gauges", "depth", "Depth at gauge"), ("flow_lines", "discharge", "Discharge through flow line"))
    for kind, value, what in kinds:
        for item in recorded.get(kind) or []:
            values = [abs(number) for number in item.get(value) or [] if number is not None]
            if values and max(values) > 0 and values[-1] >= max(values):
                found.append(f"{what} “{item['name']}”")
    return {"last_s": last, "peaks": found}


def _approvals_of_what_ran(run: Run) -> list[Any]:
    """The sign-offs of the scenario as this run was built from it (its state digest), newest first."""
    if not run.state_digest:
        return []
    found = run.scenario.approvals.filter(state_digest=run.state_digest).select_related("approved_by")
    return list(found.order_by("-approved_at"))


def _document_control(run: Run) -> dict[str, Any]:
    """Prepared by (who built and launched the run, and through which agent grant), checked by and approved (the
    scenario's sign-offs of what ran), and the revision (the run and the scenario state it ran). Withheld, like
    the provenance, from a reader who sees the project only because it is public (run_report)."""
    grant = AgentGrant.objects.filter(pk=run.launched_by_grant_id).first() if run.launched_by_grant_id else None
    return {
        "prepared_by": run.created_by,
        "launched_by": run.launched_by,
        "grant": grant,
        "approvals": _approvals_of_what_ran(run),
        "revision": f"run {run.pk}" + (f", scenario state {run.state_digest[:12]}" if run.state_digest else ""),
    }


def _hazard_rows(statistics: RunStatistics) -> list[tuple[str, float]]:
    areas = statistics.hazard_area_m2_by_class or {}
    return [(hazard.label, areas[hazard.value]) for hazard in HazardClass if hazard.value in areas]


def _provenance(run: Run, *, in_full: bool) -> dict[str, Any] | None:
    """Who and what made the run; withheld (None) from a reader who sees the project only because it is public."""
    if not in_full:
        return None
    grant = AgentGrant.objects.filter(pk=run.launched_by_grant_id).first() if run.launched_by_grant_id else None
    return {
        "anuga_version": _version_of("anuga"),
        "platform_version": _version_of("hydrata-mcp"),
        "built_by": run.created_by,
        "launched_by": run.launched_by,
        "grant": grant,
        "approvals": approvals_current(scenario=run.scenario),
        "activity": _activity(run),
        "cost": run.compute_cost,
        "currency": "USD",
    }


def _with_points_shown(detail: dict[str, Any]) -> dict[str, Any]:
    """A comparison as a report lays it out: the POINT_ROWS points with the largest errors (then those with none:
    dry or outside the model), and how many there are in all; the whole list is get_comparison's."""
    points = detail["points"]
    ranked = sorted(points, key=lambda point: -1.0 if point.get("error") is None else -abs(point["error"]))
    return {**detail, "points_shown": ranked[:POINT_ROWS], "points_total": len(points)}


def _scatter(comparison: Comparison) -> figures.Figure | None:
    return figures.scatter_figure(
        comparison_points(comparison), key=f"comparison:{comparison.pk}:{comparison.computed_at}"
    )


def _cut_off(run: Run, statistics: RunStatistics) -> float:
    """The depth at or under which the depth map draws a cell as not flooded: the inundation threshold the run
    used, or the scenario's."""
    used = statistics.inundation_threshold_m
    return float(used if used is not None else run.scenario.inundation_threshold_m)


def run_report(*, user: User, run_id: int) -> Report:
    run = report_run_get(user=user, run_id=run_id)
    scenario = run.scenario
    statistics = run_statistics(run=run) or RunStatistics()
    health = statistics.health
    package = run_package(run)
    series: list[TimeSeries] | list[PackageSeries]
    if package is not None:
        forcing, series = package.forcing, sorted(package.series.values(), key=lambda item: item.name)
    else:
        forcing = scenario_forcing(scenario=scenario)
        series = _forcing_series(scenario, forcing)
    boundary = figures.boundary_figure(run, package)
    locality = figures.locality_figure(run, package)
    mesh = figures.mesh_figure(run, package)
    forcing_charts = figures.forcing_charts(series=series)
    mass_error = figures.mass_error_figure(None if health is None else health.model_dump())
    maps = figures.result_maps(run, cut_off_m=_cut_off(run, statistics))
    hydrographs = figures.hydrograph_charts(run)
    comparisons = [
        {**_with_points_shown(comparison_detail(comparison).model_dump()), "scatter": _scatter(comparison)}
        for comparison in Comparison.objects.filter(run=run).select_related("event__project", "run__scenario")
    ]
    in_full = reads_in_full(user=user, project_id=scenario.project_id)
    scatters = [comparison["scatter"] for comparison in comparisons if comparison["scatter"]]
    every_figure = [
        item for item in (locality, boundary, mesh, *forcing_charts, mass_error, *maps, *hydrographs, *scatters) if item
    ]
    sections = ["Document control"] if in_full else []
    sections += ["Model", "Solver", "Forcing", "Health", "Results"]
    sections += ["Comparison with observations"] if comparisons else []
    sections += ["Limitations"]
    sections += ["Provenance"] if in_full else []
    context = {
        "run": run,
        "scenario": scenario,
        "project": scenario.project,
        "statistics": statistics,
        "health": health,
        "hazard_rows": _hazard_rows(statistics),
        "depth_bands": sorted((statistics.flooded_area_m2_by_depth_band or {}).items()),
        "model": _model(run, package),
        "solver": _solver(statistics),
        "at_the_end": _peaks_at_the_end(run, statistics),
        "document_control": _document_control(run) if in_full else None,
        "forcing": forcing,
        "design_storm": package.design_storm if package else None,
        "boundary_figure": boundary,
        "locality_figure": locality,
        "mesh_figure": mesh,
        "depth_cut_off_m": _cut_off(run, statistics),
        "forcing_charts": forcing_charts,
        "mass_error_figure": mass_error,
        "maps": maps,
        "hydrographs": hydrographs,
        "comparisons": comparisons,
        "provenance": _provenance(run, in_full=in_full),
        "map_url": run_link(run),
    }
    title = f"Run {run.pk}: {scenario.name}"
    report = Report(ReportKind.RUN, run.pk, title, context, [item.title for item in every_figure], sections)
    report.context["report"] = report
    return report


def comparison_report(*, user: User, comparison_id: int) -> Report:
    """A comparison's statistics, each point, the scatter, and the ranking of every run compared with the event."""
    comparison = comparison_get(user=user, comparison_id=comparison_id)
    detail = _with_points_shown(comparison_detail(comparison).model_dump())
    scatter = _scatter(comparison)
    ranked = sorted(
        Comparison.objects.filter(event=comparison.event).select_related("run__scenario"),
        key=lambda other: _ranking_key(other),
    )
    ranking = [{"rank": rank, "comparison": other} for rank, other in enumerate(ranked, start=1)]
    context = {"comparison": detail, "event": comparison.event, "scatter": scatter, "ranking": ranking}
    title = f"Run {comparison.run_id} against {comparison.event.name}"
    sections = ["Statistics", "Observed against modelled", "Ranking of the runs compared with this event"]
    report = Report(ReportKind.COMPARISON, comparison.pk, title, context, [scatter.title] if scatter else [], sections)
    report.context["report"] = report
    return report


def _ranking_key(comparison: Comparison) -> tuple[bool, float, float, int]:
    from hydrata.compute.comparisons.comparison import ranking_key

    return ranking_key(comparison.run_id, comparison_metrics(comparison).model_dump())


def report_calibration_study_get(*, user: User, study_id: int) -> CalibrationStudy:
    """A complete calibration study of a project the caller reads in full (a project shares its studies with its
    members only, as the API does: 404 otherwise); one not complete is refused with what to do."""
    missing = NotFound(
        f"Calibration study {study_id} does not exist or is not visible to this caller.",
        code=ErrorCode.CALIBRATION_STUDY_NOT_FOUND,
    )
    project_id = CalibrationStudy.objects.filter(pk=study_id).values_list("project_id", flat=True).first()
    if project_id is None:
        raise missing
    try:
        project = project_get(user=user, project_id=project_id)
        reader = reader_of(user=user, project_id=project_id, agent=False)
        study = calibration_study_get(project=project, study_id=study_id, reader=reader)
    except NotFound:
        raise missing from None
    if study.status != StudyStatus.COMPLETE or not study.results:
        raise Conflict(
            f"Calibration study {study.pk} is {study.status}: a report is made of a complete study's results. Wait "
            "for it with get_calibration_study, or report on a complete study of the project.",
            code=ErrorCode.STUDY_NOT_COMPLETE,
            status=study.status,
        )
    return study


def _figure_key(study: CalibrationStudy, what: str, drawn: Any) -> str:
    """A figure of a study as it ended, named by what it draws (a study's results do not change once complete)."""
    digest = hashlib.sha256(json.dumps(drawn, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return f"calibration:{study.pk}:{what}:{digest}"


def _sig(value: Any) -> str:
    """A parameter's value as the report writes it: five significant figures (n, mm, mm/h and factors alike)."""
    return "—" if value is None else f"{float(value):.5g}"


def _best_fit(study: CalibrationStudy, best: BestFit) -> dict[str, Any]:
    """The best member as comparison_table.html lays a comparison out: its statistics and every observation's fit
    (each with its quantity, read from the event), largest error first."""
    quantities = dict(
        Observation.objects.filter(event=study.event, pk__in=[row.observation_id for row in best.fit]).values_list(
            "pk", "quantity"
        )
    )
    shown = [{**row.model_dump(), "quantity": quantities.get(row.observation_id, "—")} for row in best.fit]
    shown.sort(key=lambda row: -1.0 if row["error"] is None else -abs(row["error"]))
    comparison = (
        Comparison.objects.filter(pk=best.comparison, event=study.event)
        .select_related("event", "run__scenario")
        .first()
        if best.comparison is not None
        else None
    )
    run = comparison.run if comparison is not None else None
    return {
        "id": best.comparison,
        "run": best.run,
        "event_name": study.event.name,
        "scenario_name": run.scenario.name if run is not None else study.base_scenario.name,
        "is_stale": comparison_is_stale(comparison=comparison) if comparison is not None else False,
        "metrics": best.metrics or {},
        "points_shown": shown,
        "points_total": len(shown),
        "report_url": report_url(
            site_url=settings.HYDRATA_SITE_URL, kind=ReportKind.COMPARISON, object_id=comparison.pk
        )
        if comparison is not None
        else "",
        "run_report_url": (
            report_url(site_url=settings.HYDRATA_SITE_URL, kind=ReportKind.RUN, object_id=run.pk)
            if run is not None and run.status == RunStatus.COMPLETE
            else ""
        ),
    }


def _morris_points(morris: MorrisResults) -> list[MorrisPoint]:
    """Each parameter's influence (the ranking's: its mu* as a share of each output's largest mu*, the mean over the
    outputs, so a peak in metres and an area in square metres weigh alike) against its sigma as the same share; a
    parameter no output's effects name is not drawn."""
    sigmas: dict[str, list[float]] = {}
    for output in morris.outputs:
        largest = max((effect.mu_star for effect in output.effects), default=0.0)
        scale = 1.0 / largest if largest > 0 else 0.0
        for effect in output.effects:
            sigmas.setdefault(effect.parameter, []).append(effect.sigma * scale)
    return [
        MorrisPoint(parameter=rank.parameter, mu_star=rank.influence, sigma=sum(found) / len(found))
        for rank in morris.ranking
        if (found := sigmas.get(rank.parameter))
    ]


def _output_named(output: MorrisOutput) -> str:
    """What a Morris output is, for people: an observation's peak, a gauge's peak depth, or the wet area."""
    kind, name = output.output, output.name
    if kind == "observation":
        return f"Peak at observation {name}"
    if kind == "gauge":
        return f"Peak depth at gauge “{name}”"
    if kind == "wet_area":
        return "Wet area (m²)"
    return f"{kind} {name}"


def calibration_report(*, user: User, study_id: int) -> Report:
    """A complete calibration study: what it searched and against what, what it cost, each parameter's range and
    best value, the best fit at every observation, how the search converged, and a Morris screen's ranking."""
    study = report_calibration_study_get(user=user, study_id=study_id)
    results = calibration_results(study=study)
    if results is None:  # report_calibration_study_get refuses a study without results
        raise Conflict(f"Calibration study {study.pk} has no results.", code=ErrorCode.STUDY_NOT_COMPLETE)
    best, morris = results.best, results.morris
    values = best.values if best is not None else {}
    parameters = [
        {
            "label": p.label,
            "target": p.target,
            "low": _sig(p.low),
            "high": _sig(p.high),
            "best": _sig(values.get(p.label)),
        }
        for p in study_parameters(study)
    ]
    members = list(calibration_members(study=study))
    index = [member.index for member in members]
    objective = [member.objective for member in members]
    optimise = study.method == CalibrationMethod.OPTIMISE
    convergence = figures.convergence_figure(
        index=index,
        objective=objective,
        best_line=optimise,
        key=_figure_key(study, "convergence", [index, objective, optimise]),
    )
    points = _morris_points(morris) if morris else []
    screen = figures.morris_figure(
        points,
        key=_figure_key(study, "morris", [[p.parameter, p.mu_star, p.sigma] for p in points]),
        caption="Each parameter's μ* against its σ, as a share of each output's largest μ* and the mean over the "
        "outputs; above the dashed line σ exceeds μ*: the parameter acts through interactions or non-linearly.",
    )
    effects = [
        {"output": _output_named(output), "trajectories": output.trajectories, "effect": effect}
        for output in (morris.outputs if morris is not None else [])
        for effect in output.effects
    ]
    context = {
        "study": study,
        "project": study.project,
        "scenario": study.base_scenario,
        "event": study.event,
        "method": CalibrationMethod(study.method),
        "results": results,
        "estimate": StudyEstimate.model_validate(study.estimate),
        "parameters": parameters,
        "best": best,
        "fit": _best_fit(study, best) if best else None,
        "morris": morris,
        "morris_effects": effects,
        "convergence": convergence,
        "screen": screen,
        "failed_members": sum(1 for member in members if member.objective is None),
        "map_url": calibration_link(study),
    }
    sections = ["Study", "Parameters"]
    sections += ["Best fit"] if best else []
    sections += ["Convergence"]
    sections += ["Morris screen"] if morris else []
    title = f"Calibration study {study.pk}: {study.name}"
    shown = [item.title for item in (convergence, screen) if item]
    report = Report(ReportKind.CALIBRATION, study.pk, title, context, shown, sections)
    report.context["report"] = report
    return report
