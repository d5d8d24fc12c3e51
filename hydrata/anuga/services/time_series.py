import itertools
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from hydrata.anuga.models import Project, TimeSeries
from hydrata.compute.errors import SeriesUnitsError
from hydrata.compute.inputs.numbers import NumberRefused, excerpt, finite_number
from hydrata.compute.scenario import series_units
from hydrata.core.errors import Conflict, ValidationFailed
from hydrata_contract.errors import ErrorCode
from hydrata_contract.inputs import SeriesType


def time_series_create(
    *,
    project: Project,
    user: User,
    name: str,
    series_type: str,
    units: str,
    data: Any,
    timezone: str = "UTC",
    source: str = "",
    location_name: str = "",
    description: str = "",
) -> TimeSeries:
    name = name.strip()
    if not name:
        raise ValidationFailed("name must not be empty.", code=ErrorCode.INVALID_TIME_SERIES)
    if series_type not in SeriesType.values():
        raise ValidationFailed(
            f"series_type must be one of {', '.join(SeriesType.values())}.", code=ErrorCode.INVALID_TIME_SERIES
        )
    zone = _zone(timezone)
    units = time_series_units(series_type=series_type, units=units)
    rows, order = _rows_in_order(data, zone=zone)
    time_series_values_check(rows=rows, units=units, order=order)
    try:
        with transaction.atomic():
            return TimeSeries.objects.create(
                project=project,
                name=name,
                series_type=series_type,
                units=units,
                timezone=timezone,
                source=source,
                location_name=location_name,
                description=description,
                rows=rows,
                row_count=len(rows),
                first_timestamp=rows[0]["timestamp"],
                last_timestamp=rows[-1]["timestamp"],
                created_by=user,
            )
    except IntegrityError:
        raise Conflict(
            f"This project already has a time series named {name!r}; choose another name.",
            code=ErrorCode.TIME_SERIES_EXISTS,
        ) from None


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationFailed(
            f"timezone {name!r} is not an IANA time zone such as 'UTC' or 'Australia/Sydney'.",
            code=ErrorCode.INVALID_TIME_SERIES,
        ) from None


def time_series_units(*, series_type: str, units: str) -> str:
    """The canonical name of the units (compute/scenario/series_units.py), or 400 UNKNOWN_UNITS listing the accepted
    ones."""
    try:
        return series_units.units_for_series_type(series_type, units)
    except SeriesUnitsError as refused:
        raise ValidationFailed(refused.message, code=refused.code, **refused.extra) from None


def time_series_values_check(*, rows: list[dict[str, Any]], units: str, order: list[int]) -> None:
    """400 for values the units cannot hold (negative rain, cumulative rain that decreases, ...), naming the row as
    the caller sent it (`order[k]` is the rowData index of the k-th row in time order)."""
    try:
        series_units.series_check([row["value"] for row in rows], units)
    except SeriesUnitsError as refused:
        position = refused.extra.pop("row", None)
        if position is None:
            raise ValidationFailed(refused.message, code=refused.code, **refused.extra) from None
        index = order[position]
        raise ValidationFailed(
            f"rowData[{index}] ({rows[position]['timestamp']}): {refused.message}",
            code=refused.code,
            row=index,
            **refused.extra,
        ) from None


def time_series_rows_parse(data: Any, *, zone: ZoneInfo) -> list[dict[str, Any]]:
    """{"rowData": [{"timestamp", "value"}]} -> rows in UTC, sorted; a 400 naming the first bad row."""
    return _rows_in_order(data, zone=zone)[0]


def _rows_in_order(data: Any, *, zone: ZoneInfo) -> tuple[list[dict[str, Any]], list[int]]:
    """The rows in UTC sorted by time, and the rowData index each came from."""
    rows = data.get("rowData") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ValidationFailed(
            'data must be {"rowData": [{"timestamp": ..., "value": ...}, ...]} with at least one row.',
            code=ErrorCode.INVALID_TIME_SERIES,
        )
    max_rows = settings.HYDRATA_TIME_SERIES_MAX_ROWS
    if len(rows) > max_rows:
        raise ValidationFailed(
            f"A time series holds at most {max_rows} rows; this one has {len(rows)}.",
            code=ErrorCode.INVALID_TIME_SERIES,
        )
    parsed = [(*_row(index, row, zone), index) for index, row in enumerate(rows)]
    parsed.sort(key=lambda row: row[0])
    for (earlier, _, _), (later, _, _) in itertools.pairwise(parsed):
        if earlier == later:
            raise ValidationFailed(
                f"Two rows share the timestamp {earlier.isoformat()}; each time may appear once.",
                code=ErrorCode.INVALID_TIME_SERIES,
            )
    in_order = [{"timestamp": when.isoformat().replace("+00:00", "Z"), "value": value} for when, value, _ in parsed]
    return in_order, [index for _, _, index in parsed]


def _row(index: int, row: Any, zone: ZoneInfo) -> tuple[datetime, float]:
    where = f"rowData[{index}]"
    if not isinstance(row, dict):
        raise ValidationFailed(
            f'{where} must be an object {{"timestamp": ..., "value": ...}}.',
            code=ErrorCode.INVALID_TIME_SERIES,
            row=index,
        )
    stamp = row.get("timestamp")
    try:
        when = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        raise ValidationFailed(
            f"{where}.timestamp {excerpt(stamp)} is not an ISO 8601 date-time such as '2024-01-01T00:00:00Z'.",
            code=ErrorCode.INVALID_TIME_SERIES,
            row=index,
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=zone)
    try:
        when = when.astimezone(UTC)
    except OverflowError:  # e.g. year 1 east of Greenwich: the instant falls outside what a datetime holds
        raise ValidationFailed(
            f"{where}.timestamp {excerpt(stamp)} is outside the range of dates that can be stored.",
            code=ErrorCode.INVALID_TIME_SERIES,
            row=index,
        ) from None
    try:
        return when, finite_number(row.get("value"))
    except NumberRefused as refused:
        raise ValidationFailed(
            f"{where}.value: {refused.reason}; each row needs a finite number.",
            code=ErrorCode.INVALID_TIME_SERIES,
            row=index,
        ) from None
