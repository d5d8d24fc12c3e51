"""Rainfall losses by soil: `soil` polygons with `initial_loss_mm` and `continuing_loss_mm_h` (ARR's storm losses,
TUFLOW's material IL/CL) and an optional `impervious_fraction` (0 to 1, the share of the ground where no loss
applies). ANUGA has no infiltration, so this is ours: an operator that runs each step straight after ANUGA's rain
operators and takes back, from each triangle, the part of the rain that step brought which the ground absorbs.

On the pervious share of a triangle, rain is lost first to the initial loss until it is used up, then at the
continuing loss rate, never more than the rain (the excess never goes below zero). Within a step the rain is
uniform, so a step in which the initial loss runs out loses at the continuing rate only for the rest of the step:
the total loss is the analytic sum, (1 - f) (IL + min(CL, R) (T - IL / R)) for a constant rain R over T.
Outside every polygon there is no loss. The first polygon (in layer order) that contains a centroid is its soil.

The water taken is never more than the triangle holds, and the momentum shrinks with the depth (as ANUGA's
Rate_operator does for a negative rate), so speeds stay what they were. Every cubic metre taken is counted, and the
volume balance reads initial + rain + inflow + boundary in = final + boundary out + losses."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry import shape

from hydrata.compute.scenario.package import PackageError, as_number
from hydrata.compute.spatial.geometry import feature_name
from hydrata_contract.layers import TOTAL_LOSS, TOTAL_LOSS_FILE

MM = 1.0 / 1000.0
MM_PER_HOUR = MM / 3600.0
FIELDS = ("initial_loss_mm", "continuing_loss_mm_h", "impervious_fraction")


@dataclass(frozen=True)
class Soils:
    """Per triangle: the initial loss (m) and continuing loss (m/s) over its whole area (the pervious share's
    losses times that share) and the pervious share itself (0 where no soil applies)."""

    initial_loss_m: np.ndarray
    continuing_loss_m_s: np.ndarray
    pervious: np.ndarray

    @property
    def indices(self) -> np.ndarray:
        return np.flatnonzero(self.pervious > 0)


def soil_values(index: int, feature: dict) -> tuple[float, float, float]:
    """(initial loss mm, continuing loss mm/h, impervious fraction) of a soil feature; refused by name when out of
    range."""
    properties = feature.get("properties") or {}
    what = f"Soil {feature_name(index, feature)}"
    values = []
    for key in FIELDS:
        raw = properties.get(key)
        if key == "impervious_fraction" and raw in (None, ""):
            values.append(0.0)
            continue
        value = as_number(raw)
        if value is None or value < 0 or (key == "impervious_fraction" and value > 1):
            need = "a fraction from 0 to 1" if key == "impervious_fraction" else "a number of 0 or more"
            raise PackageError(f"{what} has {key}={raw!r}; it must be {need}.")
        values.append(value)
    return values[0], values[1], values[2]


def soils(xy: np.ndarray, features: list[dict]) -> Soils:
    """Each centroid's soil: the first polygon that contains it; no loss where none does."""
    count = len(xy)
    initial, continuing, pervious = np.zeros(count), np.zeros(count), np.zeros(count)
    unset = np.ones(count, dtype=bool)
    for index, feature in enumerate(features):
        initial_mm, continuing_mm_h, impervious = soil_values(index, feature)
        geometry = shape(feature["geometry"]) if feature.get("geometry") else None
        if geometry is None or geometry.geom_type not in ("Polygon", "MultiPolygon"):
            raise PackageError(f"Soil {feature_name(index, feature)} is not a polygon.")
        geometry = shapely.force_2d(geometry)
        geometry = geometry if geometry.is_valid else shapely.make_valid(geometry)
        inside = np.zeros(count, dtype=bool)
        inside[unset] = shapely.contains_xy(geometry, xy[unset, 0], xy[unset, 1])
        share = 1.0 - impervious
        initial[inside] = share * initial_mm * MM
        continuing[inside] = share * continuing_mm_h * MM_PER_HOUR
        pervious[inside] = share
        unset &= ~inside
    return Soils(initial_loss_m=initial, continuing_loss_m_s=continuing, pervious=pervious)


def step_losses(
    *, rain_m: np.ndarray, pervious: np.ndarray, initial_left_m: np.ndarray, continuing_m: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One step's loss (m, over the triangle) and the initial loss left, for the rain the step brought (m) and the
    continuing loss the whole step could take (m). Pure: the operator and the tests share it."""
    rain_m = np.maximum(rain_m, 0.0)
    pervious_rain = rain_m * pervious
    from_initial = np.minimum(pervious_rain, initial_left_m)
    after = pervious_rain - from_initial
    # the share of the step after the initial loss ran out (the rain is uniform within a step)
    remaining = np.divide(after, pervious_rain, out=np.zeros_like(after), where=pervious_rain > 0)
    from_continuing = np.minimum(after, continuing_m * remaining)
    return from_initial + from_continuing, initial_left_m - from_initial


def loss_operator(domain: Any, *, rainfall: list[Any], soil: Soils, owned: np.ndarray) -> Any:
    """The operator (an anuga.Operator) on the domain, to be made after the rain operators so it runs after them."""
    import anuga

    class SoilLosses(anuga.Operator):
        def __init__(self) -> None:
            super().__init__(domain, description="rainfall losses by soil", label="soil_losses", logging=False)
            self.indices = soil.indices
            self.pervious = soil.pervious[self.indices]
            self.initial_left = soil.initial_loss_m[self.indices].copy()
            self.continuing = soil.continuing_loss_m_s[self.indices]
            self.areas = np.asarray(domain.areas, dtype=float)[self.indices]
            self.counted = owned[self.indices]
            self.position = {triangle: slot for slot, triangle in enumerate(self.indices.tolist())}
            self.rain_slots = [
                (operator, np.array([self.position[i] for i in np.asarray(operator.indices) if i in self.position]))
                for operator in rainfall
            ]
            self.rain_slots = [(operator, slots) for operator, slots in self.rain_slots if len(slots)]
            self.total_loss_m = np.zeros(len(self.indices))  # per triangle, for the total-loss map
            self.volume_m3 = 0.0  # over the triangles this rank owns

        def __call__(self) -> None:
            if not len(self.indices) or not self.rain_slots:
                return
            t, dt = self.domain.get_time(), self.domain.get_timestep()
            rain = np.zeros(len(self.indices))
            for operator, slots in self.rain_slots:
                rain[slots] += float(operator.get_factor(t)) * dt * float(operator.get_non_spatial_rate(t))
            loss, initial_left = step_losses(
                rain_m=rain, pervious=self.pervious, initial_left_m=self.initial_left, continuing_m=self.continuing * dt
            )
            quantities = self.domain.quantities
            stage, elevation = quantities["stage"].centroid_values, quantities["elevation"].centroid_values
            depth = np.maximum(stage[self.indices] - elevation[self.indices], 0.0)
            taken = np.minimum(loss, depth)
            keep = np.divide(depth - taken, depth, out=np.ones_like(depth), where=depth > 0)
            stage[self.indices] -= taken
            quantities["xmomentum"].centroid_values[self.indices] *= keep
            quantities["ymomentum"].centroid_values[self.indices] *= keep
            self.initial_left = np.maximum(initial_left, self.initial_left - taken)
            self.total_loss_m += taken
            self.volume_m3 += float(np.sum((taken * self.areas)[self.counted]))

        def parallel_safe(self) -> bool:
            return True

        def statistics(self) -> str:
            return f"Soil losses on {len(self.indices)} triangles"

        def timestepping_statistics(self) -> str:
            return f"Soil losses so far {self.volume_m3:.6g} m3"

        def total_loss_mm(self) -> np.ndarray:
            """The total loss (mm) at every triangle of this rank's part (0 off the soils)."""
            total = np.zeros(self.domain.number_of_triangles)
            total[self.indices] = self.total_loss_m / MM
            return total

    return SoilLosses()


def add_losses(
    domain: Any, features: list[dict], *, xy: np.ndarray, rainfall: list[Any], owned: np.ndarray, log: Callable
) -> Any | None:
    """The soil loss operator of the domain, or None without soils."""
    if not features:
        return None
    soil = soils(xy, features)
    operator = loss_operator(domain, rainfall=rainfall, soil=soil, owned=owned)
    log(f"Soils: {len(features)} polygons over {len(soil.indices)} triangles; rain there loses IL then CL.")
    return operator


def write_total_loss(
    *, operator: Any, ranks: Any, ownership: Any, whole: Any, grid: Any, path_of: Callable[[str], Any]
) -> dict[str, str]:
    """The total loss (mm) of every cell of the DEM's grid as a COG, from the triangle under it (collective: each
    triangle's from the rank that owns it); the file it wrote, by name, on rank 0 ({} without soils or elsewhere)."""
    from hydrata.compute.outputs.results import grid_values, triangle_index_grid, write_cog
    from hydrata.compute.simulation.ranks import gather_owned

    if operator is None:
        return {}
    arrays = gather_owned(ranks, ownership, {TOTAL_LOSS: operator.total_loss_mm()})
    if whole is None:
        return {}
    index = triangle_index_grid(nodes=whole.nodes, triangles=whole.triangles, grid=grid)
    write_cog(path_of(TOTAL_LOSS_FILE), grid_values(index, arrays[TOTAL_LOSS]), grid)
    return {TOTAL_LOSS: TOTAL_LOSS_FILE}
