"""Web Mercator tile arithmetic for the depth overlay: which tiles cover a WGS84 box at which zoom, and the
WGS84 box of a pixel window of the stitched tiles. Pure maths."""

import math
from dataclasses import dataclass

TILE_PX = 256
MAX_ZOOM = 22
MAX_LATITUDE = 85.0511287798


@dataclass(frozen=True)
class PixelBox:
    """A window in the global pixel grid of one zoom: left/top inclusive, right/bottom exclusive."""

    zoom: int
    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top

    def tiles(self) -> list[tuple[int, int]]:
        """(x, y) of every tile the window touches, row by row."""
        columns = range(self.left // TILE_PX, (self.right - 1) // TILE_PX + 1)
        rows = range(self.top // TILE_PX, (self.bottom - 1) // TILE_PX + 1)
        return [(x, y) for y in rows for x in columns]


def global_pixel(*, lon: float, lat: float, zoom: int) -> tuple[float, float]:
    lat = max(-MAX_LATITUDE, min(MAX_LATITUDE, lat))
    size = TILE_PX * 2**zoom
    sine = math.sin(math.radians(lat))
    x = (lon + 180.0) / 360.0 * size
    y = (0.5 - math.log((1 + sine) / (1 - sine)) / (4 * math.pi)) * size
    return x, y


def lon_lat(*, x: float, y: float, zoom: int) -> tuple[float, float]:
    size = TILE_PX * 2**zoom
    lon = x / size * 360.0 - 180.0
    lat = math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / size))))
    return lon, lat


def pixel_box(*, bbox: tuple[float, float, float, float], zoom: int) -> PixelBox:
    west, south, east, north = bbox
    left, top = global_pixel(lon=west, lat=north, zoom=zoom)
    right, bottom = global_pixel(lon=east, lat=south, zoom=zoom)
    first_column, first_row = math.floor(left), math.floor(top)
    return PixelBox(
        zoom=zoom,
        left=first_column,
        top=first_row,
        right=max(math.ceil(right), first_column + 1),
        bottom=max(math.ceil(bottom), first_row + 1),
    )


def fitting_zoom(*, bbox: tuple[float, float, float, float], max_px: int) -> int:
    """The deepest zoom at which the box spans at most `max_px` pixels either way."""
    for zoom in range(MAX_ZOOM, -1, -1):
        box = pixel_box(bbox=bbox, zoom=zoom)
        if box.width <= max_px and box.height <= max_px:
            return zoom
    return 0


def bbox_of(box: PixelBox) -> list[float]:
    """[west, south, east, north] of a pixel window."""
    west, north = lon_lat(x=box.left, y=box.top, zoom=box.zoom)
    east, south = lon_lat(x=box.right, y=box.bottom, zoom=box.zoom)
    return [west, south, east, north]
