"""Observations from an uploaded GeoJSON of points: all of them, or none with every bad row named."""

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from hydrata.compute.inputs.numbers import NOT_A_NUMBER, NUMBER_TOO_LONG, NumberRefused, finite_number
from hydrata.core.errors import Conflict, ValidationFailed
from hydrata.observations.checks import Problem, place_problem, terrain_extent, to_project_crs, value_problem
from hydrata.observations.models import FloodEvent, Observation
from hydrata.observations.services.observations import DEFAULT_TOLERANCE_M
from hydrata.uploads.models import Dataset
from hydrata.uploads.selectors import dataset_features, execution_get
from hydrata_contract.errors import ErrorCode
from hydrata_contract.states import UploadStatus

LISTED_IN_DETAIL = 5


@dataclass(frozen=True)
class Row:
    index: int
    x: float
    y: float
    value: float
    tolerance: float


def observations_import(
    *,
    event: FloodEvent,
    user: User,
    execution_id: UUID | str,
    quantity: str,
    value_property: str,
    tolerance_property: str | None = None,
) -> list[Observation]:
    dataset = _finished_dataset(user=user, execution_id=execution_id)
    _check_properties(dataset, value_property, tolerance_property)
    features = dataset_features(dataset=dataset).get("features") or []
    rows, problems = _read(features, value_property=value_property, tolerance_property=tolerance_property)
    placed = to_project_crs(project=event.project, crs=dataset.crs, points=[(row.x, row.y) for row in rows])
    extent = terrain_extent(project=event.project)
    for row, (x, y) in zip(rows, placed, strict=True):
        problem = value_problem(quantity=quantity, value=row.value, tolerance=row.tolerance) or place_problem(
            x, y, crs=dataset.crs, extent=extent
        )
        if problem:
            problems.append((row.index, problem))
    if problems:
        raise _refusal(problems, total=len(features))
    observations = [
        Observation(
            event=event,
            x=x,
            y=y,
            given_x=row.x,
            given_y=row.y,
            given_crs=dataset.crs,
            quantity=quantity,
            value_m=row.value,
            tolerance_m=row.tolerance,
            source=f"import of {dataset.title}"[:300],
            created_by=user,
        )
        for row, (x, y) in zip(rows, placed, strict=True)
    ]
    with transaction.atomic():
        return Observation.objects.bulk_create(observations, batch_size=1000)


def _finished_dataset(*, user: User, execution_id: UUID | str) -> Dataset:
    execution = execution_get(user=user, execution_id=execution_id)
    if execution.status == UploadStatus.FAILED:
        raise ValidationFailed(
            f"The upload was rejected, so there is nothing to import: {execution.log[-400:]}",
            code=ErrorCode.UPLOAD_FAILED,
        )
    if execution.status != UploadStatus.FINISHED or execution.dataset is None:
        raise Conflict(
            f"The upload is still {execution.status}; import it once it has finished.",
            code=ErrorCode.UPLOAD_NOT_FINISHED,
            status=execution.status,
        )
    limit = settings.HYDRATA_GEOJSON_MAX_FEATURES
    if execution.dataset.feature_count > limit:
        raise ValidationFailed(
            f"The file has {execution.dataset.feature_count:,} points; at most {limit:,} can be "
            "imported at once. Split it.",
            code=ErrorCode.TOO_MANY_FEATURES,
            max_features=limit,
        )
    return execution.dataset


def _check_properties(dataset: Dataset, value_property: str, tolerance_property: str | None) -> None:
    for role, name in (("value_property", value_property), ("tolerance_property", tolerance_property)):
        if name is not None and name not in dataset.property_names:
            available = ", ".join(dataset.property_names[:20]) or "none"
            raise ValidationFailed(
                f"No feature has a property {name!r} (the {role}). The file's properties are: {available}.",
                code=ErrorCode.PROPERTY_NOT_FOUND,
                field=role,
                properties=dataset.property_names,
            )


def _read(
    features: list[dict[str, Any]], *, value_property: str, tolerance_property: str | None
) -> tuple[list[Row], list[tuple[int, Problem]]]:
    rows: list[Row] = []
    problems: list[tuple[int, Problem]] = []
    for index, feature in enumerate(features):
        geometry = feature.get("geometry") or {}
        if geometry.get("type") != "Point":
            problems.append(
                (
                    index,
                    (
                        ErrorCode.NOT_A_POINT,
                        f"it is a {geometry.get('type') or 'feature without geometry'}, not a Point",
                    ),
                )
            )
            continue
        properties = feature.get("properties") or {}
        value = _number(properties.get(value_property), value_property)
        tolerance = (
            _number(properties.get(tolerance_property), tolerance_property)
            if tolerance_property
            else DEFAULT_TOLERANCE_M
        )
        for read in (value, tolerance):
            if isinstance(read, tuple):
                problems.append((index, read))
        if not isinstance(value, tuple) and not isinstance(tolerance, tuple):
            x, y = geometry["coordinates"][:2]
            rows.append(Row(index=index, x=float(x), y=float(y), value=value, tolerance=tolerance))
    return rows, problems


def _number(raw: Any, name: str) -> float | Problem:
    """A JSON number or a numeric string; anything else is the problem with it."""
    if raw is None or raw == "":
        return (ErrorCode.VALUE_MISSING, f"it has no {name!r}")
    try:
        return finite_number(raw)
    except NumberRefused as refused:
        code = (
            ErrorCode.VALUE_NOT_NUMERIC
            if refused.code in (NOT_A_NUMBER, NUMBER_TOO_LONG)
            else ErrorCode.VALUE_NOT_FINITE
        )
        return (code, f"its {name!r}: {refused.reason}")


def _refusal(problems: list[tuple[int, Problem]], *, total: int) -> ValidationFailed:
    problems.sort(key=lambda item: item[0])
    listed = "; ".join(f"feature {index}: {message}" for index, (_, message) in problems[:LISTED_IN_DETAIL])
    more = len(problems) - LISTED_IN_DETAIL
    bad = len({index for index, _ in problems})
    return ValidationFailed(
        f"{bad} of {total} feature(s) cannot be imported (numbered from 0), so nothing was stored: {listed}"
        + (f"; and {more} more." if more > 0 else ".")
        + " Fix them and upload the file again.",
        code=ErrorCode.IMPORT_ROWS_INVALID,
        rows=[{"index": index, "code": code, "reason": message} for index, (code, message) in problems],
    )
