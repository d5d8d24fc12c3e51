"""Where the water starts: `initial_condition` polygons, each a `stage` (m, absolute, in the DEM's datum) or a
`depth` (m above the ground). The first polygon (in layer order) that contains a triangle's centroid sets its
water; elsewhere the model starts dry. A stage below the ground leaves the triangle dry.

The values are plain functions of numpy arrays; `set_initial_water` puts them on an ANUGA domain with its
`set_quantity`, at the centroids (where ANUGA keeps its bed too)."""

from collections.abc import Callable
from typing import Any

import numpy as np
import shapely
from shapely.geometry import shape

from hydrata.compute.scenario.package import PackageError, as_number
from hydrata.compute.spatial.geometry import feature_name

LEVELS = ("stage", "depth")


def initial_level(index: int, feature: dict) -> tuple[str, float]:
    """The feature's ("stage" | "depth", metres); refused by name when it has neither, both, or a bad number."""
    properties = feature.get("properties") or {}
    given = [key for key in LEVELS if properties.get(key) not in (None, "")]
    what = f"Initial condition {feature_name(index, feature)}"
    if len(given) != 1:
        raise PackageError(
            f"{what} has {'both a stage and a depth' if given else 'neither a stage nor a depth'}; give one: "
            "'stage' (m, absolute) or 'depth' (m above the ground)."
        )
    key = given[0]
    value = as_number(properties[key])
    if value is None or (key == "depth" and value < 0):
        raise PackageError(f"{what} has {key}={properties[key]!r}; it must be a number (a depth of 0 m or more).")
    return key, value


def _polygon(index: int, feature: dict) -> shapely.Geometry:
    geometry = shape(feature["geometry"]) if feature.get("geometry") else None
    if geometry is None or geometry.geom_type not in ("Polygon", "MultiPolygon"):
        raise PackageError(f"Initial condition {feature_name(index, feature)} is not a polygon.")
    geometry = shapely.force_2d(geometry)
    return geometry if geometry.is_valid else shapely.make_valid(geometry)


def initial_stage(xy: np.ndarray, elevation: np.ndarray, features: list[dict]) -> np.ndarray:
    """The stage at each centroid: the first containing polygon's stage (or its ground + depth), never below the
    ground; the ground itself (dry) where no polygon contains it."""
    elevation = np.asarray(elevation, dtype=float)
    stage = elevation.copy()
    unset = np.ones(len(xy), dtype=bool)
    for index, feature in enumerate(features):
        key, value = initial_level(index, feature)
        geometry = _polygon(index, feature)
        inside = np.zeros(len(xy), dtype=bool)
        inside[unset] = shapely.contains_xy(geometry, xy[unset, 0], xy[unset, 1])
        stage[inside] = value if key == "stage" else elevation[inside] + value
        unset &= ~inside
    return np.maximum(stage, elevation)


def set_initial_water(domain: Any, *, xy: np.ndarray, features: list[dict], log: Callable[[str], None]) -> None:
    """The domain's starting stage from the polygons (a dry start without any); says what it set in the log."""
    if not features:
        return
    elevation = domain.quantities["elevation"].centroid_values
    stage = initial_stage(xy, elevation, features)
    domain.set_quantity("stage", stage, location="centroids")
    depth = stage - elevation
    log(
        f"Initial condition: {len(features)} polygons; {int(np.count_nonzero(depth > 0))} of {len(depth)} triangles "
        f"start wet, {float(np.sum(depth * domain.areas)):.6g} m3 of water in all."
    )
