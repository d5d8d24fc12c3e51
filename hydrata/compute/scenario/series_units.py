"""The units a time series is written in, and what each means to the model: the one place that turns a series'
rows into the rate the model applies, and says how much water that is. No Django, no ANUGA.

Rain comes in three forms, all applied as the same ANUGA rate (mm/hr, scaled to m/s by the forcing):

- `mm/hr`: an intensity at each row's time, linear between rows (as the model has always read a hyetograph);
- `mm/interval`: the depth that fell in the interval ENDING at the row's time (since the row before it), spread
  evenly over that interval: the convention of rain gauges and of HEC-DSS period data. A first row of 0 only marks
  where the series starts; a first row with rain covers an interval as long as the second row's, ending at it;
- `mm cumulative`: the depth fallen since the first row (so the first row is the baseline), linear between rows,
  so the rain between two rows falls evenly over their interval. It must never decrease.

So a cumulative series and the same storm in mm per interval are the same rain, row for row, and a constant
intensity written in any of the three forms is the same rate at every instant. Outside the series (before its
first instant, after its last row) there is no rain. Flow (`m3/s`) and stage (`m`) have one unit each.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np

from hydrata.compute.errors import (
    CUMULATIVE_DECREASES,
    INTERVAL_UNKNOWN,
    NEGATIVE_RAIN,
    UNKNOWN_UNITS,
    SeriesUnitsError,
)
from hydrata.compute.scenario.package import parse_timestamp

MM_PER_HOUR = "mm/hr"
MM_PER_INTERVAL = "mm/interval"
MM_CUMULATIVE = "mm cumulative"
CUBIC_METRES_PER_SECOND = "m3/s"
METRES = "m"

RAIN_UNITS = (MM_PER_HOUR, MM_PER_INTERVAL, MM_CUMULATIVE)
FLOW_UNITS = (CUBIC_METRES_PER_SECOND,)
STAGE_UNITS = (METRES,)
# What each use in the model reads, and what each series type may be written in (a generic series takes any text,
# normalised when it is a known unit; used as a forcing, its units must be of that forcing).
UNITS_OF_USE: dict[str, tuple[str, ...]] = {"rain": RAIN_UNITS, "flow": FLOW_UNITS, "stage": STAGE_UNITS}
USE_OF_SERIES_TYPE = {"hyetograph": "rain", "hydrograph": "flow", "stage": "stage"}
MEANING = {
    MM_PER_HOUR: "rain intensity",
    MM_PER_INTERVAL: "the rain depth in the interval ending at each row",
    MM_CUMULATIVE: "the rain depth since the first row",
    CUBIC_METRES_PER_SECOND: "flow",
    METRES: "water level",
}
SECONDS_PER_HOUR = 3600.0

# Every spelling accepted, as it reads after trimming, collapsing spaces and casefolding; each maps to its one
# canonical name, which is what is stored. Liberal in the spellings engineers write, exact in what they mean:
# "mm" alone is none of them (an intensity? a depth per interval? cumulative?).
SPELLINGS: dict[str, str] = {
    **dict.fromkeys(
        [
            "mm/hr",
            "mm/h",
            "mm/hour",
            "mm per hour",
            "mm per hr",
            "mm h-1",
            "mm hr-1",
            "mm h^-1",
            "mm h⁻¹",
            "mm·h⁻¹",
            "mm/hr (intensity)",
        ],
        MM_PER_HOUR,
    ),
    **dict.fromkeys(
        [
            "mm/interval",
            "mm per interval",
            "mm/step",
            "mm per step",
            "mm/timestep",
            "mm per timestep",
            "mm/time step",
            "mm per time step",
            "mm/period",
            "mm per period",
            "mm incremental",
            "incremental mm",
            "mm (incremental)",
        ],
        MM_PER_INTERVAL,
    ),
    **dict.fromkeys(
        [
            "mm cumulative",
            "cumulative mm",
            "mm (cumulative)",
            "cumulative (mm)",
            "mm accumulated",
            "accumulated mm",
        ],
        MM_CUMULATIVE,
    ),
    **dict.fromkeys(
        ["m3/s", "m³/s", "m^3/s", "m3 s-1", "m³ s⁻¹", "m3/sec", "m³/sec", "cumecs", "cumec"],
        CUBIC_METRES_PER_SECOND,
    ),
    **dict.fromkeys(["m", "metre", "metres", "meter", "meters"], METRES),
}


def units_canonical(units: str | None) -> str | None:
    """The canonical name of a known spelling ('MM/H ' -> 'mm/hr'), None for any other text."""
    return SPELLINGS.get(" ".join(str(units or "").split()).casefold())


def use_of_units(units: str | None) -> str | None:
    """rain, flow or stage: what a series in these units can drive (None for units the model does not know)."""
    canonical = units_canonical(units)
    return next((use for use, accepted in UNITS_OF_USE.items() if canonical in accepted), None)


def units_listed(accepted: Sequence[str]) -> str:
    return "; ".join(f"{name} ({MEANING[name]})" for name in accepted)


def units_for_series_type(series_type: str, units: str) -> str:
    """The canonical units of a series of this type, or UNKNOWN_UNITS listing the ones it may be written in. A
    generic series keeps any text (trimmed), normalised when it is a known unit."""
    canonical = units_canonical(units)
    use = USE_OF_SERIES_TYPE.get(series_type)
    if use is None:
        return canonical or str(units).strip()
    accepted = UNITS_OF_USE[use]
    if canonical not in accepted:
        raise SeriesUnitsError(
            UNKNOWN_UNITS,
            f"units {str(units).strip()!r} are not units of a {series_type}. Use one of: {units_listed(accepted)}."
            + (" 'mm' alone is ambiguous: say which of the three it is." if use == "rain" else ""),
            accepted=list(accepted),
        )
    return canonical


def units_for_use(units: str | None, *, use: str, name: str) -> str:
    """The canonical units of a series that a forcing of `use` (rain, flow, stage) reads, or UNKNOWN_UNITS. A
    series without units (a package written before units were read) is taken in the use's first unit."""
    accepted = UNITS_OF_USE[use]
    if units is None:
        return accepted[0]
    canonical = units_canonical(units)
    if canonical not in accepted:
        raise SeriesUnitsError(
            UNKNOWN_UNITS,
            f"The time series {name!r} is in {str(units).strip()!r}, which the model cannot apply as {use}. Its "
            f"units must be one of: {units_listed(accepted)}.",
            accepted=list(accepted),
            name=name,
        )
    return canonical


def series_check(values: Sequence[float] | np.ndarray, units: str) -> None:
    """Refuse values the units cannot hold: rain below zero, cumulative rain that decreases, rain in mm per interval
    on a single row. `row` is the position in time order."""
    if units not in RAIN_UNITS:
        return
    array = np.asarray(values, dtype=float)
    negative = np.flatnonzero(array < 0)
    if negative.size:
        row = int(negative[0])
        raise SeriesUnitsError(
            NEGATIVE_RAIN, f"Rain cannot be negative ({array[row]:g} {units}).", row=row, value=float(array[row])
        )
    if units == MM_CUMULATIVE:
        falls = np.flatnonzero(np.diff(array) < 0)
        if falls.size:
            row = int(falls[0]) + 1
            raise SeriesUnitsError(
                CUMULATIVE_DECREASES,
                f"Cumulative rain never decreases, but this row's {array[row]:g} mm is below the {array[row - 1]:g} mm "
                "of the row before it. Correct the row, or send the series as mm/interval if these are depths per "
                "interval.",
                row=row,
                value=float(array[row]),
                previous=float(array[row - 1]),
            )
    if units == MM_PER_INTERVAL and len(array) == 1 and array[0] != 0:
        raise SeriesUnitsError(
            INTERVAL_UNKNOWN,
            "A series in mm/interval needs at least two rows: with one, its interval has no length. Add the row "
            "that starts it (0 mm at the time the interval begins), or send an intensity in mm/hr.",
            row=0,
        )


@dataclass(frozen=True)
class Rates:
    """A series as the rate the model applies, in its use's first unit (mm/hr, m3/s, m), at times in seconds.

    With `steps`, values[k] holds over [times[k], times[k+1]) and the last value is 0 (after the end); otherwise
    the values are linear between times. Either way the rate is 0 outside [times[0], times[-1]]."""

    times: np.ndarray
    values: np.ndarray
    steps: bool = False

    def integral(self, start: float, end: float) -> float:
        """The exact integral of the rate over [start, end] (rate x seconds)."""
        times, values = self.times, self.values
        start, end = max(start, float(times[0])), min(end, float(times[-1]))
        if end <= start:
            return 0.0
        if self.steps:
            lower = np.clip(times[:-1], start, end)
            upper = np.clip(times[1:], start, end)
            return float(np.sum(values[:-1] * (upper - lower)))
        knots = np.unique(np.concatenate([[start, end], times[(times > start) & (times < end)]]))
        return float(np.trapezoid(np.interp(knots, times, values), knots))

    def peak(self, start: float = -np.inf, end: float = np.inf) -> float:
        """The highest rate within [start, end] (0 when the window misses the series)."""
        times, values = self.times, self.values
        start, end = max(start, float(times[0])), min(end, float(times[-1]))
        if end < start:
            return 0.0
        if self.steps:
            begins_in_time = times[:-1] < end if end > start else times[:-1] <= start
            inside = begins_in_time & (times[1:] > start)
            return float(np.max(values[:-1][inside])) if inside.any() else 0.0
        knots = np.concatenate([[start, end], times[(times > start) & (times < end)]])
        return float(np.max(np.interp(knots, times, values)))


def rates(times: Sequence[float] | np.ndarray, values: Sequence[float] | np.ndarray, units: str) -> Rates:
    """The rows (times in seconds, increasing; values in `units`, canonical) as the rate the model applies."""
    t = np.asarray(times, dtype=float)
    v = np.asarray(values, dtype=float)
    series_check(v, units)
    if units in (MM_CUMULATIVE, MM_PER_INTERVAL) and len(t) > 1 and not np.all(np.diff(t) > 0):
        row = int(np.flatnonzero(np.diff(t) <= 0)[0]) + 1
        raise SeriesUnitsError(
            INTERVAL_UNKNOWN,
            f"Rows {row - 1} and {row} share a time, so the interval between them has no length.",
            row=row,
        )
    if units == MM_CUMULATIVE:
        if len(t) == 1:
            return Rates(t, np.zeros(1), steps=True)
        intensity = np.diff(v) / np.diff(t) * SECONDS_PER_HOUR
        return Rates(t, np.append(intensity, 0.0), steps=True)
    if units == MM_PER_INTERVAL:
        if len(t) == 1:
            return Rates(t, np.zeros(1), steps=True)
        spans = np.diff(t)
        intensity = v[1:] / spans * SECONDS_PER_HOUR
        if v[0] != 0:  # the first row's interval: as long as the second row's, ending at the first row
            t = np.concatenate([[t[0] - spans[0]], t])
            intensity = np.concatenate([[v[0] / spans[0] * SECONDS_PER_HOUR], intensity])
        return Rates(t, np.append(intensity, 0.0), steps=True)
    return Rates(t, v, steps=False)


def applied(series: Rates, units: str, *, start: float = -np.inf, end: float = np.inf) -> dict[str, float]:
    """What the model applies of a series within [start, end] (all of it by default): for rain, the total depth
    (mm) and the peak intensity (mm/hr); for flow, the volume (m3) and the peak flow (m3/s); for a level, its lowest
    and highest value (m)."""
    if units in RAIN_UNITS:
        return {
            "total_depth_mm": series.integral(start, end) / SECONDS_PER_HOUR,
            "peak_intensity_mm_per_h": series.peak(start, end),
        }
    if units in FLOW_UNITS:
        return {"volume_m3": series.integral(start, end), "peak_m3_per_s": series.peak(start, end)}
    if units in STAGE_UNITS:
        return {"min_m": float(np.min(series.values)), "max_m": float(np.max(series.values))}
    return {}


def series_applied(rows: list[dict], units: str) -> dict[str, Any]:
    """What the model applies of a series (rows of {timestamp: ISO 8601, value}, in time order) on its own: what it
    drives (`applies_as`: rain, flow, stage), from its first instant to its last row, and `applied` over all of it.
    Units the model does not know, or values they cannot hold, give `applies_as` None and the `problem`."""
    use = use_of_units(units)
    if use is None:
        return {
            "applies_as": None,
            "problem": f"The model applies no series in {units!r}: it knows {', '.join(SPELLINGS_OF)}.",
        }
    canonical = str(units_canonical(units))
    first = parse_timestamp(rows[0]["timestamp"])
    times = [(parse_timestamp(row["timestamp"]) - first).total_seconds() for row in rows]
    try:
        series = rates(times, [float(row["value"]) for row in rows], canonical)
    except SeriesUnitsError as refused:
        return {"applies_as": None, "problem": refused.message}
    return {
        "applies_as": use,
        "units": canonical,
        "meaning": MEANING[canonical],
        "starts_at": _iso(first + timedelta(seconds=float(series.times[0]))),
        "ends_at": _iso(first + timedelta(seconds=float(series.times[-1]))),
        **applied(series, canonical),
    }


SPELLINGS_OF = sorted(set(SPELLINGS.values()), key=[*RAIN_UNITS, *FLOW_UNITS, *STAGE_UNITS].index)


def _iso(moment: Any) -> str:
    return str(moment.isoformat()).replace("+00:00", "Z")
