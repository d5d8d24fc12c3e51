"""Weirs (levees, walls, handrails) on ANUGA's riverwalls: the line is a chain of mesh edges (compute/simulation/mesh.py
keeps it as a breakline) and `domain.riverwallData.create_riverwalls` gives those edges the crest, over which ANUGA's
weir formula passes water once it stands above it. A crest is `crest_elevation` (m, absolute), or `height` m above
the ground sampled along the line every SPACING_M."""

from collections.abc import Callable
from typing import Any

import numpy as np
import shapely
from shapely.geometry import shape

from hydrata.compute.errors import ModelGeometryError
from hydrata.compute.spatial.geometry import feature_name
from hydrata.compute.spatial.planar import GRID_M
from hydrata_contract.errors import ErrorCode

SPACING_M = 1.0  # the ground under a weir given by its height is read this often along it
MATCH_TOLERANCE_M = 2 * GRID_M  # the mesh's edges lie on the line as noded to the planar graph's grid

Ground = Callable[[np.ndarray], np.ndarray]
Log = Callable[[str], None]


def weir_walls(features: list[dict], *, ground: Ground) -> dict[str, list[list[float]]]:
    """Each weir line as ANUGA's riverwall: name -> [[x, y, crest], ...]. A crest at or below the ground along the
    whole line is refused (it would hold nothing back), naming the feature."""
    walls: dict[str, list[list[float]]] = {}
    for index, feature in enumerate(features):
        properties = feature.get("properties") or {}
        geometry = shapely.force_2d(shape(feature["geometry"]))
        for number, part in enumerate(shapely.get_parts(geometry)):
            if part.length <= 0:
                continue
            points = np.asarray(shapely.segmentize(part, SPACING_M).coords, dtype=float)
            under = np.asarray(ground(points), dtype=float)
            if properties.get("crest_elevation") not in (None, ""):
                crest = np.full(len(points), float(properties["crest_elevation"]))
            else:
                crest = under + float(properties["height"])
            if np.all(crest <= under):
                raise ModelGeometryError(
                    ErrorCode.SITE_FEATURE_INVALID,
                    f"Weir {feature_name(index, feature)} has crest_elevation {float(crest.max()):.3f} m, at or below "
                    f"the ground along its whole length (the ground there is {float(under.min()):.3f} to "
                    f"{float(under.max()):.3f} m); give a crest above the ground, or a 'height' above it.",
                    feature_index=index,
                    feature_id=feature.get("id"),
                )
            name = f"weir {index}" + (f" part {number}" if number else "")
            walls[name] = [[float(x), float(y), float(z)] for (x, y), z in zip(points, crest, strict=True)]
    return walls


def add_weirs(domain: Any, features: list[dict], *, ground: Ground, log: Log) -> int:
    """The weirs as riverwalls of this process's domain (every rank of a parallel run sets its own part); returns
    the number of this process's edges that became walls."""
    if not features:
        return 0
    walls = weir_walls(features, ground=ground)
    domain.riverwallData.create_riverwalls(walls, tol=MATCH_TOLERANCE_M, verbose=False, output_dir=None)
    edges = int(domain.number_of_riverwall_edges)
    log(f"Weirs: {len(features)} lines as ANUGA riverwalls, {edges} mesh edges.")
    return edges
