"""What each kind of input row needs of its features, checked when a dataset is attached."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hydrata.compute.inputs import site_rules
from hydrata.compute.inputs.numbers import excerpt, finite_number_or_none
from hydrata_contract.inputs import BoundaryType, InputKind

LINES = frozenset({"LineString", "MultiLineString"})
POLYGONS = frozenset({"Polygon", "MultiPolygon"})
POINTS = frozenset({"Point"})
BOUNDARY_TYPES = tuple(BoundaryType.values())

FeatureCheck = Callable[[str, dict[str, Any]], str | None]


def _normal_depth_slope(name: str, properties: dict[str, Any]) -> str | None:
    if properties["boundary"] == BoundaryType.NORMAL_DEPTH and not _positive_number(properties.get("slope")):
        return (
            f"{name} is a NormalDepth boundary with slope={excerpt(properties.get('slope'))}; it needs a positive "
            "'slope' (the friction slope, m/m, e.g. 0.002)."
        )
    return None


def _dirichlet_stage(name: str, properties: dict[str, Any]) -> str | None:
    stage_types = (BoundaryType.DIRICHLET, BoundaryType.DIRICHLET_ZERO_MOMENTUM)
    if properties["boundary"] not in stage_types or str(properties.get("location")) != "External":
        return None
    if all(properties.get(key) in (None, "") for key in ("stage", "data")):
        return (
            f"{name} is a {properties['boundary']} boundary without a 'stage'; give it one (m, or the name of a "
            "stage time series)."
        )
    return None


def _initial_level(name: str, properties: dict[str, Any]) -> str | None:
    given = [key for key in ("stage", "depth") if properties.get(key) not in (None, "")]
    if len(given) != 1:
        return f"{name} has {'both a stage and a depth' if given else 'neither a stage nor a depth'}; give one."
    value = finite_number_or_none(properties[given[0]])
    if value is None or (given[0] == "depth" and value < 0):
        return f"{name} has {given[0]}={excerpt(properties[given[0]])}; it must be a number (a depth of 0 m or more)."
    return None


def _soil_losses(name: str, properties: dict[str, Any]) -> str | None:
    for key in ("initial_loss_mm", "continuing_loss_mm_h", "impervious_fraction"):
        if key == "impervious_fraction" and properties.get(key) in (None, ""):
            continue
        value = finite_number_or_none(properties.get(key))
        if value is None or value < 0 or (key == "impervious_fraction" and value > 1):
            need = "a fraction from 0 to 1" if key == "impervious_fraction" else "a number of 0 or more"
            return f"{name} has {key}={excerpt(properties.get(key))}; it must be {need}."
    return None


@dataclass(frozen=True)
class KindRule:
    geometries: frozenset[str]
    shape_name: str
    required: tuple[str, ...]
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    positive_numbers: tuple[str, ...] = ()
    explanation: str = ""
    unique: tuple[str, ...] = ()  # properties no two features of the layer may share
    checks: tuple[FeatureCheck, ...] = ()


RULES: dict[str, KindRule] = {
    InputKind.BOUNDARY: KindRule(
        LINES,
        "lines",
        ("boundary", "location"),
        choices={"boundary": BOUNDARY_TYPES, "location": ("External", "Internal")},
        explanation="'boundary' (Reflective, Transmissive, Dirichlet or DirichletZeroMomentum with a 'stage': metres "
        "or the name of a stage time series, or NormalDepth with a 'slope' in m/m) and 'location' (External or "
        "Internal)",
        checks=(_normal_depth_slope, _dirichlet_stage),
    ),
    InputKind.FRICTION: KindRule(
        POLYGONS,
        "polygons",
        ("mannings",),
        positive_numbers=("mannings",),
        explanation="'mannings' (Manning's n, e.g. 0.03)",
    ),
    InputKind.INFLOW: KindRule(
        LINES,
        "lines",
        ("type", "data"),
        choices={"type": ("Surface",)},
        explanation="'type' (Surface) and 'data' (m³/s, or the name of a hydrograph time series)",
    ),
    InputKind.RAINFALL: KindRule(
        POLYGONS,
        "polygons",
        ("data",),
        explanation="'data' (mm/hr, or the name of a hyetograph time series in mm/hr, mm/interval or mm cumulative)",
    ),
    InputKind.STRUCTURE: KindRule(
        POLYGONS,
        "polygons",
        ("method",),
        choices={"method": site_rules.STRUCTURE_METHODS},
        explanation="'method' (Reflective: a walled hole; Raised: the ground raised by 'height' m, default 3; "
        "Mannings: Manning's n 'mannings')",
        checks=(site_rules.structure_problem,),
    ),
    InputKind.BREAKLINE: KindRule(LINES, "lines", (), explanation="nothing: the mesh follows the lines"),
    InputKind.CULVERT: KindRule(
        frozenset({"LineString"}),
        "single lines drawn from inlet to outlet",
        ("name", "shape"),
        choices={"shape": site_rules.CULVERT_SHAPES},
        unique=("name",),
        explanation="'name' (unique) and 'shape' (box with 'width' and 'height' m, or pipe with 'diameter' m)",
        checks=(site_rules.culvert_problem,),
    ),
    InputKind.WEIR: KindRule(
        LINES,
        "lines",
        (),
        explanation="'crest_elevation' (m) or 'height' (m above the ground along the line)",
        checks=(site_rules.weir_problem,),
    ),
    InputKind.MESH_REGION: KindRule(
        POLYGONS,
        "polygons",
        ("resolution",),
        positive_numbers=("resolution",),
        explanation="'resolution' (the mesh resolution inside the polygon)",
    ),
    InputKind.GAUGE: KindRule(
        POINTS,
        "points",
        ("name",),
        unique=("name",),
        explanation="'name' (how the gauge's time series is asked for; unique in the layer)",
    ),
    InputKind.FLOW_LINE: KindRule(
        LINES,
        "lines",
        ("name",),
        unique=("name",),
        explanation="'name' (how the line's discharge series is asked for; unique in the layer)",
    ),
    InputKind.INITIAL_CONDITION: KindRule(
        POLYGONS,
        "polygons",
        (),
        explanation="'stage' (m, absolute) or 'depth' (m above the ground)",
        checks=(_initial_level,),
    ),
    InputKind.SOIL: KindRule(
        POLYGONS,
        "polygons",
        ("initial_loss_mm", "continuing_loss_mm_h"),
        explanation="'initial_loss_mm' and 'continuing_loss_mm_h' (0 or more), and optionally 'impervious_fraction' "
        "(0 to 1)",
        checks=(_soil_losses,),
    ),
}


def feature_problem(kind: str, features: list[dict[str, Any]]) -> str | None:
    """The first reason these features cannot serve as `kind`, worded for a person; None when they fit."""
    rule = RULES[kind]
    label = kind.replace("_", " ")
    seen: dict[tuple[str, str], str] = {}
    for index, feature in enumerate(features):
        name = _feature_name(index, feature)
        geometry_type = (feature.get("geometry") or {}).get("type")
        if geometry_type not in rule.geometries:
            return (
                f"{name} is a {geometry_type or 'feature without geometry'}; {label} features must be "
                f"{rule.shape_name} ({', '.join(sorted(rule.geometries))})."
            )
        properties = feature.get("properties") or {}
        for key in rule.required:
            if properties.get(key) in (None, ""):
                return f"{name} has no '{key}' property; {label} features need {rule.explanation}."
        for key, allowed in rule.choices.items():
            if str(properties[key]) not in allowed:
                return f"{name} has {key}={excerpt(properties[key])}; it must be one of {', '.join(allowed)}."
        for key in rule.positive_numbers:
            if not _positive_number(properties[key]):
                return f"{name} has {key}={excerpt(properties[key])}; it must be a positive number."
        for check in rule.checks:
            problem = check(name, properties)
            if problem:
                return problem
        for key in rule.unique:
            value = str(properties[key]).strip()
            if (key, value) in seen:
                return (
                    f"{name} has {key}={excerpt(value)}, as {seen[(key, value)]} has; each {label} needs its own {key}."
                )
            seen[(key, value)] = name
    return None


def _feature_name(index: int, feature: dict[str, Any]) -> str:
    return f"Feature {index}" + (f" (id {excerpt(feature['id'])})" if feature.get("id") is not None else "")


def _positive_number(value: Any) -> bool:
    number = finite_number_or_none(value)
    return number is not None and number > 0
