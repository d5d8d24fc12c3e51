"""Checks that a projection is a projected CRS in metres, so mesh resolutions and areas mean what they say."""

import re

from pyproj import CRS
from pyproj.exceptions import CRSError

from hydrata.core.errors import ValidationFailed

EPSG_PATTERN = re.compile(r"EPSG:(\d{4,6})", re.IGNORECASE)


def projection_normalise(value: str) -> str:
    """Return 'EPSG:<code>' for a projected CRS in metres, or raise INVALID_PROJECTION saying why."""
    match = EPSG_PATTERN.fullmatch(value.strip())
    if match is None:
        raise ValidationFailed(
            f"projection must be an EPSG code such as 'EPSG:28356', not {value[:40]!r}.", code="INVALID_PROJECTION"
        )
    code = f"EPSG:{int(match.group(1))}"
    try:
        crs = CRS.from_user_input(code)
    except CRSError:
        raise ValidationFailed(f"{code} is not a known coordinate reference system.", code="INVALID_PROJECTION")
    if not crs.is_projected:
        raise ValidationFailed(
            f"{code} ({crs.name}) is not a projected CRS. Use a projected CRS in metres, e.g. the UTM or MGA zone "
            "of the site.",
            code="INVALID_PROJECTION",
        )
    units = {axis.unit_name for axis in crs.axis_info}
    if units != {"metre"}:
        raise ValidationFailed(
            f"{code} ({crs.name}) measures in {', '.join(sorted(units))}, not metres. Use a projected CRS in metres.",
            code="INVALID_PROJECTION",
        )
    return code
