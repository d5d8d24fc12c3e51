"""What drives the model, put onto an ANUGA domain: friction, rainfall, surface inflow and boundary conditions.

The pure parts (which triangle gets which Manning's n, what a time series is worth at time t) are plain functions
of numpy arrays so they can be tested without ANUGA; the rest calls ANUGA's public API.
"""

import contextlib
import dataclasses
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from types import ModuleType
from typing import Any

import numpy as np
import shapely
from shapely.geometry import shape

from hydrata.compute.errors import SeriesUnitsError
from hydrata.compute.scenario import series_units
from hydrata.compute.scenario.package import PackageError, SeriesRecord, as_number, parse_timestamp
from hydrata.compute.spatial.geometry import feature_name
from hydrata_contract.inputs import BoundaryType

DEFAULT_MANNINGS = 0.03
MM_PER_HOUR_TO_M_PER_S = 1.0 / (1000.0 * 3600.0)
BOUNDARY_TYPES = tuple(BoundaryType.values())
# The most depth one internal step may add to an inflow line's triangles. On a dry domain no wave speed limits the
# time step, so without a ceiling the first step is the whole yield step and an inlet dumps Q x dt into the few
# triangles on its line (tens of metres of false peak). Once water flows, the CFL step is far below this ceiling.
INLET_DEPTH_PER_STEP_M = 0.1
# A time-varying stage on a dry domain has the same trouble: the first step would jump over the rising rows.
STEPS_PER_STAGE_ROW = 10

Log = Callable[[str], None]
# The package's time series by name: a record with its units, or (as older callers pass them) just the rows, which
# are then read in the use's first unit (mm/hr, m3/s, m).
Series = Mapping[str, SeriesRecord | list[dict]]


def import_anuga() -> ModuleType:
    """anuga, imported on first use with its import-time chatter (an mpi4py warning on stdout) swallowed."""
    with contextlib.redirect_stdout(io.StringIO()):
        import anuga
    return anuga


# --- geometry helpers ------------------------------------------------------------------------------------------


def _geometry(feature: dict) -> shapely.Geometry | None:
    if not feature.get("geometry"):
        return None
    geometry = shapely.force_2d(shape(feature["geometry"]))
    return geometry if geometry.is_valid else shapely.make_valid(geometry)


def polygon_mask(geometry: shapely.Geometry, xy: np.ndarray) -> np.ndarray:
    """True for each point (row of `xy`) strictly inside the polygon."""
    return np.asarray(shapely.contains_xy(geometry, xy[:, 0], xy[:, 1]), dtype=bool)


# --- friction --------------------------------------------------------------------------------------------------


def friction_values(xy: np.ndarray, features: list[dict], *, default: float = DEFAULT_MANNINGS) -> np.ndarray:
    """Manning's n at each centroid: the `mannings` of the FIRST polygon (in layer order) that contains it,
    `default` where none does. Features without a numeric `mannings` or without polygon geometry are refused."""
    values = np.full(len(xy), np.nan)
    for index, feature in enumerate(features):
        mannings = as_number((feature.get("properties") or {}).get("mannings"))
        if mannings is None or mannings < 0:
            raise PackageError(
                f"Friction {feature_name(index, feature)} has mannings="
                f"{(feature.get('properties') or {}).get('mannings')!r}; it must be a number >= 0."
            )
        geometry = _geometry(feature)
        if geometry is None or geometry.geom_type not in ("Polygon", "MultiPolygon", "GeometryCollection"):
            raise PackageError(f"Friction {feature_name(index, feature)} is not a polygon.")
        unset = np.isnan(values)
        if not unset.any():
            break
        inside = np.zeros(len(xy), dtype=bool)
        inside[unset] = polygon_mask(geometry, xy[unset])
        values[inside] = mannings
    values[np.isnan(values)] = default
    return values


# --- time series -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeriesFunction:
    """A time series as a function of model time t (s): linear between rows, or with `steps` constant over each
    [times[k], times[k+1]) (rain given as depths, see compute/scenario/series_units.py), multiplied by `scale` (a unit
    conversion). Before the first row and after the last it is 0 (a flow or a rain that has not started or has
    stopped), or, with `hold_ends`, the first and last values (a water level). Called by ANUGA with one argument."""

    times: np.ndarray  # seconds after the model start, increasing
    values: np.ndarray  # in the use's first unit (mm/hr, m3/s, m); with `steps` the last is 0
    scale: float = 1.0
    hold_ends: bool = False
    steps: bool = False

    def __call__(self, t: float) -> float:
        if self.steps:
            index = int(np.searchsorted(self.times, float(t), side="right")) - 1
            return (float(self.values[index]) if index >= 0 else 0.0) * self.scale
        left, right = (self.values[0], self.values[-1]) if self.hold_ends else (0.0, 0.0)
        return float(np.interp(float(t), self.times, self.values, left=left, right=right)) * self.scale

    @property
    def peak(self) -> float:
        return float(np.max(np.abs(self.values))) * abs(self.scale) if len(self.values) else 0.0

    @property
    def rates(self) -> series_units.Rates:
        """The series unscaled, in its unit, as compute/scenario/series_units.py measures it."""
        return series_units.Rates(self.times, self.values, steps=self.steps)

    def integral(self, start: float, end: float) -> float:
        """The exact integral of the function over [start, end] (for checking volumes)."""
        if not self.hold_ends:
            return self.rates.integral(start, end) * self.scale
        knots = np.unique(np.concatenate([[start, end], self.times[(self.times > start) & (self.times < end)]]))
        heights = np.array([self(t) for t in knots])
        return float(np.trapezoid(heights, knots))


def series_function(
    rows: list[dict],
    *,
    start: datetime | None,
    scale: float = 1.0,
    name: str = "time series",
    hold_ends: bool = False,
    units: str = series_units.MM_PER_HOUR,
) -> SeriesFunction:
    """Rows of {timestamp, value} in `units` (canonical) as a SeriesFunction of the rate they mean; time 0 is
    `start`, or when None the series' first instant (its first row's time, or for rain in mm per interval whose first
    row has rain, the start of that row's interval). A timestamp may be an ISO 8601 string or a number of seconds
    after the model start."""
    times, values, anchored = _series_times(rows, start=start, name=name)
    try:
        rates = series_units.rates(times, values, units)
    except SeriesUnitsError as refused:
        raise PackageError(f"The time series {name!r}: {refused.message}") from None
    shift = 0.0 if anchored else float(rates.times[0])
    return SeriesFunction(
        times=rates.times - shift, values=rates.values, scale=scale, hold_ends=hold_ends, steps=rates.steps
    )


def _series_times(rows: list[dict], *, start: datetime | None, name: str) -> tuple[np.ndarray, np.ndarray, bool]:
    """The rows' times (s) and values in time order, and whether the times are model times (a start was given, or
    the timestamps are numbers) rather than times after the first row."""
    if not rows:
        raise PackageError(f"The time series {name!r} has no rows.")
    stamps = [row.get("timestamp") for row in rows]
    anchored = start is not None
    if all(as_number(stamp) is not None for stamp in stamps):
        times = np.array([as_number(stamp) for stamp in stamps], dtype=float)
        anchored = True
    else:
        try:
            moments = [parse_timestamp(stamp) for stamp in stamps]
        except (TypeError, ValueError):
            raise PackageError(f"The time series {name!r} has a timestamp that is not an ISO 8601 time.") from None
        origin = start or min(moments)
        times = np.array([(moment - origin).total_seconds() for moment in moments])
    values = np.array([as_number(row.get("value")) for row in rows], dtype=float)
    if np.isnan(values).any():
        raise PackageError(f"The time series {name!r} has a value that is not a number.")
    order = np.argsort(times, kind="stable")
    return times[order], values[order], anchored


def forcing_value(
    data: Any,
    *,
    series: Series,
    start: datetime | None,
    scale: float,
    what: str,
    use: str,
    key: str = "data",
    hold_ends: bool = False,
) -> float | SeriesFunction:
    """A feature's `data` (or other `key`): a number (in the use's first unit, times `scale`) or the name of one of
    the package's time series, whose units must be one of the `use` (rain, flow, stage)."""
    number = as_number(data)
    if number is not None:
        return number * scale
    name = str(data or "").strip()
    if name not in series:
        raise PackageError(
            f"{what} has {key}={data!r}, which is neither a number nor the name of one of the project's time series."
        )
    record = series[name]
    rows, units = (record.rows, record.units) if isinstance(record, SeriesRecord) else (record, None)
    try:
        canonical = series_units.units_for_use(units, use=use, name=name)
    except SeriesUnitsError as refused:
        raise PackageError(f"{what}: {refused.message}") from None
    return series_function(rows, start=start, scale=scale, name=name, hold_ends=hold_ends, units=canonical)


# --- rainfall and inflow ---------------------------------------------------------------------------------------


def add_rainfall(
    domain: Any,
    features: list[dict],
    *,
    xy: np.ndarray,
    series: Series,
    start: datetime | None,
    log: Log,
) -> list[Any]:
    """One ANUGA Rate_operator per rainfall polygon, on the triangles whose centroid lies inside it.

    `data` is mm/hr (a constant), or a time series in mm/hr, mm/interval or mm cumulative (see
    compute/scenario/series_units.py), always turned into the same rate; the operator is given m/s. Overlapping polygons
    add up. A polygon that contains no centroid is skipped and said so in the log.
    """
    anuga = import_anuga()
    operators = []
    for index, feature in enumerate(features):
        what = f"Rainfall {feature_name(index, feature)}"
        rate = forcing_value(
            (feature.get("properties") or {}).get("data"),
            series=series,
            start=start,
            scale=MM_PER_HOUR_TO_M_PER_S,
            what=what,
            use="rain",
        )
        geometry = _geometry(feature)
        if geometry is None:
            raise PackageError(f"{what} has no geometry.")
        indices = np.flatnonzero(polygon_mask(geometry, xy))
        if len(indices) == 0:
            log(f"{what} contains no triangle centroid; it adds no rain.")
            continue
        operators.append(anuga.Rate_operator(domain, rate=rate, factor=1.0, indices=indices, label=f"rainfall_{index}"))
        log(f"{what}: {_describe(rate, 'mm/hr', 1 / MM_PER_HOUR_TO_M_PER_S)} on {len(indices)} triangles.")
    return operators


def add_inflows(domain: Any, features: list[dict], *, series: Series, start: datetime | None, log: Log) -> list[Any]:
    """One ANUGA Inlet_operator per inflow line; `data` is m3/s (a constant, or a hydrograph name). A
    MultiLineString gets one inlet per part, the flow shared in proportion to the parts' lengths."""
    anuga = import_anuga()
    operators = []
    for index, feature in enumerate(features):
        what = f"Inflow {feature_name(index, feature)}"
        flow = forcing_value(
            (feature.get("properties") or {}).get("data"), series=series, start=start, scale=1.0, what=what, use="flow"
        )
        geometry = _geometry(feature)
        parts = [part for part in shapely.get_parts(geometry) if part.geom_type == "LineString"] if geometry else []
        if not parts:
            raise PackageError(f"{what} is not a line.")
        total = sum(part.length for part in parts) or 1.0
        for number, part in enumerate(parts):
            share = part.length / total if len(parts) > 1 else 1.0
            q = flow * share if isinstance(flow, float) else dataclasses.replace(flow, scale=flow.scale * share)
            try:
                operators.append(
                    anuga.Inlet_operator(
                        domain,
                        [list(point) for point in part.coords],
                        Q=q,
                        default=0.0,
                        label=f"inflow_{index}_{number}",
                    )
                )
            except Exception as error:
                raise PackageError(f"{what} does not cross the mesh, so it cannot bring water in ({error}).") from None
        log(f"{what}: {_describe(flow, 'm3/s', 1.0)}.")
    return operators


def forcing_applied(
    *, rainfall: list[dict], inflow: list[dict], series: Series, start: datetime | None, duration: float
) -> dict[str, Any]:
    """What a scenario's forcing applies over the run, model time 0 to `duration`, as the child will apply it
    (series read in their units, clipped to the run): per rainfall polygon its total depth (mm) and peak intensity
    (mm/hr), per inflow line its volume (m3) and peak flow (m3/s), each with what it reads (`data`); then the most
    rain any polygon gets (overlapping polygons add up), the highest intensity, all the inflow and the highest
    peak of any line. A feature the model could not apply says why in `problem`."""
    rain = [_feature_applied(index, feature, series, start, duration, "rain") for index, feature in enumerate(rainfall)]
    flow = [_feature_applied(index, feature, series, start, duration, "flow") for index, feature in enumerate(inflow)]
    rained = [item for item in rain if "problem" not in item]
    flowed = [item for item in flow if "problem" not in item]
    return {
        "duration_s": duration,
        "rainfall": rain,
        "inflow": flow,
        "rain_total_depth_mm": max((item["total_depth_mm"] for item in rained), default=None),
        "rain_peak_intensity_mm_per_h": max((item["peak_intensity_mm_per_h"] for item in rained), default=None),
        "inflow_volume_m3": sum(item["volume_m3"] for item in flowed) if flowed else None,
        "inflow_peak_m3_per_s": max((item["peak_m3_per_s"] for item in flowed), default=None),
        "problems": [item["problem"] for item in (*rain, *flow) if "problem" in item],
    }


def layer_forcing(features: list[dict], *, series: Series, use: str) -> dict[str, Any]:
    """What a rainfall (`use` rain) or inflow (flow) layer's features apply on their own, before any scenario sets
    a run: a series over its whole span (total depth and peak intensity, or volume and peak flow), a constant its
    rate (`constant`; how much it brings depends on the run's duration). Then the most rain any polygon's series
    brings and the highest intensity, or all the series' inflow and the highest peak, and `problems` (a feature
    naming no series of the project, or one in another kind of unit)."""
    kind = "Rainfall" if use == "rain" else "Inflow"
    unit = series_units.UNITS_OF_USE[use][0]
    items = []
    for index, feature in enumerate(features):
        data = (feature.get("properties") or {}).get("data")
        item: dict[str, Any] = {"feature": f"{kind} {feature_name(index, feature)}", "data": data}
        try:
            value = forcing_value(data, series=series, start=None, scale=1.0, what=item["feature"], use=use)
        except PackageError as problem:
            items.append({**item, "problem": str(problem)})
            continue
        if isinstance(value, SeriesFunction):
            items.append({**item, **series_units.applied(value.rates, unit)})
        else:
            peak = "peak_intensity_mm_per_h" if use == "rain" else "peak_m3_per_s"
            items.append({**item, "constant": value, peak: value})
    applied = [item for item in items if "problem" not in item]
    from_series = [item for item in applied if "constant" not in item]
    if use == "rain":
        totals = {
            "rain_total_depth_mm": max((item["total_depth_mm"] for item in from_series), default=None),
            "rain_peak_intensity_mm_per_h": max((item["peak_intensity_mm_per_h"] for item in applied), default=None),
        }
    else:
        totals = {
            "inflow_volume_m3": sum(item["volume_m3"] for item in from_series) if from_series else None,
            "inflow_peak_m3_per_s": max((item["peak_m3_per_s"] for item in applied), default=None),
        }
    return {
        "features": items,
        **totals,
        "constant_features": len(applied) - len(from_series),
        "problems": [item["problem"] for item in items if "problem" in item],
    }


def _feature_applied(
    index: int, feature: dict, series: Series, start: datetime | None, duration: float, use: str
) -> dict[str, Any]:
    kind = "Rainfall" if use == "rain" else "Inflow"
    data = (feature.get("properties") or {}).get("data")
    item: dict[str, Any] = {"feature": f"{kind} {feature_name(index, feature)}", "data": data}
    try:
        value = forcing_value(data, series=series, start=start, scale=1.0, what=item["feature"], use=use)
    except PackageError as problem:
        return {**item, "problem": str(problem)}
    units = series_units.UNITS_OF_USE[use][0]
    if isinstance(value, SeriesFunction):
        return {**item, **series_units.applied(value.rates, units, start=0.0, end=duration)}
    constant = series_units.Rates(np.array([0.0, duration]), np.array([value, value]))
    return {**item, **series_units.applied(constant, units)}


def inlet_timestep_ceiling(operators: list[Any]) -> float | None:
    """The longest internal step (s) in which no inflow line adds more than INLET_DEPTH_PER_STEP_M of depth to its
    triangles at its peak flow; None without inflows (or with none that ever flows)."""
    ceilings = []
    for operator in operators:
        flow = operator.Q
        peak = flow.peak if isinstance(flow, SeriesFunction) else abs(float(flow))
        if peak > 0:
            ceilings.append(INLET_DEPTH_PER_STEP_M * float(operator.inlet.get_area()) / peak)
    return min(ceilings) if ceilings else None


def _describe(value: float | SeriesFunction, units: str, unscale: float) -> str:
    if isinstance(value, SeriesFunction):
        peak = float(np.max(value.values)) if len(value.values) else 0.0
        described = (
            f"time series of {len(value.times)} {'steps' if value.steps else 'rows'} from t={value.times[0]:g} s to "
            f"t={value.times[-1]:g} s, peak {peak:g} {units}"
        )
        if units in series_units.RAIN_UNITS:
            described += f", {value.rates.integral(-np.inf, np.inf) / series_units.SECONDS_PER_HOUR:g} mm in all"
        elif units in series_units.FLOW_UNITS and not value.hold_ends:
            described += f", {value.rates.integral(-np.inf, np.inf):g} m3 in all"
        return described
    return f"{value * unscale:g} {units}"


# --- boundaries ------------------------------------------------------------------------------------------------


def _of_type(features: list[dict], kind: str) -> list[tuple[int, dict]]:
    return [
        (index, feature)
        for index, feature in enumerate(features)
        if str((feature.get("properties") or {}).get("boundary") or "").strip().casefold() == kind.casefold()
    ]


def dirichlet_stage(
    features: list[dict], *, series: Series | None = None, start: datetime | None = None
) -> float | SeriesFunction:
    """The stage (m, absolute, in the DEM's datum) of the Dirichlet boundary: a number, or the name of a `stage`
    time series (a tide, a downstream level), held at its first and last values outside its rows.

    Taken from the first External boundary feature of type Dirichlet that has a `stage` property, else from the
    first such feature with a `data`, else 0.0. ANUGA's boundary tags are per type, so all Dirichlet edges share
    one stage.
    """
    dirichlet = [
        (index, feature.get("properties") or {}) for index, feature in _of_type(features, BoundaryType.DIRICHLET)
    ]
    for key in ("stage", "data"):
        for index, properties in dirichlet:
            if properties.get(key) not in (None, ""):
                return forcing_value(
                    properties[key],
                    series=series or {},
                    start=start,
                    scale=1.0,
                    key=key,
                    what=f"Dirichlet boundary {feature_name(index, features[index])}",
                    use="stage",
                    hold_ends=True,
                )
    return 0.0


def normal_depth_lines(features: list[dict]) -> tuple[list[shapely.Geometry], list[float]]:
    """The NormalDepth boundary lines and their friction slopes; a line without a positive `slope` is refused."""
    lines, slopes = [], []
    for index, feature in _of_type(features, BoundaryType.NORMAL_DEPTH):
        slope = as_number((feature.get("properties") or {}).get("slope"))
        if slope is None or slope <= 0:
            raise PackageError(
                f"NormalDepth boundary {feature_name(index, feature)} has slope="
                f"{(feature.get('properties') or {}).get('slope')!r}; it needs a positive friction "
                "slope (m/m)."
            )
        geometry = _geometry(feature)
        if geometry is None:
            raise PackageError(f"NormalDepth boundary {feature_name(index, feature)} has no geometry.")
        lines.append(geometry)
        slopes.append(slope)
    return lines, slopes


PARALLEL_BOUNDARY_TAGS = frozenset({"ghost", "exterior"})


def boundary_map(
    domain: Any,
    *,
    boundary_features: list[dict],
    log: Log,
    series: Series | None = None,
    start: datetime | None = None,
) -> dict[str, Any]:
    """Each boundary tag of the mesh with its ANUGA boundary: Reflective (a wall), Transmissive (the water just
    outside equals the water just inside), Dirichlet (a stage, constant or a time series, each feature its own tag
    and stage, the momentum from inside; DirichletZeroMomentum with zero momentum: see
    compute/simulation/boundary_edges.py) or NormalDepth (outflow on Manning's rating curve; see
    compute/simulation/normal_depth.py). A mesh built before stage tags were per feature has one `Dirichlet` tag: its
    edges share the first feature's stage (`dirichlet_stage`). Tags are matched case-insensitively; any other tag is
    refused, except the ones anuga.distribute adds to a rank's part of the mesh (its parallel domain binds those
    itself)."""
    from hydrata.compute.simulation.normal_depth import normal_depth_boundary

    anuga = import_anuga()
    by_name = {name.casefold(): name for name in BOUNDARY_TYPES}
    mapping: dict[str, Any] = {}
    for tag in [tag for tag in domain.get_boundary_tags() if tag not in PARALLEL_BOUNDARY_TAGS]:
        kind = by_name.get(str(tag).strip().casefold())
        if feature_stage_edge(domain, tag, mapping, features=boundary_features, series=series, start=start, log=log):
            continue  # a Dirichlet feature's own edges: compute/simulation/boundary_edges.py
        if kind == BoundaryType.REFLECTIVE:
            mapping[tag] = anuga.Reflective_boundary(domain)
        elif kind == BoundaryType.TRANSMISSIVE:
            mapping[tag] = anuga.Transmissive_boundary(domain)
        elif kind in (BoundaryType.DIRICHLET, BoundaryType.DIRICHLET_ZERO_MOMENTUM):  # a mesh built before
            stage = dirichlet_stage(boundary_features, series=series, start=start)  # per-feature tags: one stage
            mapping[tag] = _dirichlet(anuga, domain, stage, BoundaryType(kind))
            log(f"Dirichlet boundary stage {_describe(stage, 'm', 1.0)}.")
            ceiling = stage_timestep_ceiling(stage)
            if ceiling is not None:
                domain.set_evolve_max_timestep(ceiling)
                log(f"Time step at most {ceiling:.3g} s, a tenth of the stage series' closest rows.")
        elif kind == BoundaryType.NORMAL_DEPTH:
            lines, slopes = normal_depth_lines(boundary_features)
            if not lines:
                raise PackageError(
                    "The mesh has NormalDepth boundary edges but the boundary layer has no "
                    "NormalDepth feature with a slope."
                )
            mapping[tag] = normal_depth_boundary(domain, tag=tag, lines=lines, slopes=slopes)
            log(f"NormalDepth boundary: {len(lines)} lines, friction slopes {', '.join(f'{s:g}' for s in slopes)}.")
        else:
            raise PackageError(f"The mesh has boundary tag {tag!r}; boundary types are {', '.join(BOUNDARY_TYPES)}.")
    return mapping


def feature_stage_edge(
    domain: Any,
    tag: str,
    mapping: dict[str, Any],
    *,
    features: list[dict],
    series: Series | None,
    start: datetime | None,
    log: Log,
) -> bool:
    """Bind a per-feature stage tag (`Dirichlet_3`) to that feature's own stage; False for any other tag."""
    from hydrata.compute.simulation import boundary_edges

    parsed = boundary_edges.parsed_tag(tag)
    if parsed is None:
        return False
    kind, index = parsed
    stage = boundary_edges.feature_stage(features, index, series=series, start=start)
    mapping[tag] = boundary_edges.stage_boundary(import_anuga(), domain, kind=kind, stage=stage)
    how = "momentum from inside" if kind == BoundaryType.DIRICHLET else "zero momentum"
    log(f"{kind} boundary {feature_name(index, features[index])}: stage {_describe(stage, 'm', 1.0)}, {how}.")
    ceiling = stage_timestep_ceiling(stage)
    if ceiling is not None:
        domain.set_evolve_max_timestep(min(ceiling, float(domain.evolve_max_timestep)))
    return True


def stage_timestep_ceiling(stage: float | SeriesFunction) -> float | None:
    """A tenth of the closest spacing of a stage series' rows (None for a constant stage, or a single row)."""
    if not isinstance(stage, SeriesFunction) or len(stage.times) < 2:
        return None
    spacing = np.diff(stage.times)
    spacing = spacing[spacing > 0]
    return float(spacing.min()) / STEPS_PER_STAGE_ROW if spacing.size else None


def _dirichlet(anuga: ModuleType, domain: Any, stage: float | SeriesFunction, kind: BoundaryType) -> Any:
    from hydrata.compute.simulation.boundary_edges import stage_boundary

    return stage_boundary(anuga, domain, kind=kind, stage=stage)
