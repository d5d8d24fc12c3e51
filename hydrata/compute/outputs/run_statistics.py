"""statistics.json: the numbers an engineer reads first. Peaks with where and when they happened, flooded area per
depth band and per hazard class, and the volume balance with its mass error."""

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from hydrata.compute.rasters.grid_codes import HAZARD_NODATA, NODATA, WET_DEPTH_M
from hydrata_contract.hazard import HazardClass
from hydrata_contract.layers import ResultLayer

if TYPE_CHECKING:
    from hydrata.compute.outputs.results import MeshMaxima

DEPTH_BANDS: tuple[tuple[str, float, float], ...] = (
    ("0.01-0.15", 0.01, 0.15),
    ("0.15-0.3", 0.15, 0.3),
    ("0.3-0.5", 0.3, 0.5),
    ("0.5-1.0", 0.5, 1.0),
    ("1.0-2.0", 1.0, 2.0),
    (">2.0", 2.0, np.inf),
)
HEALTHY_MASS_ERROR_PCT = 1.0  # TUFLOW's line for a healthy model


@dataclass(frozen=True)
class VolumeAccount:
    """Every volume (m³) that moved during the run. Rain and inflow are what ANUGA's operators actually applied;
    the boundary volumes are its exact boundary flux integral, split by direction one step at a time."""

    initial: float
    final: float
    rainfall: float
    inflow: float
    boundary_in: float
    boundary_out: float
    losses: float = 0.0  # the rain the soils absorbed (compute/simulation/losses.py)

    @property
    def came_in(self) -> float:
        return self.rainfall + self.inflow + self.boundary_in

    @property
    def error(self) -> float:
        """Stored now less what the run started with and what came in, plus what went out and what the soils
        absorbed: 0 for a model that conserves mass."""
        return self.final - self.initial - self.came_in + self.boundary_out + self.losses

    @property
    def had(self) -> float:
        """All the water the run had: what it started with (compute/simulation/water_state.py) and what came in."""
        return self.initial + self.came_in

    @property
    def error_pct(self) -> float | None:
        """The error as a share of all the water the run had."""
        return 100.0 * abs(self.error) / self.had if self.had > 0 else None

    def as_json(self) -> dict[str, Any]:
        return {
            "initial_m3": self.initial,
            "rainfall_m3": self.rainfall,
            "inflow_m3": self.inflow,
            "boundary_in_m3": self.boundary_in,
            "boundary_out_m3": self.boundary_out,
            "losses_m3": self.losses,
            "rainfall_excess_m3": self.rainfall - self.losses,
            "final_m3": self.final,
            "came_in_m3": self.came_in,
            "error_m3": self.error,
            "error_pct": self.error_pct,
        }


def depth_band_areas(max_depth: np.ndarray, cell_area: float) -> dict[str, float]:
    """The area (m²) of raster cells whose maximum depth falls in each band [low, high); nodata cells excluded."""
    valid = max_depth[max_depth != NODATA]
    return {
        label: float(np.count_nonzero((valid >= low) & (valid < high)) * cell_area) for label, low, high in DEPTH_BANDS
    }


def hazard_class_areas(max_hazard: np.ndarray, cell_area: float) -> dict[str, float]:
    """The area (m²) of raster cells of each hazard class H1-H6 (dry cells and cells off the mesh excluded)."""
    valid = max_hazard[max_hazard != HAZARD_NODATA]
    return {item.value: float(np.count_nonzero(valid == item.number) * cell_area) for item in HazardClass}


def peak_at(
    values: np.ndarray, times: np.ndarray, centroids: np.ndarray, among: np.ndarray | None = None
) -> dict[str, float | None] | None:
    """Where and when the highest of `values` happened: the triangle's centroid and the time (s) it was reached."""
    candidates = np.isfinite(values) if among is None else among & np.isfinite(values)
    if not candidates.any():
        return None
    index = int(np.flatnonzero(candidates)[np.argmax(values[candidates])])
    time = float(times[index]) if np.isfinite(times[index]) else None
    return {"value": float(values[index]), "x": float(centroids[index, 0]), "y": float(centroids[index, 1]), "t": time}


def mass_balance_warnings(account: VolumeAccount) -> list[str]:
    if account.error_pct is None or account.error_pct <= HEALTHY_MASS_ERROR_PCT:
        return []
    return [
        f"The volume balance is off by {account.error_pct:.2f}% of the {account.had:.4g} m3 the run had "
        f"(above the {HEALTHY_MASS_ERROR_PCT:g}% of a healthy model): check the mesh and the inflows."
    ]


def run_statistics(
    *,
    maxima: "MeshMaxima",
    grids: dict[str, np.ndarray],
    cell_area: float,
    account: VolumeAccount,
    series: dict[str, Any],
    inundation_threshold_m: float,
    sim_seconds: float,
    wall_seconds: float,
    health: dict[str, Any] | None = None,
    solver: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Peaks come from the mesh triangles (the rasters sample them, so they can only be lower); peak stage is over
    triangles that got wet (max depth >= 1 cm), null when none did. volume_in_m3 and volume_out_m3 are the volume
    account's: everything that came in (rain, inflow and through the boundary) and what left through the boundary,
    so in - out is the change in storage (plus the mass error); boundary_net_inflow_m3 is positive when water came
    in through the boundary."""
    bands = depth_band_areas(grids[ResultLayer.MAX_DEPTH], cell_area)
    centroids = maxima.centroids
    wet = maxima.max_depth >= WET_DEPTH_M
    depth = peak_at(maxima.max_depth, maxima.time_of_max_depth, centroids)
    speed = peak_at(maxima.max_speed, maxima.time_of_max_speed, centroids)
    stage = peak_at(maxima.max_stage, maxima.time_of_max_stage, centroids, among=wet) if wet.any() else None
    inundated = grids[ResultLayer.TIME_OF_INUNDATION] != NODATA
    return {
        "peak_depth_m": depth and depth["value"],
        "peak_speed_m_s": speed and speed["value"],
        "peak_stage_m": stage and stage["value"],
        "peak_depth_at": _where(depth),
        "peak_speed_at": _where(speed),
        "peak_stage_at": _where(stage),
        "flooded_area_m2_by_depth_band": bands,
        "wet_area_m2": float(sum(bands.values())),
        "hazard_area_m2_by_class": hazard_class_areas(grids[ResultLayer.MAX_HAZARD], cell_area),
        "inundation_threshold_m": float(inundation_threshold_m),
        "inundated_area_m2": float(np.count_nonzero(inundated) * cell_area),
        "volume_in_m3": float(account.came_in),
        "volume_out_m3": float(account.boundary_out),
        "final_volume_m3": float(account.final),
        "boundary_net_inflow_m3": float(account.boundary_in - account.boundary_out),
        "volume_balance": account.as_json(),
        "mass_balance_error_pct": account.error_pct,
        "warnings": mass_balance_warnings(account),
        "gauges": [gauge["name"] for gauge in series.get("gauges", [])],
        "flow_lines": [line["name"] for line in series.get("flow_lines", [])],
        "sim_seconds": float(sim_seconds),
        "wall_seconds": float(wall_seconds),
        "triangles": len(maxima.triangles),
        "health": health,
        "solver": solver,
    }


def _where(peak: dict[str, float | None] | None) -> dict[str, float | None] | None:
    return None if peak is None else {key: peak[key] for key in ("x", "y", "t")}
