"""The web-map tile helpers every app's tile views share: the z/x/y address read (a 400 saying why, never a 500)
and the PNG answer with its cache header."""

import re

from django.http import HttpResponse

from hydrata.compute.rasters.tiles import tile_address_problem
from hydrata.core.errors import ValidationFailed
from hydrata_contract.errors import ErrorCode

# Private: the tiles are scoped to the caller. The rasters behind a URL never change.
CACHE_CONTROL = "private, max-age=86400"


# A whole number as the path spells it: digits, a sign, and a zero fraction ("3.0") allowed, as they always were.
ZERO_FRACTION = re.compile(r"\.0*\s*$")
LONGEST_NUMBER = 1000


def whole_number(text: str) -> int:
    """`text` as a whole number; ValueError when it is none."""
    if len(text) > LONGEST_NUMBER:
        raise ValueError(text[:20])
    return int(ZERO_FRACTION.sub("", text))


def tile_address(z: str, x: str, y: str) -> tuple[int, int, int]:
    """z/x/y as integers of the Web Mercator pyramid; anything else is a 400 saying why."""
    try:
        zoom, column, row = whole_number(z), whole_number(x), whole_number(y)
    except ValueError:
        raise ValidationFailed(
            "A tile address is three whole numbers: /<z>/<x>/<y>.png.", code=ErrorCode.INVALID_TILE
        ) from None
    problem = tile_address_problem(z=zoom, x=column, y=row)
    if problem:
        raise ValidationFailed(problem, code=ErrorCode.INVALID_TILE)
    return zoom, column, row


def png(content: bytes) -> HttpResponse:
    response = HttpResponse(content, content_type="image/png")
    response["Cache-Control"] = CACHE_CONTROL
    return response
