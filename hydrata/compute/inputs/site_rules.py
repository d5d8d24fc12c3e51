"""What the site's features (structures, culverts, weirs) must say, checked when a dataset is attached and again
when the package is read: each problem names the feature and the field, worded for a person.

The defaults are read here too, by the platform and the simulation alike, so that both see one culvert."""

from dataclasses import dataclass
from typing import Any

from hydrata.compute.inputs.numbers import excerpt, finite_number_or_none
from hydrata_contract.inputs import CulvertShape, StructureMethod

STRUCTURE_METHODS = tuple(StructureMethod.values())
CULVERT_SHAPES = tuple(CulvertShape.values())
DEFAULT_RAISED_HEIGHT_M = 3.0
DEFAULT_BARRELS = 1.0
DEFAULT_CULVERT_MANNING = 0.013
DEFAULT_BLOCKAGE = 0.0


def _number(value: Any) -> float | None:
    return finite_number_or_none(value)


def _given(properties: dict[str, Any], key: str) -> bool:
    return properties.get(key) not in (None, "")


def _positive_problem(name: str, properties: dict[str, Any], key: str, *, required: bool, what: str) -> str | None:
    if not _given(properties, key):
        return f"{name} has no '{key}'; it needs {what}." if required else None
    number = _number(properties[key])
    if number is None or number <= 0:
        return f"{name} has {key}={excerpt(properties[key])}; it must be a positive number ({what})."
    return None


def structure_problem(name: str, properties: dict[str, Any]) -> str | None:
    method = str(properties["method"])
    if method == StructureMethod.RAISED:
        return _positive_problem(name, properties, "height", required=False, what="metres the ground is raised by")
    if method == StructureMethod.MANNINGS:
        return _positive_problem(name, properties, "mannings", required=True, what="Manning's n, e.g. 0.5")
    return None


def culvert_problem(name: str, properties: dict[str, Any]) -> str | None:
    dimensions = ("width", "height") if properties["shape"] == CulvertShape.BOX else ("diameter",)
    for key in dimensions:
        problem = _positive_problem(name, properties, key, required=True, what="the barrel's size in metres")
        if problem:
            return problem
    for key, what in (("barrels", "how many barrels"), ("manning", "the barrel's Manning's n")):
        problem = _positive_problem(name, properties, key, required=False, what=what)
        if problem:
            return problem
    if _given(properties, "blockage"):
        blockage = _number(properties["blockage"])
        if blockage is None or not 0 <= blockage <= 1:
            return f"{name} has blockage={excerpt(properties['blockage'])}; it must be from 0 (open) to 1 (blocked)."
    if _given(properties, "invert_elevations"):
        inverts = properties["invert_elevations"]
        if (
            not isinstance(inverts, list)
            or len(inverts) != 2
            or any(isinstance(value, bool) or _number(value) is None for value in inverts)
        ):
            return (
                f"{name} has invert_elevations={excerpt(inverts)}; it must be two numbers, [inlet, outlet] in m, or "
                "left out (the ground at each end)."
            )
    return None


def weir_problem(name: str, properties: dict[str, Any]) -> str | None:
    crest, height = _given(properties, "crest_elevation"), _given(properties, "height")
    if crest == height:
        return (
            f"{name} has {'both' if crest else 'neither'} 'crest_elevation' and 'height'; a weir needs one: "
            "'crest_elevation' (m) or 'height' (m above the ground along the line)."
        )
    if crest:
        value = _number(properties["crest_elevation"])
        if value is None:
            return f"{name} has crest_elevation={excerpt(properties['crest_elevation'])}; it must be a number (m)."
        return None
    return _positive_problem(name, properties, "height", required=True, what="metres above the ground")


# --- the values a run reads ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Culvert:
    name: str
    shape: str
    inlet: tuple[float, float]
    outlet: tuple[float, float]
    width: float  # box: width; pipe: diameter
    height: float  # box: height; pipe: diameter
    barrels: float
    manning: float
    blockage: float
    invert_elevations: tuple[float, float] | None


def culvert_of(feature: dict[str, Any]) -> Culvert:
    """A checked culvert feature's values, defaults filled in."""
    properties = feature.get("properties") or {}
    coordinates = feature["geometry"]["coordinates"]
    shape = str(properties["shape"])
    if shape == CulvertShape.BOX:
        width, height = float(properties["width"]), float(properties["height"])
    else:
        width = height = float(properties["diameter"])
    inverts = properties.get("invert_elevations")

    def value(key: str, default: float) -> float:
        return float(properties[key]) if _given(properties, key) else default

    return Culvert(
        name=str(properties["name"]).strip(),
        shape=shape,
        inlet=(float(coordinates[0][0]), float(coordinates[0][1])),
        outlet=(float(coordinates[-1][0]), float(coordinates[-1][1])),
        width=width,
        height=height,
        barrels=value("barrels", DEFAULT_BARRELS),
        manning=value("manning", DEFAULT_CULVERT_MANNING),
        blockage=value("blockage", DEFAULT_BLOCKAGE),
        invert_elevations=(float(inverts[0]), float(inverts[1])) if isinstance(inverts, list) else None,
    )
