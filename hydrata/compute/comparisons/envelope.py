"""The design flood of an ensemble (ARR 2019 Book 2, Chapter 5): per duration, a central value of its patterns'
peak rasters at each cell (the median, TUFLOW's documented practice, or the ensemble mean); then the maximum over
durations, and the duration that gave it, the critical duration.

A cell is NaN where a raster has no value (outside the model, the rasters' nodata) and 0 where it stayed dry. NaN
is left out of the central value (a cell without a value in every pattern stays NaN); 0 is a value like any other,
so a cell wet in four patterns of ten has a median of 0. A cell whose envelope is NaN or 0 (dry in every duration)
has no critical duration (NaN). Ties between durations go to the shortest.
"""

import warnings
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import rasterio
from rasterio.windows import Window

from hydrata.compute.outputs.run_statistics import DEPTH_BANDS
from hydrata.compute.rasters.grid_codes import WET_DEPTH_M
from hydrata_contract.hazard import HazardClass
from hydrata_contract.layers import CRITICAL_DURATION, ResultLayer

Central = Literal["median", "mean"]
Raster = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Envelope:
    peak: Raster  # the maximum over durations of each duration's central value
    critical_duration_min: Raster  # the duration that gave it; NaN where there is none


def central_value(peaks: Raster, *, statistic: Central = "median") -> Raster:
    """The central value at each cell of a duration's pattern peaks, stacked on the first axis."""
    if peaks.ndim < 2 or peaks.shape[0] == 0:
        raise ValueError("peaks must stack at least one raster on the first axis")
    # numpy's NaN-aware reductions are several times slower; most rasters have no gap, so they pay only when needed.
    reduce = _reduction(statistic, gaps=bool(np.isnan(peaks).any()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN cell is NaN by design, not a surprise
        return np.asarray(reduce(peaks, axis=0), dtype=np.float64)


def _reduction(statistic: Central, *, gaps: bool) -> Callable[..., Any]:
    if statistic == "mean":
        return np.nanmean if gaps else np.mean
    return np.nanmedian if gaps else np.median


def envelope(centrals: Mapping[int, Raster]) -> Envelope:
    """The maximum over durations (minutes -> central raster, all one shape) and the critical duration per cell."""
    if not centrals:
        raise ValueError("an envelope needs at least one duration")
    durations = sorted(centrals)
    stack = np.stack([np.asarray(centrals[d], dtype=np.float64) for d in durations])
    comparable = np.where(np.isnan(stack), -np.inf, stack)
    first_largest = np.argmax(comparable, axis=0)
    peak = np.take_along_axis(stack, first_largest[np.newaxis], axis=0)[0]
    critical = np.asarray(durations, dtype=np.float64)[first_largest]
    critical[~(peak > 0)] = np.nan  # NaN or dry: no duration is critical
    return Envelope(peak=peak, critical_duration_min=critical)


def design_envelope(
    peaks_by_duration: Mapping[int, Raster], *, statistic: Central = "median"
) -> tuple[dict[int, Raster], Envelope]:
    """Each duration's central raster and their envelope, from each duration's stacked pattern peaks."""
    centrals = {duration: central_value(peaks, statistic=statistic) for duration, peaks in peaks_by_duration.items()}
    return centrals, envelope(centrals)


# --- a study's rasters, streamed in windows ---------------------------------------------------------------------

# Cells held at once over every raster a window stacks (32 MB of float64): the windows shrink as a study has more
# patterns or durations, so its memory does not grow with the number of members.
WINDOW_CELL_BUDGET = 4_000_000


def envelope_rasters(
    rasters: Mapping[str, Mapping[int, Sequence[Path]]],
    *,
    destination: Path,
    critical_of: str,
    statistic: Central = "median",
    cell_budget: int = WINDOW_CELL_BUDGET,
) -> dict[str, Path]:
    """For each layer (name -> duration -> its patterns' rasters, all on one grid), the envelope raster of the
    durations' central values, written to destination/<name>.tif; and the critical duration of `critical_of`'s
    envelope, to destination/critical_duration.tif. Read and written in row windows, each stacking a duration's
    patterns and every duration's central value for its rows only."""
    layers = sorted(rasters)
    first = next(iter(next(iter(rasters[critical_of].values()))))
    with rasterio.open(first) as template:
        height, width, profile = template.height, template.width, template.profile
    stacked = max(len(paths) for durations in rasters.values() for paths in durations.values())
    stacked += max(len(durations) for durations in rasters.values())
    rows = max(1, cell_budget // (stacked * width))
    profile.update(driver="GTiff", dtype="float32", nodata=np.nan, count=1, tiled=False, compress="deflate")
    profile.pop("blockxsize", None), profile.pop("blockysize", None)
    destination.mkdir(parents=True, exist_ok=True)
    written = {name: destination / f"{name}.tif" for name in [*layers, CRITICAL_DURATION]}
    with ExitStack() as outputs:
        sinks = {name: outputs.enter_context(rasterio.open(path, "w", **profile)) for name, path in written.items()}
        for top in range(0, height, rows):
            window = Window(0, top, width, min(rows, height - top))
            for name in layers:
                centrals = {
                    duration: central_value(_read_stack(paths, window, (height, width)), statistic=statistic)
                    for duration, paths in rasters[name].items()
                }
                result = envelope(centrals)
                sinks[name].write(result.peak.astype(np.float32), 1, window=window)
                if name == critical_of:
                    sinks[CRITICAL_DURATION].write(result.critical_duration_min.astype(np.float32), 1, window=window)
    return written


def _read_stack(paths: Sequence[Path], window: Window, shape: tuple[int, int]) -> Raster:
    """The window of each raster, stacked on the first axis; a raster's nodata is NaN."""
    layers = []
    for path in paths:
        with rasterio.open(path) as source:
            if (source.height, source.width) != shape:
                raise ValueError(f"{path.name} is {source.height} x {source.width}, not the study's {shape}")
            layers.append(source.read(1, window=window, masked=True).astype(np.float64).filled(np.nan))
    return np.stack(layers)


# --- a study's figures: what the envelope rasters hold, in numbers -------------------------------------------


def envelope_figures(
    written: Mapping[str, Path], *, durations: Sequence[int], cell_budget: int = WINDOW_CELL_BUDGET
) -> dict[str, Any]:
    """The numbers an engineer reads first of one AEP's envelopes (`written` as envelope_rasters writes them: the
    envelopes of max_depth, max_stage, max_speed and max_hazard, and critical_duration), read in row windows.

    A cell is flooded where its depth envelope is at least WET_DEPTH_M (the run statistics' first depth band, and
    the map's cut-off). The peak depth is over every cell with a value; the peak stage (the water level) and speed
    over the flooded cells; each peak's place is its cell's centre, the first such cell in row order on a tie.
    Areas (m²) are counts of cells times the cell's area: per depth band [low, high) as a run's, per ARR 2019 hazard
    class of the flooded cells, and per critical duration (each duration of `durations`, with its share of the
    flooded area in %). A hazard envelope between two classes (the median of an even number of classes, 2.5)
    counts in the class above, as the map draws it."""
    names = (ResultLayer.MAX_DEPTH, ResultLayer.MAX_STAGE, ResultLayer.MAX_SPEED, ResultLayer.MAX_HAZARD)
    with rasterio.open(written[ResultLayer.MAX_DEPTH]) as template:
        height, width, transform = template.height, template.width, template.transform
    cell_area = abs(transform.a * transform.e - transform.b * transform.d)
    rows = max(1, cell_budget // (len(names) + 1) // max(width, 1))
    bands = dict.fromkeys((label for label, _, _ in DEPTH_BANDS), 0)
    hazard = dict.fromkeys((item.number for item in HazardClass), 0)
    critical = dict.fromkeys(sorted(durations), 0)
    peaks: dict[str, tuple[float, int, int] | None] = dict.fromkeys(names[:3])
    for top in range(0, height, rows):
        window = Window(0, top, width, min(rows, height - top))
        values = {
            name: _read_stack([written[name]], window, (height, width))[0] for name in (*names, CRITICAL_DURATION)
        }
        depth = values[ResultLayer.MAX_DEPTH]
        with np.errstate(invalid="ignore"):
            flooded = depth >= WET_DEPTH_M
            for label, low, high in DEPTH_BANDS:
                bands[label] += int(np.count_nonzero((depth >= low) & (depth < high)))
            classes = np.ceil(values[ResultLayer.MAX_HAZARD][flooded])
            for number in hazard:
                hazard[number] += int(np.count_nonzero(classes == number))
            durations_here = values[CRITICAL_DURATION][flooded]
            for duration in critical:
                critical[duration] += int(np.count_nonzero(durations_here == duration))
        for name in names[:3]:
            among = np.isfinite(values[name]) if name == ResultLayer.MAX_DEPTH else flooded
            peaks[name] = _higher(peaks[name], values[name], among, top)
    flooded_area = sum(bands.values()) * cell_area

    def peak(name: str) -> tuple[float | None, dict[str, float] | None]:
        found = peaks[name]
        if found is None:
            return None, None
        x, y = transform @ (found[2] + 0.5, found[1] + 0.5)
        return found[0], {"x": float(x), "y": float(y)}

    depth_m, depth_at = peak(ResultLayer.MAX_DEPTH)
    stage_m, stage_at = peak(ResultLayer.MAX_STAGE)
    return {
        "peak_depth_m": depth_m,
        "peak_depth_at": depth_at,
        "peak_stage_m": stage_m,
        "peak_stage_at": stage_at,
        "peak_speed_m_s": peak(ResultLayer.MAX_SPEED)[0],
        "cell_area_m2": float(cell_area),
        "flooded_area_m2": float(flooded_area),
        "flooded_area_m2_by_depth_band": {label: float(count * cell_area) for label, count in bands.items()},
        "hazard_area_m2_by_class": {f"H{number}": float(count * cell_area) for number, count in hazard.items()},
        "critical_durations": [
            {
                "duration_min": duration,
                "area_m2": float(count * cell_area),
                "share_pct": 100.0 * count * cell_area / flooded_area if flooded_area > 0 else 0.0,
            }
            for duration, count in critical.items()
        ],
    }


def _higher(
    best: tuple[float, int, int] | None, values: Raster, among: npt.NDArray[np.bool_], top: int
) -> tuple[float, int, int] | None:
    """The larger of `best` (value, row, column) and this window's highest value among `among`; ties keep the
    first in row order."""
    if not among.any():
        return best
    candidates = np.where(among, values, -np.inf)
    index = int(np.argmax(candidates))
    row, col = divmod(index, values.shape[1])
    value = float(candidates[row, col])
    if best is not None and best[0] >= value:
        return best
    return value, top + row, col


# --- a study's series: the ten peaks of each duration at a gauge or flow line ----------------------------------


def ensemble_table(peaks: Mapping[int, Mapping[int, float]], *, statistic: Central = "median") -> dict[str, Any]:
    """Per duration (minutes -> pattern -> its peak), the patterns' peaks and their central value; then the critical
    duration (the largest central value; ties to the shortest), the design value, and the representative pattern:
    the critical duration's pattern whose peak is nearest its central value (ties to the larger peak)."""
    rows = []
    best: tuple[float, int, list[tuple[int, float]]] | None = None
    for duration in sorted(peaks):
        patterns = sorted(peaks[duration])
        values = np.array([peaks[duration][p] for p in patterns], dtype=np.float64)
        central = float(central_value(values[:, np.newaxis], statistic=statistic)[0])
        rows.append(
            {
                "duration_min": duration,
                "patterns": patterns,
                "peaks": [_number(v) for v in values],
                "central": _number(central),
            }
        )
        if not np.isnan(central) and (best is None or central > best[0]):
            known = [(p, float(v)) for p, v in zip(patterns, values, strict=True) if not np.isnan(v)]
            best = (central, duration, known)
    if best is None:
        return {"durations": rows, "critical_duration_min": None, "design_value": None, "pattern": None}
    central, duration, known = best
    pattern = min(known, key=lambda item: (abs(item[1] - central), -item[1]))[0]
    return {"durations": rows, "critical_duration_min": duration, "design_value": central, "pattern": pattern}


def _number(value: float) -> float | None:
    """JSON has no NaN: a peak no run recorded is None."""
    return None if np.isnan(value) else float(value)
