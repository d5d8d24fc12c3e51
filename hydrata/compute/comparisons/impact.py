"""The impact (afflux) map of one run against another on the same DEM grid: other - run on maximum depth and
maximum stage, what changed where, and a picture of it. No Django."""

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import rasterio

from hydrata.compute.errors import GridMismatch
from hydrata.compute.figures.figure_text import plain, pyplot
from hydrata.compute.rasters.grid_codes import NODATA, WET_DEPTH_M
from hydrata_contract.layers import ResultLayer

CHANGE_M = 0.01  # differences smaller than this are "no change" in the areas (the wet-film depth)
PICTURE_MAX_INCHES = 9.0


@dataclass(frozen=True)
class Impact:
    depth_difference: np.ndarray  # float32, NODATA off both meshes
    stage_difference: np.ndarray  # float32, NODATA where either run is dry there
    statistics: dict[str, Any]
    profile: dict[str, Any]  # the grid, for writing


def _read(path: Path) -> tuple[np.ndarray, dict[str, Any]]:
    with rasterio.open(path) as source:
        return source.read(1, masked=True).astype(np.float64), {
            "crs": source.crs,
            "transform": source.transform,
            "width": source.width,
            "height": source.height,
        }


def impact(*, run: dict[str, Path], other: dict[str, Path]) -> Impact:
    """`run` and `other` name each run's max_depth and max_stage rasters. Raises GridMismatch unless all four
    share the CRS, transform and size."""
    depth, grid = _read(run[ResultLayer.MAX_DEPTH])
    other_depth, other_grid = _read(other[ResultLayer.MAX_DEPTH])
    stage, stage_grid = _read(run[ResultLayer.MAX_STAGE])
    other_stage, other_stage_grid = _read(other[ResultLayer.MAX_STAGE])
    if not grid == other_grid == stage_grid == other_stage_grid:
        raise GridMismatch(
            "The two runs' results are on different grids (CRS, cell size, origin or extent "
            "differ), so they cannot be compared cell by cell; compare runs built on the same "
            "terrain and boundary."
        )
    cell_area = abs(grid["transform"].a * grid["transform"].e - grid["transform"].b * grid["transform"].d)
    on_mesh = ~np.ma.getmaskarray(depth) | ~np.ma.getmaskarray(other_depth)
    depth_filled, other_filled = np.ma.filled(depth, 0.0), np.ma.filled(other_depth, 0.0)
    difference = np.where(on_mesh, other_filled - depth_filled, np.nan)
    wet, other_wet = depth_filled >= WET_DEPTH_M, other_filled >= WET_DEPTH_M
    both_wet = wet & other_wet & ~np.ma.getmaskarray(stage) & ~np.ma.getmaskarray(other_stage)
    stage_difference = np.where(both_wet, np.ma.filled(other_stage, 0.0) - np.ma.filled(stage, 0.0), np.nan)
    statistics = impact_statistics(
        difference=difference, stage_difference=stage_difference, wet=wet, other_wet=other_wet, cell_area=cell_area
    )
    return Impact(
        depth_difference=_coded(difference),
        stage_difference=_coded(stage_difference),
        statistics=statistics,
        profile=grid,
    )


def impact_statistics(
    *, difference: np.ndarray, stage_difference: np.ndarray, wet: np.ndarray, other_wet: np.ndarray, cell_area: float
) -> dict[str, Any]:
    """Increases and decreases are magnitudes in metres (0 when there is none); areas in m²."""
    finite = difference[np.isfinite(difference)]
    stage_finite = stage_difference[np.isfinite(stage_difference)]
    either_wet = wet | other_wet

    def area(mask: np.ndarray) -> float:
        return float(np.count_nonzero(mask) * cell_area)

    return {
        "max_increase_m": float(max(finite.max(), 0.0)) if finite.size else None,
        "max_decrease_m": float(max(-finite.min(), 0.0)) if finite.size else None,
        "max_stage_increase_m": float(max(stage_finite.max(), 0.0)) if stage_finite.size else None,
        "max_stage_decrease_m": float(max(-stage_finite.min(), 0.0)) if stage_finite.size else None,
        "area_wetter_m2": area(np.nan_to_num(difference, nan=0.0) > CHANGE_M),
        "area_drier_m2": area(np.nan_to_num(difference, nan=0.0) < -CHANGE_M),
        "area_newly_wet_m2": area(other_wet & ~wet),
        "area_no_longer_wet_m2": area(wet & ~other_wet),
        "area_wet_in_either_m2": area(either_wet),
        "change_threshold_m": CHANGE_M,
    }


def gauge_changes(run: dict[str, float | None], other: dict[str, float | None]) -> list[dict[str, Any]]:
    """The change in peak depth at each gauge both runs recorded (matched by name, in the run's order): the two
    peaks (m), other - run (m), and that as a percentage of the run's peak (null when it is dry, under 1 cm, or a
    peak is unknown). The same scenario at two resolutions makes this a mesh-convergence check."""
    changes = []
    for name, peak in run.items():
        if name not in other:
            continue
        other_peak = other[name]
        change = None if peak is None or other_peak is None else round(other_peak - peak, 6)  # not 0.000399999
        changes.append(
            {
                "name": name,
                "run_peak_depth_m": peak,
                "other_peak_depth_m": other_peak,
                "change_m": change,
                "change_pct": None if change is None or peak is None or peak < WET_DEPTH_M else 100.0 * change / peak,
            }
        )
    return changes


def _coded(values: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(values), values, NODATA).astype(np.float32)


def write_impact_cog(path: Path, values: np.ndarray, profile: dict[str, Any]) -> None:
    with rasterio.open(
        path, "w", driver="COG", count=1, dtype="float32", nodata=NODATA, compress="deflate", **profile
    ) as destination:
        destination.write(values, 1)


def impact_picture(difference: np.ndarray, profile: dict[str, Any], *, title: str) -> bytes:
    """A PNG of other - run on maximum depth: a diverging ramp centred on zero (red wetter, blue drier), cells
    off the mesh transparent, with a colour bar in metres and the project coordinates on the axes."""
    from matplotlib.colors import TwoSlopeNorm

    plt = pyplot()

    values = np.ma.masked_equal(difference, NODATA)
    spread = float(np.abs(values).max()) if values.count() else 0.0
    spread = max(spread, CHANGE_M)
    transform = profile["transform"]
    west, north = transform @ (0, 0)
    east, south = transform @ (profile["width"], profile["height"])
    aspect = profile["height"] / max(profile["width"], 1)
    figure, axes = plt.subplots(figsize=(PICTURE_MAX_INCHES, max(3.0, min(PICTURE_MAX_INCHES, 7.0 * aspect))))
    image = axes.imshow(
        values,
        cmap="RdBu_r",
        norm=TwoSlopeNorm(vmin=-spread, vcenter=0.0, vmax=spread),
        extent=(west, east, south, north),
        interpolation="nearest",
    )
    colour_bar = figure.colorbar(image, ax=axes, shrink=0.85)
    colour_bar.set_label("Change in maximum depth (m): red wetter, blue drier")
    axes.set_title(plain(title))
    axes.set_xlabel("Easting (m)")
    axes.set_ylabel("Northing (m)")
    axes.ticklabel_format(useOffset=False, style="plain")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()
