"""A member's changes to the base build: the layers and time series it writes of its own, everything else shared.

Each parameter acts on the features its target names (`properties.name`, else the feature's `id`): a friction
polygon's Manning's n, a soil's losses, an inflow's or the rain's `data` scaled (a number, or a series whose rows
are scaled into a series of the member's own). A multiplier on all friction scales every polygon's n and adds one
polygon over the whole model, last, with the default n scaled: the first polygon holding a triangle sets its n
(compute/simulation/forcing.py `friction_values`), so the default applies where no polygon of the base lies."""

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hydrata.compute.scenario.package import as_number
from hydrata.compute.simulation.forcing import DEFAULT_MANNINGS
from hydrata_contract.calibration import ParameterTarget
from hydrata_contract.requests.calibration import CalibrationParameter

# The property each named target sets.
TARGET_PROPERTY = {
    ParameterTarget.FRICTION: "mannings",
    ParameterTarget.SOIL_INITIAL_LOSS: "initial_loss_mm",
    ParameterTarget.SOIL_CONTINUING_LOSS: "continuing_loss_mm_h",
}
SCALED = (ParameterTarget.INFLOW, ParameterTarget.RAIN)


class TargetMissing(ValueError):
    """A parameter names what the base build does not have."""


def feature_label(feature: dict[str, Any]) -> str | None:
    name = (feature.get("properties") or {}).get("name")
    if name not in (None, ""):
        return str(name)
    return None if feature.get("id") is None else str(feature["id"])


def check_targets(*, parameters: Sequence[CalibrationParameter], layers: dict[str, dict[str, Any] | None]) -> None:
    """Refuse a parameter whose features the base build lacks: a named target with no feature of its name in its
    layer, the rain scaled where no rain falls. `layers` holds the base build's layer of each kind (None: none)."""
    for parameter in parameters:
        kind = parameter.target.layer
        features = (layers.get(kind) or {}).get("features") or []
        if parameter.target.named and not any(feature_label(f) == parameter.name for f in features):
            names = sorted({label for f in features if (label := feature_label(f)) is not None})
            raise TargetMissing(
                f"The base build has no {kind} feature named {parameter.name!r}"
                + (f"; its {kind} features are named {', '.join(map(repr, names[:20]))}." if names else ".")
            )
        if parameter.target == ParameterTarget.RAIN and not features:
            raise TargetMissing("The base build has no rainfall layer, so there is no rain to scale.")


@dataclass
class MemberFiles:
    """What a member writes of its own: each changed layer by kind, and each scaled series by name."""

    layers: dict[str, dict[str, Any]] = field(default_factory=dict)
    series: dict[str, dict[str, Any]] = field(default_factory=dict)


def member_files(
    *,
    parameters: Sequence[CalibrationParameter],
    values: Sequence[float],
    layers: dict[str, dict[str, Any] | None],
    series: dict[str, dict[str, Any]],
    extent: tuple[float, float, float, float],
    crs: str,
) -> MemberFiles:
    """The member's layers and series for `values` (one per parameter, in order). `layers` and `series` are the
    base build's (kind -> FeatureCollection or None; series name -> its document); `extent` is the model's bounds."""
    check_targets(parameters=parameters, layers=layers)
    files = MemberFiles()

    def layer(kind: str) -> dict[str, Any]:
        if kind not in files.layers:
            base = copy.deepcopy(layers.get(kind)) or {"type": "FeatureCollection", "features": []}
            base.setdefault("crs", {"type": "name", "properties": {"name": crs}})
            files.layers[kind] = base
        return files.layers[kind]

    multiplier = None
    for parameter, value in zip(parameters, values, strict=True):
        if parameter.target == ParameterTarget.ALL_FRICTION:
            multiplier = float(value)
        elif parameter.target in TARGET_PROPERTY:
            for feature in _named(layer(parameter.target.layer), parameter.name):
                feature["properties"][TARGET_PROPERTY[parameter.target]] = float(value)
    for parameter, value in zip(parameters, values, strict=True):
        if parameter.target in SCALED:
            chosen = layer(parameter.target.layer)["features"]
            if parameter.name:
                chosen = _named(layer(parameter.target.layer), parameter.name)
            for feature in chosen:
                _scale(feature, float(value), series=series, scaled=files.series, label=parameter.label)
    if multiplier is not None:
        friction = layer("friction")
        for feature in friction["features"]:
            properties = feature.setdefault("properties", {})
            mannings = as_number(properties.get("mannings"))
            if mannings is not None:
                properties["mannings"] = mannings * multiplier
        west, south, east, north = extent
        ring = [[west - 1, south - 1], [east + 1, south - 1], [east + 1, north + 1], [west - 1, north + 1]]
        friction["features"].append(
            {
                "type": "Feature",
                "properties": {"name": "the default n, scaled", "mannings": DEFAULT_MANNINGS * multiplier},
                "geometry": {"type": "Polygon", "coordinates": [[*ring, ring[0]]]},
            }
        )
    return files


def _times(value: Any, factor: float) -> float | None:
    number = as_number(value)
    return None if number is None else number * factor


def _named(collection: dict[str, Any], name: str | None) -> list[dict[str, Any]]:
    chosen = [feature for feature in collection["features"] if feature_label(feature) == name]
    for feature in chosen:
        feature["properties"] = dict(feature.get("properties") or {})
    return chosen


def _scale(
    feature: dict[str, Any],
    factor: float,
    *,
    series: dict[str, dict[str, Any]],
    scaled: dict[str, dict[str, Any]],
    label: str,
) -> None:
    """The feature's `data` times `factor`: a number, or the series of that name copied with its values scaled
    (rain and flow in every unit the platform takes are linear in their values, cumulative depths too)."""
    properties = feature["properties"] = dict(feature.get("properties") or {})
    data = properties.get("data")
    number = as_number(data)
    if number is not None:
        properties["data"] = number * factor
        return
    name = str(data or "").strip()
    if name not in series:
        return  # the child refuses a feature whose data names no series, as it does the base build's
    own = f"{name} x {factor!r} ({label})"
    if own not in scaled:
        document = copy.deepcopy(series[name])
        document["name"] = own
        document["rows"] = [{**row, "value": _times(row.get("value"), factor)} for row in document.get("rows") or []]
        scaled[own] = document
    properties["data"] = own
