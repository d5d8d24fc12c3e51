"""Flood events and single observations: create, change, delete. Every check runs before anything is written."""

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User

from hydrata.anuga.models import Project
from hydrata.core.errors import ValidationFailed
from hydrata.core.projections import crs_code_validate
from hydrata.observations.checks import (
    place_problem,
    refuse,
    terrain_extent,
    to_project_crs,
    value_problem,
)
from hydrata.observations.models import FloodEvent, Observation
from hydrata_contract.errors import ErrorCode

DEFAULT_TOLERANCE_M = 0.3
POSITION = ("x", "y", "crs")
EDITABLE = ("event", *POSITION, "quantity", "value_m", "tolerance_m", "observed_at", "source", "notes")


def flood_event_create(
    *,
    project: Project,
    user: User,
    name: str,
    started_at: datetime,
    ended_at: datetime | None = None,
    description: str = "",
) -> FloodEvent:
    _check_period(started_at=started_at, ended_at=ended_at)
    return FloodEvent.objects.create(
        project=project,
        name=name.strip(),
        started_at=started_at,
        ended_at=ended_at,
        description=description,
        created_by=user,
    )


def _check_period(*, started_at: datetime, ended_at: datetime | None) -> None:
    if ended_at is not None and ended_at < started_at:
        raise ValidationFailed(
            f"The event ends ({ended_at.isoformat()}) before it starts "
            f"({started_at.isoformat()}); swap them or leave ended_at out.",
            code=ErrorCode.EVENT_ENDS_BEFORE_START,
        )


def _placed(*, project: Project, x: float, y: float, crs: str | None) -> dict[str, Any]:
    """The position fields of an observation given at (x, y) in `crs` (default the project's)."""
    given_crs = crs_code_validate(crs) if crs else project.projection
    [(px, py)] = to_project_crs(project=project, crs=given_crs, points=[(x, y)])
    refuse(place_problem(px, py, crs=given_crs, extent=terrain_extent(project=project)))
    return {"x": px, "y": py, "given_x": x, "given_y": y, "given_crs": given_crs}


def observation_create(
    *,
    event: FloodEvent,
    user: User,
    x: float,
    y: float,
    quantity: str,
    value_m: float,
    crs: str | None = None,
    tolerance_m: float = DEFAULT_TOLERANCE_M,
    observed_at: datetime | None = None,
    source: str = "",
    notes: str = "",
) -> Observation:
    refuse(value_problem(quantity=quantity, value=value_m, tolerance=tolerance_m))
    position = _placed(project=event.project, x=x, y=y, crs=crs)
    return Observation.objects.create(
        event=event,
        quantity=quantity,
        value_m=value_m,
        tolerance_m=tolerance_m,
        observed_at=observed_at,
        source=source,
        notes=notes,
        created_by=user,
        **position,
    )


def observation_update(*, observation: Observation, changes: dict[str, Any]) -> Observation:
    """Change any of the create fields. A move gives x and y together (in crs, default the project's); an event
    given here is already resolved within the observation's project."""
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise ValidationFailed(
            f"These fields cannot be changed: {', '.join(sorted(unknown))}.", code=ErrorCode.VALIDATION_ERROR
        )
    fields = {name: value for name, value in changes.items() if name not in POSITION}
    refuse(
        value_problem(
            quantity=fields.get("quantity", observation.quantity),
            value=fields.get("value_m", observation.value_m),
            tolerance=fields.get("tolerance_m", observation.tolerance_m),
        )
    )
    if any(name in changes for name in POSITION):
        if "x" not in changes or "y" not in changes:
            raise ValidationFailed(
                "To move an observation give both x and y (and crs when they are not in the project's CRS).",
                code=ErrorCode.POSITION_INCOMPLETE,
            )
        fields |= _placed(project=observation.event.project, x=changes["x"], y=changes["y"], crs=changes.get("crs"))
    for name, value in fields.items():
        setattr(observation, name, value)
    observation.save()
    return observation


def observation_delete(*, observation: Observation) -> None:
    observation.delete()
