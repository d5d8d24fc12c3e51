"""The web-map tile helpers every app's tile views share: the z/x/y address read (a 400 saying why, never a 500)
and the PNG answer with its cache header."""

from django.http import HttpResponse
from rest_framework import serializers

from hydrata.compute.tiles import tile_address_problem
from hydrata.core.errors import ValidationFailed
from hydrata_contract.errors import ErrorCode

# Private: the tiles are scoped to the caller. The rasters behind a URL never change.
CACHE_CONTROL = "private, max-age=86400"


class TileAddress(serializers.Serializer):
    z = serializers.IntegerField()
    x = serializers.IntegerField()
    y = serializers.IntegerField()


def tile_address(z: str, x: str, y: str) -> tuple[int, int, int]:
    """z/x/y as integers of the Web Mercator pyramid; anything else is a 400 saying why."""
    address = TileAddress(data={"z": z, "x": x, "y": y})
    if not address.is_valid():
        raise ValidationFailed("A tile address is three whole numbers: /<z>/<x>/<y>.png.", code=ErrorCode.INVALID_TILE)
    zoom, column, row = (address.validated_data[key] for key in ("z", "x", "y"))
    problem = tile_address_problem(z=zoom, x=column, y=row)
    if problem:
        raise ValidationFailed(problem, code=ErrorCode.INVALID_TILE)
    return zoom, column, row


def png(content: bytes) -> HttpResponse:
    response = HttpResponse(content, content_type="image/png")
    response["Cache-Control"] = CACHE_CONTROL
    return response
