"""Stage boundaries one feature at a time: each Dirichlet boundary feature keeps its own boundary tag in the mesh
(`Dirichlet_<feature index>`), so each edge holds its own stage (a tide on one, a lake level on another).

A Dirichlet edge sets the stage and lets the momentum through from inside (ANUGA's
`Transmissive_momentum_set_stage_boundary`): water that flows through a fixed tailwater leaves at the speed it has
inside, and the depth beside the edge is the stage given. A `DirichletZeroMomentum` edge is the old boundary
(ANUGA's `Dirichlet_boundary`, or `Time_boundary` for a series, with zero momentum): a still wall of water at that
stage, through which flow crosses only by the flux's numerical diffusion, standing too high by about h Fr/(1 + Fr).
"""

import re
from datetime import datetime
from types import ModuleType
from typing import Any

from hydrata.compute.scenario.package import PackageError
from hydrata.compute.simulation.forcing import Series, SeriesFunction, forcing_value
from hydrata.compute.spatial.geometry import BoundaryRing, feature_name
from hydrata_contract.inputs import BoundaryType

STAGE_TYPES = (BoundaryType.DIRICHLET, BoundaryType.DIRICHLET_ZERO_MOMENTUM)
FEATURE_TAG = re.compile(r"^(?P<kind>[A-Za-z]+)_(?P<index>\d+)$")


def feature_tag(kind: str, index: int) -> str:
    """The mesh's boundary tag of a stage feature's edges."""
    return f"{kind}_{index}"


def stage_type(kind: str) -> BoundaryType | None:
    """The stage boundary type `kind` names (without regard to case), or None."""
    return next((item for item in STAGE_TYPES if item.casefold() == str(kind).strip().casefold()), None)


def tagged_by_feature(ring: BoundaryRing) -> BoundaryRing:
    """The ring with each stage feature's segments tagged by that feature (every other tag is its type's)."""
    tags = []
    for tag, owner in zip(ring.segment_tags, ring.segment_features, strict=True):
        kind = stage_type(tag)
        tags.append(feature_tag(kind.value, owner) if kind is not None else tag)
    return BoundaryRing(points=ring.points, segment_tags=tags, segment_features=ring.segment_features)


def parsed_tag(tag: str) -> tuple[BoundaryType, int] | None:
    """(stage type, feature index) of a per-feature stage tag; None for any other tag."""
    match = FEATURE_TAG.match(str(tag).strip())
    kind = stage_type(match["kind"]) if match else None
    return (kind, int(match["index"])) if match and kind is not None else None


def feature_stage(
    features: list[dict], index: int, *, series: Series | None = None, start: datetime | None = None
) -> float | SeriesFunction:
    """The stage (m, absolute) of boundary feature `index`: its `stage` (or, as older layers have it, `data`), a
    number or the name of a stage series held at its first and last values outside its rows."""
    if not 0 <= index < len(features):
        raise PackageError(f"The mesh has an edge of boundary feature {index}, which the boundary layer lacks.")
    properties = features[index].get("properties") or {}
    what = f"{properties.get('boundary')} boundary {feature_name(index, features[index])}"
    for key in ("stage", "data"):
        if properties.get(key) not in (None, ""):
            return forcing_value(
                properties[key],
                series=series or {},
                start=start,
                scale=1.0,
                key=key,
                what=what,
                use="stage",
                hold_ends=True,
            )
    raise PackageError(f"{what} has no 'stage': give it a stage in m or the name of a stage time series.")


def stage_boundary(anuga: ModuleType, domain: Any, *, kind: BoundaryType, stage: float | SeriesFunction) -> Any:
    """The ANUGA boundary of a stage edge: the stage with the momentum from inside, or with zero momentum."""
    if kind == BoundaryType.DIRICHLET:
        function = stage if isinstance(stage, SeriesFunction) else float(stage)
        return anuga.Transmissive_momentum_set_stage_boundary(domain=domain, function=function)
    if isinstance(stage, SeriesFunction):
        return anuga.Time_boundary(domain=domain, function=lambda t: [stage(t), 0.0, 0.0])
    return anuga.Dirichlet_boundary([float(stage), 0.0, 0.0])
