"""A report's figures, drawn from the run's stored files by compute/figures/report_figures.py and kept in the cache: a
complete run's results never change, so each figure is drawn once per run (HYDRATA_TILE_CACHE_SECONDS).

A figure that cannot be drawn (a stored file unreadable, a drawing error) is a placeholder that says so: the report
is made without it, never refused for it; the failure is logged and is not cached, so it is drawn again next time."""

import base64
import logging
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache

from hydrata.anuga.models import Run, TimeSeries
from hydrata.anuga.selectors.run_results import layers_of
from hydrata.anuga.selectors.run_series import recorded_series
from hydrata.compute.figures import report_figures
from hydrata.compute.figures.report_figures import ChartSeries, MapLayer
from hydrata.compute.simulation.mesh import mesh_read
from hydrata.reports import calibration_charts
from hydrata.reports.calibration_charts import MorrisPoint
from hydrata.reports.run_package import PackageSeries, RunPackage
from hydrata.storage import get_storage
from hydrata_contract.answers.observations import ComparedPoint
from hydrata_contract.hazard import HazardClass
from hydrata_contract.layers import ResultLayer

MAP_LAYERS = {
    ResultLayer.MAX_DEPTH: MapLayer(title="Peak depth", units="m", colour_map="Blues"),
    ResultLayer.MAX_SPEED: MapLayer(title="Peak speed", units="m/s", colour_map="viridis"),
    ResultLayer.MAX_HAZARD: MapLayer(
        title="Peak hazard (ARR 2019)",
        units="class",
        classes=[(hazard.number, hazard.label) for hazard in HazardClass],
    ),
    ResultLayer.TIME_OF_INUNDATION: MapLayer(
        title="Time of first inundation",
        units="minutes from the run's start",
        colour_map="plasma_r",
        dry_at=-1.0,
        scale=1 / 60,
    ),
}
FIGURE_VERSION = 3  # bump when a figure is drawn differently, so cached ones are drawn again

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Figure:
    """A figure's title and its PNG as a data: URI; an empty `data_uri` is the placeholder of one not drawn."""

    title: str
    data_uri: str
    caption: str = ""  # what the figure's caption says, when more than its title


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _drawn(title: str, draw: Callable[[], bytes], *, key: str | None = None, caption: str = "") -> Figure:
    """The figure `draw` makes (kept in the cache under `key` when given), or its placeholder when it fails."""
    full_key = f"report-figure:v{FIGURE_VERSION}:{key}" if key else None
    found = cache.get(full_key) if full_key else None
    if found is None:
        try:
            found = _data_uri(draw())
        except Exception:
            logger.exception("The report figure %r could not be drawn; the report shows a placeholder", title)
            return Figure(title, "", caption)
        if full_key:
            cache.set(full_key, found, settings.HYDRATA_TILE_CACHE_SECONDS)
    return Figure(title, found, caption)


def depth_caption(cut_off_m: float) -> str:
    return f"Peak depth (depths of {cut_off_m:g} m or less, the inundation threshold, shown as not flooded)"


def result_maps(run: Run, *, cut_off_m: float) -> list[Figure]:
    """Peak depth, speed, hazard and time of first inundation, each over the terrain's hillshade; a run from before
    a raster existed has no map of it. The depth map draws a depth of `cut_off_m` or less (the inundation threshold)
    as not flooded, and says so in its legend and caption."""
    terrain = run.scenario.terrain
    if terrain is None or not terrain.dem_key:
        return []
    available = set(layers_of(run))
    crs = run.scenario.project.projection
    figures = []
    for layer, style in MAP_LAYERS.items():
        if layer not in available:
            continue
        caption = ""
        if layer == ResultLayer.MAX_DEPTH:
            units = f"m (not flooded at {cut_off_m:g} m or less)"
            style, caption = replace(style, units=units, dry_at=cut_off_m), depth_caption(cut_off_m)

        def draw(layer: ResultLayer = layer, style: MapLayer = style) -> bytes:
            storage = get_storage()
            with ExitStack() as stack:
                raster = stack.enter_context(storage.local_path(key=f"{run.results_prefix}/{layer.filename}"))
                dem = stack.enter_context(storage.local_path(key=terrain.dem_key))
                return report_figures.result_map(raster=raster, dem=dem, layer=style, crs=crs)

        key = f"run:{run.pk}:{run.results_prefix}:{layer}:{style.dry_at}"
        figures.append(_drawn(style.title, draw, key=key, caption=caption))
    return figures


def boundary_figure(run: Run, package: RunPackage | None) -> Figure | None:
    """The boundary and mesh regions the run was built with, over its package's DEM."""
    ring = package.ring() if package is not None else None
    if package is None or ring is None:
        return None
    points, tags = ring.points, ring.segment_tags
    segments = [(tag, points[i], points[(i + 1) % len(points)]) for i, tag in enumerate(tags)]
    regions = [(region.name, list(region.polygon.exterior.coords)) for region in package.regions()]
    dem_key = package.key(run, str(package.manifest.get("elevation") or "inputs/dem.tif"))

    def draw() -> bytes:
        with get_storage().local_path(key=dem_key) as dem:
            return report_figures.boundary_map(
                dem=dem, segments=segments, regions=regions, crs=package.manifest["epsg"]
            )

    return _drawn("Model boundary", draw, key=f"run:{run.pk}:boundary:{run.package_prefix}")


def locality_figure(run: Run, package: RunPackage | None) -> Figure | None:
    """Where the model lies: its boundary over the whole terrain's hillshade with the terrain's extent, coordinates
    in the project's CRS, a scale bar and a north arrow (drawn from the project's own data: no map tiles)."""
    ring = package.ring() if package is not None else None
    if package is None or ring is None:
        return None
    outline = list(ring.points)
    dem_key = package.key(run, str(package.manifest.get("elevation") or "inputs/dem.tif"))

    def draw() -> bytes:
        with get_storage().local_path(key=dem_key) as dem:
            return report_figures.locality_map(dem=dem, outline=outline, crs=package.manifest["epsg"])

    return _drawn(
        "Locality: the model boundary on the terrain", draw, key=f"run:{run.pk}:locality:{run.package_prefix}"
    )


def mesh_figure(run: Run, package: RunPackage | None) -> Figure | None:
    """The triangles of the mesh the run was built with (its package's mesh file)."""
    relative = str(package.manifest.get("mesh") or "") if package is not None else ""
    if package is None or not relative:
        return None
    mesh_key = package.key(run, relative)
    crs = package.manifest["epsg"]

    def draw() -> bytes:
        with get_storage().local_path(key=mesh_key) as path:
            return report_figures.mesh_map(mesh=mesh_read(path), crs=crs)

    return _drawn("Mesh", draw, key=f"run:{run.pk}:mesh:{run.package_prefix}")


def _seconds(rows: list[dict[str, Any]]) -> list[float]:
    """Each row's time from the first row's: a package's rows are ISO 8601 times, or seconds (a design storm)."""
    if rows and all(isinstance(row["timestamp"], int | float) for row in rows):
        return [float(row["timestamp"]) - float(rows[0]["timestamp"]) for row in rows]
    times = [datetime.fromisoformat(str(row["timestamp"]).replace("Z", "+00:00")) for row in rows]
    return [(moment - times[0]).total_seconds() for moment in times] if times else []


def forcing_charts(*, series: Sequence[TimeSeries | PackageSeries]) -> list[Figure]:
    """One chart per series the forcing reads: a hyetograph as bars, a hydrograph or a level as a line."""
    figures = []
    for item in series:
        chart = ChartSeries(
            name=item.name,
            t=_seconds(item.rows),
            values=[row["value"] for row in item.rows],
            bars=item.series_type == "hyetograph",
        )
        title = f"{item.name} ({item.series_type})"

        def draw(chart: ChartSeries = chart, title: str = title, units: str = item.units) -> bytes:
            return report_figures.line_chart(
                series=[chart], title=title, x_label="Time from the first row (s)", y_label=units
            )

        figures.append(_drawn(title, draw))
    return figures


def hydrograph_charts(run: Run) -> list[Figure]:
    """The gauges' depth and the flow lines' discharge as the run recorded them."""
    recorded = recorded_series(run)
    t = recorded["t"]
    figures = []
    kinds = (
        ("gauges", "depth", "Gauge depth", "Depth (m)"),
        ("flow_lines", "discharge", "Flow-line discharge", "m³/s"),
    )
    for key, value, title, label in kinds:
        items = [ChartSeries(name=item["name"], t=t, values=item[value]) for item in recorded.get(key, [])]
        if items:

            def draw(items: list[ChartSeries] = items, title: str = title, label: str = label) -> bytes:
                return report_figures.line_chart(
                    series=items, title=title, x_label="Time from the run's start (s)", y_label=label
                )

            figures.append(_drawn(title, draw, key=f"run:{run.pk}:{run.results_prefix}:{key}"))
    return figures


def mass_error_figure(health: dict[str, Any] | None) -> Figure | None:
    mass_error = (health or {}).get("mass_error")
    if not mass_error or not mass_error["series"]["t"]:
        return None
    return _drawn(
        "Cumulative mass error",
        lambda: report_figures.mass_error_chart(
            t=mass_error["series"]["t"],
            error_pct=mass_error["series"]["error_pct"],
            line_pct=mass_error["healthy_line_pct"],
        ),
    )


def scatter_figure(points: Sequence[ComparedPoint], *, key: str | None = None) -> Figure | None:
    """Observed against modelled, kept in the cache under `key` (a comparison as it was computed) when given."""
    compared = [point for point in points if point.modelled is not None]
    if not compared:
        return None
    return _drawn(
        "Observed against modelled",
        lambda: report_figures.scatter_chart(
            observed=[point.observed for point in compared],
            modelled=[point.modelled for point in compared if point.modelled is not None],
            tolerance=[point.tolerance for point in compared],
        ),
        key=key,
    )


def convergence_figure(
    *, index: Sequence[int], objective: Sequence[float | None], best_line: bool, key: str | None = None
) -> Figure | None:
    """Each member's RMSE by its index, with the running best when `best_line` (an optimiser's search); kept in
    the cache under `key` (a study as it ended) when given. None when no member gave an RMSE."""
    if all(value is None for value in objective):
        return None
    return _drawn(
        "Convergence: each member's RMSE and the best so far" if best_line else "Each member's RMSE",
        lambda: calibration_charts.convergence_chart(index=index, objective=objective, best_line=best_line),
        key=key,
    )


def morris_figure(points: Sequence[MorrisPoint], *, key: str | None = None, caption: str = "") -> Figure | None:
    """The Morris screen's mu* against sigma, one point per parameter; None when no output could be screened."""
    if not points:
        return None
    return _drawn(
        "Morris screen: μ* against σ",
        lambda: calibration_charts.morris_chart(
            points=points,
            x_label="μ* as a share of each output's largest, mean over the outputs (influence)",
            y_label="σ as a share of each output's largest μ*, mean over the outputs",
        ),
        key=key,
        caption=caption,
    )
