"""The build: refuse what cannot be built before anything is spent, then make the package and the mesh."""

import json
import logging
import socket
import tempfile
from pathlib import Path
from typing import Any

import shapely
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from shapely.geometry import shape

from hydrata.anuga.models import Run, Scenario, TimeSeries
from hydrata.anuga.selectors.approvals import scenario_series_names, scenario_state_parts, state_digest_of
from hydrata.anuga.selectors.scenarios import (
    latest_run,
    layer_features,
    mesh_too_large,
    scenario_estimate,
    scenario_geometry,
)
from hydrata.compute.errors import ModelGeometryError, SeriesUnitsError, TerrainFileError
from hydrata.compute.inputs.numbers import excerpt, finite_number_or_none
from hydrata.compute.rasters.terrain_raster import clip_dem
from hydrata.compute.scenario import series_units
from hydrata.compute.scenario.package import package_sha256, sample_dem
from hydrata.compute.simulation.boundary_edges import tagged_by_feature
from hydrata.compute.simulation.culverts import culvert_ends_check
from hydrata.compute.simulation.mesh import mesh_build, mesh_read
from hydrata.compute.simulation.structures import mesh_holes, site_breaklines, site_problem_check
from hydrata.compute.simulation.weirs import weir_walls
from hydrata.compute.spatial.geometry import internal_lines
from hydrata.core.errors import Conflict, Unprocessable
from hydrata.core.records import record_update
from hydrata.storage import get_storage
from hydrata_contract.errors import ErrorCode
from hydrata_contract.inputs import BoundaryType, SeriesType
from hydrata_contract.states import BUILD_IN_FLIGHT, RunPhase, RunStatus, TerrainStatus

logger = logging.getLogger(__name__)

PACKAGE_FORMAT_VERSION = "1.0"
SITE_INPUTS = ("structure", "breakline", "culvert", "weir")  # the site as built: meshed and checked here
INPUT_FIELDS = Scenario.INPUT_FIELDS
FIXABLE_IN_MAP = {
    ErrorCode.BOUNDARY_EMPTY,
    ErrorCode.BOUNDARY_NO_EXTERNAL,
    ErrorCode.BOUNDARY_INVALID,
    ErrorCode.MESH_REGION_UNITS_UNMARKED,
    ErrorCode.MESH_REGION_INVALID,
    ErrorCode.NO_FORCING,
    ErrorCode.GAUGE_OUTSIDE_MESH,
    ErrorCode.FLOW_LINE_OUTSIDE_MESH,
    ErrorCode.SITE_FEATURE_INVALID,
}


def scenario_build_request(*, scenario: Scenario, user: User) -> Run:
    """Queue a build, or refuse it with a reason a person can act on. Never two builds of one scenario at once."""
    with transaction.atomic():
        # Only the scenario's row: PostgreSQL cannot lock the nullable side of the terrain's outer join.
        scenario = (
            Scenario.objects.select_for_update(of=("self",)).select_related("project", "terrain").get(pk=scenario.pk)
        )
        current = latest_run(scenario=scenario)
        if current is not None and current.status in BUILD_IN_FLIGHT:
            raise Conflict(
                f"Run {current.pk} is already building this scenario; wait for it.",
                code=ErrorCode.BUILD_IN_FLIGHT,
                run_id=current.pk,
            )
        estimate = build_refusal_check(scenario=scenario)
        run = Run.objects.create(
            scenario=scenario,
            resolution=scenario.resolution,
            duration=scenario.duration,
            mesh_triangle_count_estimate=estimate,
            created_by=user,
        )
        Scenario.objects.filter(pk=scenario.pk).update(latest_run_is_valid=True)
        transaction.on_commit(lambda: _enqueue_build(run.pk))
    return run


def _enqueue_build(run_id: int) -> None:
    from hydrata.anuga.tasks import run_build_task

    run_build_task.delay(run_id)


def _refuse(code: ErrorCode, detail: str, **extra: Any) -> Unprocessable:
    return Unprocessable(detail, code=code, fixable_in_map=code in FIXABLE_IN_MAP, **extra)


def build_refusal_check(*, scenario: Scenario) -> int:
    """422 with a code for a model that cannot be built; otherwise the triangle estimate."""
    if scenario.terrain is None or scenario.terrain.status != TerrainStatus.READY:
        raise _refuse(
            ErrorCode.NO_TERRAIN,
            "The scenario has no ready terrain. Upload a DEM and wait until get_terrain "
            "says ready, then set it on the scenario.",
        )
    crs = scenario.project.projection
    if not layer_features(layer=scenario.boundary, crs=crs):
        raise _refuse(
            ErrorCode.BOUNDARY_EMPTY,
            "The scenario's boundary has no features. Draw or attach the model "
            "boundary (External edges that close a polygon) in the map.",
        )
    forcing = [layer_features(layer=getattr(scenario, name), crs=crs) for name in ("inflow", "rainfall")]
    if not any(forcing) and not water_through_the_boundary_or_at_the_start(scenario=scenario, crs=crs):
        raise _refuse(
            ErrorCode.NO_FORCING,
            "Nothing brings water into the model: attach an inflow line or a rainfall polygon with features, give "
            "an External boundary edge a Dirichlet stage, or start the model wet with an initial condition.",
        )
    estimate = scenario_estimate(scenario=scenario)
    problem = estimate["mesh_estimate_problem"]
    if problem:
        raise _refuse(ErrorCode(problem["code"]), problem["detail"])
    triangles = estimate["mesh_triangle_count_estimate"]
    too_large = mesh_too_large(triangles=triangles)
    if too_large:
        raise _refuse(
            ErrorCode.MESH_TOO_LARGE, too_large, estimate=triangles, ceiling=settings.HYDRATA_MESH_MAX_TRIANGLES
        )
    _check_series_names(scenario)
    _check_recorders(scenario, scenario_geometry(scenario=scenario).ring.polygon())
    _check_site(scenario, scenario_geometry(scenario=scenario).ring.polygon())
    return triangles


def water_through_the_boundary_or_at_the_start(*, scenario: Scenario, crs: str) -> bool:
    """A model may be forced only through its boundary (a tide, a lake level) or start wet (a dam break)."""
    stage_types = (BoundaryType.DIRICHLET, BoundaryType.DIRICHLET_ZERO_MOMENTUM)
    staged = any(
        (feature.get("properties") or {}).get("boundary") in stage_types
        and (feature.get("properties") or {}).get("location") == "External"
        for feature in layer_features(layer=scenario.boundary, crs=crs)
    )
    return staged or bool(layer_features(layer=scenario.initial_condition, crs=crs))


def _check_series_names(scenario: Scenario) -> None:
    types = dict(TimeSeries.objects.filter(project=scenario.project).values_list("name", "series_type"))
    crs = scenario.project.projection
    for name, use in (("inflow", "flow"), ("rainfall", "rain")):
        for index, feature in enumerate(layer_features(layer=getattr(scenario, name), crs=crs)):
            value = str((feature.get("properties") or {}).get("data", "")).strip()
            if _is_number(value):
                continue
            if value not in types:
                raise _refuse(
                    ErrorCode.UNKNOWN_TIME_SERIES,
                    f"{name} feature {index} uses data={excerpt(value)}, which is neither "
                    "a number nor the name of a time series in this project.",
                    name=value,
                )
            _check_series_units(scenario, name=value, use=use, what=f"{name} feature {index}")
    for index, feature in enumerate(layer_features(layer=scenario.boundary, crs=crs)):
        properties = feature.get("properties") or {}
        value = str(properties.get("stage") or "").strip()
        stage_types = (BoundaryType.DIRICHLET, BoundaryType.DIRICHLET_ZERO_MOMENTUM)
        if properties.get("boundary") not in stage_types or not value or _is_number(value):
            continue
        if types.get(value) != SeriesType.STAGE:
            raise _refuse(
                ErrorCode.UNKNOWN_TIME_SERIES,
                f"boundary feature {index} uses stage={excerpt(value)}, which is neither "
                "a number nor the name of a stage time series in this project.",
                name=value,
            )
        _check_series_units(scenario, name=value, use="stage", what=f"boundary feature {index}")


def _check_series_units(scenario: Scenario, *, name: str, use: str, what: str) -> None:
    """A series a forcing uses must be in units of that forcing (a row stored before units were read may not be:
    it stays as it was, and is refused here until its units are said), with values those units can hold."""
    series = TimeSeries.objects.get(project=scenario.project, name=name)
    try:
        units = series_units.units_for_use(series.units, use=use, name=name)
        series_units.series_check([row["value"] for row in series.rows], units)
    except SeriesUnitsError as refused:
        raise _refuse(refused.code, f"{what}: {refused.message}", **{"name": name, **refused.extra}) from None


def _check_recorders(scenario: Scenario, model: shapely.Polygon) -> None:
    """A gauge must stand inside the model, and a flow line must cross it, to record anything."""
    crs = scenario.project.projection
    for index, feature in enumerate(layer_features(layer=scenario.gauge, crs=crs)):
        name = (feature.get("properties") or {}).get("name")
        if not model.contains(shape(feature["geometry"])):
            raise _refuse(
                ErrorCode.GAUGE_OUTSIDE_MESH,
                f"Gauge {name!r} (feature {index}) is outside the model boundary; move it inside or remove it.",
                name=name,
            )
    for index, feature in enumerate(layer_features(layer=scenario.flow_line, crs=crs)):
        name = (feature.get("properties") or {}).get("name")
        if not model.intersects(shape(feature["geometry"])):
            raise _refuse(
                ErrorCode.FLOW_LINE_OUTSIDE_MESH,
                f"Flow line {name!r} (feature {index}) does not cross the model "
                "area; draw it across the flow inside the boundary.",
                name=name,
            )


def _check_site(scenario: Scenario, model: shapely.Polygon) -> None:
    """The site's layers must fit the model (compute/simulation/structures.py `site_problem_check`)."""
    crs = scenario.project.projection
    try:
        site_problem_check(
            model=model,
            **{
                name: layer_features(layer=getattr(scenario, field), crs=crs)
                for name, field in (
                    ("structures", "structure"),
                    ("culverts", "culvert"),
                    ("gauges", "gauge"),
                    ("inflows", "inflow"),
                    ("flow_lines", "flow_line"),
                )
            },
        )
    except ModelGeometryError as problem:
        raise _refuse(problem.code, problem.message, **problem.extra) from None


def _is_number(value: str) -> bool:
    return finite_number_or_none(value) is not None


def _build_claim(*, run_id: int, worker: str) -> bool:
    """One conditional UPDATE, so that of any number of deliveries of a build exactly one starts it."""
    now = timezone.now()
    return bool(
        Run.objects.filter(pk=run_id, status=RunStatus.CREATED).update(
            status=RunStatus.BUILDING,
            phase=RunPhase.PREPARING_INPUTS,
            build_started_at=now,
            worker_hostname=worker,
            updated_at=now,
        )
    )


def run_build(*, run_id: int, worker: str = "") -> Run:
    """Write scenario.json, the clipped DEM, the inputs in the project CRS and the mesh; built or error.

    A run built to start at once (a retry) is queued by the task that called this, not here: a build knows
    nothing of runs being launched."""
    claimed = _build_claim(run_id=run_id, worker=worker or socket.gethostname())
    run = Run.objects.select_related("scenario__project", "scenario__terrain").get(pk=run_id)
    if not claimed:
        return run  # a redelivered task, or two workers handed the same one: only the first builds
    before = scenario_state_parts(scenario=run.scenario)
    try:
        with tempfile.TemporaryDirectory(prefix=f"build-{run.pk}-") as workdir:
            package = _write_package(run, Path(workdir))
            run.package_sha256 = package_sha256(package)
            prefix = f"runs/{run.pk}/package"
            storage = get_storage()
            for path in sorted(package.rglob("*")):
                if path.is_file():
                    with path.open("rb") as stream:
                        storage.save(key=f"{prefix}/{path.relative_to(package).as_posix()}", data=stream)
    except (ModelGeometryError, TerrainFileError) as problem:
        message = getattr(problem, "message", str(problem))
        return record_update(
            run,
            status=RunStatus.ERROR,
            phase="",
            error_message=message,
            user_message=message,
            build_finished_at=timezone.now(),
        )
    except Exception:
        logger.exception("Build of run %s failed", run.pk)
        return record_update(
            run,
            status=RunStatus.ERROR,
            phase="",
            build_finished_at=timezone.now(),
            error_message="The build failed with an internal error; it has been logged.",
            user_message="The build failed on our side. Try building again; contact support if it repeats.",
        )
    return _record_built(run, built_from=_built_from(run, before=before))


def _built_from(run: Run, *, before: dict[str, str]) -> dict[str, str]:
    """The state the package holds, by part: read before and after writing it, so a change made meanwhile (an
    input row's PATCH, an edit of a series it reads) leaves a build that matches no state ({}), and so no
    sign-off."""
    after = scenario_state_parts(scenario=Scenario.objects.get(pk=run.scenario_id))
    return before if before == after else {}


def _record_built(run: Run, *, built_from: dict[str, str]) -> Run:
    now = timezone.now()
    digest = state_digest_of(parts=built_from) if built_from else ""
    if run.start_after_build and digest != run.state_digest:
        # A retry was allowed (and signed off) for the state it was asked in; it never computes another one.
        message = (
            "The scenario changed while this retry was being built, so it did not start. Build and start it again."
        )
        return record_update(
            run, status=RunStatus.ERROR, phase="", error_message=message, user_message=message, build_finished_at=now
        )
    return record_update(
        run,
        status=RunStatus.BUILT,
        phase="",
        package_prefix=f"runs/{run.pk}/package",
        package_sha256=run.package_sha256,
        state_digest=digest,
        state_parts=built_from,
        build_finished_at=now,
    )


def _write_package(run: Run, package: Path) -> Path:
    scenario = run.scenario
    crs = scenario.project.projection
    geometry = scenario_geometry(scenario=scenario)
    (package / "inputs").mkdir(parents=True)
    files: dict[str, str | None] = {}
    for name in INPUT_FIELDS:
        features = layer_features(layer=getattr(scenario, name), crs=crs)
        files[name] = None
        if features:
            files[name] = relative = f"inputs/{name}.geojson"
            _write_geojson(package / relative, features, crs)
    margin = max(10.0, 2 * scenario.resolution)
    west, south, east, north = geometry.ring.polygon().bounds
    terrain = scenario.terrain
    if terrain is None:  # refused before the build was queued; the terrain was deleted since
        raise _refuse(ErrorCode.NO_TERRAIN, "The scenario has no terrain any more. Upload a DEM and build again.")
    with get_storage().local_path(key=terrain.dem_key) as dem:
        clip_dem(
            dem, package / "inputs" / "dem.tif", bounds=(west - margin, south - margin, east + margin, north + margin)
        )
    record_update(run, phase=RunPhase.MESHING)
    boundary = layer_features(layer=scenario.boundary, crs=crs)
    site = {name: layer_features(layer=getattr(scenario, name), crs=crs) for name in SITE_INPUTS}
    weir_walls(site["weir"], ground=lambda xy: sample_dem(package / "inputs" / "dem.tif", xy))  # a crest in the air
    mesh = mesh_build(
        ring=geometry.ring,
        regions=geometry.regions,
        resolution=scenario.resolution,
        breaklines=internal_lines(boundary) + site_breaklines(breaklines=site["breakline"], weirs=site["weir"]),
        holes=mesh_holes(site["structure"]),
        destination=package / "mesh.msh",
    )
    built = mesh_read(mesh.path)
    culvert_ends_check(nodes=built.nodes, triangles=built.triangles, features=site["culvert"])
    run.mesh_triangle_count = mesh.triangle_count
    series = _write_time_series(scenario, package)
    manifest = {
        "format_version": PACKAGE_FORMAT_VERSION,
        "run_id": run.pk,
        "scenario_id": scenario.pk,
        "project": scenario.project_id,
        "epsg": crs,
        "name": scenario.name,
        "description": scenario.description,
        "elevation": "inputs/dem.tif",
        **files,
        "time_series": series,
        "mesh": "mesh.msh",
        "mesh_triangle_count": mesh.triangle_count,
        "mesh_triangle_count_estimate": run.mesh_triangle_count_estimate,
        "boundary_tags": tagged_by_feature(geometry.ring).boundary_tags(),  # a Dirichlet feature's edges its own
        "resolution": scenario.resolution,
        "duration": scenario.duration,
        "model_start": scenario.model_start.isoformat() if scenario.model_start else None,
        "inundation_threshold_m": scenario.inundation_threshold_m,
    }
    (package / "scenario.json").write_text(json.dumps(manifest, indent=2))
    return package


def _write_geojson(path: Path, features: list[dict], crs: str) -> None:
    path.write_text(
        json.dumps(
            {"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": crs}}, "features": features}
        )
    )


def _write_time_series(scenario: Scenario, package: Path) -> dict[str, str]:
    """The series the scenario's inputs name (what its state digest covers), not every series of the project."""
    written = {}
    named = scenario_series_names(scenario=scenario)
    for index, series in enumerate(TimeSeries.objects.filter(project=scenario.project, name__in=named).order_by("pk")):
        relative = f"time_series/{index:03d}.json"
        (package / "time_series").mkdir(exist_ok=True)
        (package / relative).write_text(
            json.dumps(
                {"name": series.name, "series_type": series.series_type, "units": series.units, "rows": series.rows}
            )
        )
        written[series.name] = relative
    return written
