"""The design flood of an ensemble (ARR 2019 Book 2, Chapter 5): per duration, a central value of its patterns'
peak rasters at each cell (the median, TUFLOW's documented practice, or the ensemble mean); then the maximum over
durations, and the duration that gave it, the critical duration.

A cell is NaN where a raster has no value (outside the model, the rasters' nodata) and 0 where it stayed dry. NaN
is left out of the central value (a cell without a value in every pattern stays NaN); 0 is a value like any other,
so a cell wet in four patterns of ten has a median of 0. A cell whose envelope is NaN or 0 (dry in every duration)
has no critical duration (NaN). Ties between durations go to the shortest.
"""

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

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
