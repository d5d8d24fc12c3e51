"""Coordinate reference systems that callers name: only authority codes are read, never definitions.

pyproj's `CRS.from_user_input` also accepts WKT, PROJ strings and `+init=` references to files on this
machine, so every CRS a caller sends is matched against an authority code first and looked up by that code.
"""

import re

from pyproj import CRS
from pyproj.exceptions import CRSError

from hydrata.core.errors import ValidationFailed
from hydrata_contract.errors import ErrorCode

EPSG_PATTERN = re.compile(r"EPSG:(\d{4,6})", re.IGNORECASE)
AUTHORITY_CODE_PATTERN = re.compile(r"(EPSG|ESRI|OGC|IGNF):([A-Za-z0-9_]{1,20})", re.IGNORECASE)


CRS_HINT = "Send an authority code such as 'EPSG:4326' (longitude/latitude) or the project's own CRS."


def crs_code_validate(value: str) -> str:
    """Return 'AUTHORITY:CODE' for a horizontal CRS (projected or geographic), or raise INVALID_CRS saying why.

    The one check of a CRS a caller names for points (samples, series, observations)."""
    match = AUTHORITY_CODE_PATTERN.fullmatch(value.strip())
    if match is None:
        raise ValidationFailed(f"crs {value[:40]!r} is not an authority code. {CRS_HINT}", code=ErrorCode.INVALID_CRS)
    code = f"{match.group(1).upper()}:{match.group(2)}"
    crs = _crs_of(code, error_code=ErrorCode.INVALID_CRS, hint=CRS_HINT)
    if not (crs.is_projected or crs.is_geographic):
        raise ValidationFailed(
            f"{code} ({crs.name}) is not a horizontal CRS; points need x and y. {CRS_HINT}", code=ErrorCode.INVALID_CRS
        )
    return code


def projection_normalise(value: str) -> str:
    """Return 'EPSG:<code>' for a projected CRS in metres, or raise INVALID_PROJECTION saying why."""
    match = EPSG_PATTERN.fullmatch(value.strip())
    if match is None:
        raise ValidationFailed(
            f"projection must be an EPSG code such as 'EPSG:28356', not {value[:40]!r}.",
            code=ErrorCode.INVALID_PROJECTION,
        )
    code = f"EPSG:{int(match.group(1))}"
    crs = _crs_of(code, error_code=ErrorCode.INVALID_PROJECTION, hint="Use a projected CRS in metres.")
    if not crs.is_projected:
        raise ValidationFailed(
            f"{code} ({crs.name}) is not a projected CRS. Use a projected CRS in metres, e.g. the UTM or MGA zone "
            "of the site.",
            code=ErrorCode.INVALID_PROJECTION,
        )
    units = {axis.unit_name for axis in crs.axis_info}
    if units != {"metre"}:
        raise ValidationFailed(
            f"{code} ({crs.name}) measures in {', '.join(sorted(units))}, not metres. Use a projected CRS in metres.",
            code=ErrorCode.INVALID_PROJECTION,
        )
    return code


def _crs_of(code: str, *, error_code: ErrorCode, hint: str) -> CRS:
    try:
        return CRS.from_user_input(code)
    except CRSError:
        raise ValidationFailed(f"{code} is not a known coordinate reference system. {hint}", code=error_code) from None
