"""Scenarios: create, update and clone. Any change invalidates the latest run."""

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from hydrata.anuga.models import InputLayer, Project, Scenario, Terrain
from hydrata.core.errors import ValidationFailed
from hydrata_contract.errors import ErrorCode
from hydrata_contract.inputs import InputKind
from hydrata_contract.requests.scenarios import (
    MAX_DURATION_S,
    MAX_INUNDATION_THRESHOLD_M,
    MAX_RESOLUTION_M,
    MIN_RESOLUTION_M,
)
from hydrata_contract.states import TerrainStatus

INPUT_KINDS = {
    "boundary": InputKind.BOUNDARY,
    "friction": InputKind.FRICTION,
    "inflow": InputKind.INFLOW,
    "rainfall": InputKind.RAINFALL,
    "structure": InputKind.STRUCTURE,
    "breakline": InputKind.BREAKLINE,
    "culvert": InputKind.CULVERT,
    "weir": InputKind.WEIR,
    "mesh_region": InputKind.MESH_REGION,
    "gauge": InputKind.GAUGE,
    "flow_line": InputKind.FLOW_LINE,
    "initial_condition": InputKind.INITIAL_CONDITION,
    "soil": InputKind.SOIL,
}
EDITABLE = (
    "name",
    "description",
    "terrain",
    "resolution",
    "duration",
    "model_start",
    "inundation_threshold_m",
    *INPUT_KINDS,
)


def scenario_create(
    *,
    project: Project,
    user: User,
    name: str,
    resolution: float,
    duration: int,
    description: str = "",
    model_start: datetime | None = None,
    inundation_threshold_m: float | None = None,
    **references: int | None,
) -> Scenario:
    """References left out default to the project's newest ready terrain and its default row of each kind that
    has features; an explicit null leaves that input out."""
    threshold = _DEFAULT_THRESHOLD if inundation_threshold_m is None else inundation_threshold_m
    _check_numbers(resolution=resolution, duration=duration, inundation_threshold_m=threshold)
    resolved = _defaults(project) | _resolve(project, references)
    return Scenario.objects.create(
        project=project,
        name=_name(name),
        description=description,
        resolution=resolution,
        duration=duration,
        model_start=model_start,
        inundation_threshold_m=threshold,
        created_by=user,
        **resolved,
    )


@transaction.atomic
def scenario_update(*, scenario: Scenario, changes: dict[str, Any]) -> Scenario:
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise ValidationFailed(
            f"These fields cannot be changed: {', '.join(sorted(unknown))}.", code=ErrorCode.VALIDATION_ERROR
        )
    _check_numbers(
        resolution=changes.get("resolution", scenario.resolution),
        duration=changes.get("duration", scenario.duration),
        inundation_threshold_m=changes.get("inundation_threshold_m", scenario.inundation_threshold_m),
    )
    references = {key: changes.pop(key) for key in list(changes) if key == "terrain" or key in INPUT_KINDS}
    for field, value in (changes | _resolve(scenario.project, references)).items():
        setattr(scenario, field, _name(value) if field == "name" else value)
    scenario.latest_run_is_valid = False
    scenario.save()
    return scenario


def scenario_clone(*, scenario: Scenario, user: User, name: str, overrides: dict[str, Any] | None = None) -> Scenario:
    """The same model under a new name, with some inputs or numbers changed (e.g. another friction layer)."""
    fields = {
        "description": scenario.description,
        "resolution": scenario.resolution,
        "duration": scenario.duration,
        "model_start": scenario.model_start,
        "terrain": scenario.terrain_id,
        "inundation_threshold_m": scenario.inundation_threshold_m,
        **{kind: getattr(scenario, f"{kind}_id") for kind in INPUT_KINDS},
    }
    unknown = set(overrides or {}) - set(EDITABLE)
    if unknown:
        raise ValidationFailed(
            f"These fields cannot be overridden: {', '.join(sorted(unknown))}.", code=ErrorCode.VALIDATION_ERROR
        )
    fields |= overrides or {}
    fields.pop("name", None)
    references = {key: fields.pop(key) for key in list(fields) if key == "terrain" or key in INPUT_KINDS}
    _check_numbers(
        resolution=fields["resolution"],
        duration=fields["duration"],
        inundation_threshold_m=fields["inundation_threshold_m"],
    )
    return Scenario.objects.create(
        project=scenario.project, name=_name(name), created_by=user, **fields, **_resolve(scenario.project, references)
    )


_DEFAULT_THRESHOLD = Scenario._meta.get_field("inundation_threshold_m").default


def _name(value: str) -> str:
    name = (value or "").strip()
    if not name or len(name) > 200:
        raise ValidationFailed("A scenario needs a name of 1 to 200 characters.", code=ErrorCode.INVALID_NAME)
    return name


def _check_numbers(*, resolution: float, duration: int, inundation_threshold_m: float) -> None:
    if not MIN_RESOLUTION_M <= float(resolution) <= MAX_RESOLUTION_M:
        raise ValidationFailed(
            f"resolution must be between {MIN_RESOLUTION_M} and {MAX_RESOLUTION_M:g} metres.",
            code=ErrorCode.INVALID_RESOLUTION,
        )
    if not 0 < int(duration) <= MAX_DURATION_S:
        raise ValidationFailed(
            f"duration must be between 1 and {MAX_DURATION_S} seconds.", code=ErrorCode.INVALID_DURATION
        )
    if inundation_threshold_m is None or not 0 < float(inundation_threshold_m) <= MAX_INUNDATION_THRESHOLD_M:
        raise ValidationFailed(
            f"inundation_threshold_m must be a depth above 0 and at most {MAX_INUNDATION_THRESHOLD_M:g} m.",
            code=ErrorCode.INVALID_INUNDATION_THRESHOLD,
        )


def _defaults(project: Project) -> dict[str, Any]:
    terrain = Terrain.objects.filter(project=project, status=TerrainStatus.READY).order_by("-created_at").first()
    rows = InputLayer.objects.filter(project=project, is_default=True, feature_count__gt=0)
    by_kind = {row.kind: row for row in rows}
    return {"terrain": terrain, **{field: by_kind.get(kind) for field, kind in INPUT_KINDS.items()}}


def _resolve(project: Project, references: dict[str, int | None]) -> dict[str, Any]:
    """Ids to objects of this project; anything else is a 400 naming the field."""
    resolved: dict[str, Any] = {}
    for field, object_id in references.items():
        if object_id is None:
            resolved[field] = None
        elif field == "terrain":
            resolved[field] = _in_project(Terrain.objects.filter(project=project, pk=object_id), field, object_id)
        else:
            rows = InputLayer.objects.filter(project=project, kind=INPUT_KINDS[field], pk=object_id)
            resolved[field] = _in_project(rows, field, object_id)
    return resolved


def _in_project(queryset, field: str, object_id: int):
    found = queryset.first()
    if found is None:
        raise ValidationFailed(
            f"{field} {object_id} is not a {field.replace('_', ' ')} of this project.",
            code=ErrorCode.REFERENCE_NOT_IN_PROJECT,
            field=field,
        )
    return found
