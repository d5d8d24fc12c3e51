"""Web-map tiles (XYZ on Web Mercator, 256-pixel PNG) read from a raster file with rio-tiler: colour ramps with
their legend, a hillshade, and transparent tiles wherever the raster has no value. No Django."""

import functools
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import rasterio
from PIL import Image
from rasterio.enums import Resampling
from rio_tiler.colormap import cmap
from rio_tiler.errors import TileOutsideBounds
from rio_tiler.io import Reader
from rio_tiler.models import ImageData

from hydrata.compute.rasters.terrain_raster import hillshade

TILE_SIZE = 256
MAX_ZOOM = 24
LEGEND_STOPS = 6
RANGE_MAX_PIXELS = 1024


@dataclass(frozen=True)
class Ramp:
    """A colour ramp over [low, high]: the named rio-tiler colormap from `start` (0..1) of its way to its end, so
    that the palest or most misleading end (the blue of a terrain map, the near-white of shallow water) is skipped."""

    colormap: str
    low: float
    high: float
    start: float = 0.0
    stops: int = LEGEND_STOPS  # odd for a diverging ramp, so that its middle stop (0) is labelled

    def table(self) -> dict[int, tuple[int, int, int, int]]:
        return _table(self.colormap, self.start)

    def legend(self) -> list[dict]:
        """Evenly spaced values with the colour each is drawn in, for the map's legend."""
        table = self.table()
        stops = []
        for step in range(self.stops):
            fraction = step / (self.stops - 1)
            red, green, blue, _ = table[round(fraction * 255)]
            stops.append(
                {
                    "value": round(self.low + fraction * (self.high - self.low), 3),
                    "colour": f"#{red:02x}{green:02x}{blue:02x}",
                }
            )
        return stops


@dataclass(frozen=True)
class Classes:
    """One colour per class of a class raster (its value: 1, 2, ... or a duration in minutes), as `{value:
    "#rrggbb"}`, with an optional label each; any other value is transparent. Never rescaled: class 3 is the same
    colour on every run's tiles. With `round_up`, a value between two classes (a study's median of an even number of
    hazard classes, 2.5) is drawn in the class above it, the cautious reading."""

    colours: tuple[tuple[float, str], ...]
    labels: tuple[str, ...] = ()
    round_up: bool = False

    def table(self) -> dict[int, tuple[int, int, int, int]]:
        """The colour of each class by its place in `colours`, from 1 (0 is transparent)."""
        return {place: (*_rgb(colour), 255) for place, (_, colour) in enumerate(self.colours, start=1)}

    def places(self, values: np.ma.MaskedArray) -> np.ma.MaskedArray:
        """Each cell's class by its place in `colours` (uint8, from 1), masked where its value is no class."""
        # A hazard raster is uint8, which holds no NaN: read as float64 first.
        data = np.ma.masked_array(values, dtype=np.float64).filled(np.nan)
        if self.round_up:
            data = np.ceil(data)
        found = np.zeros(data.shape, dtype=np.uint8)
        for place, (value, _) in enumerate(self.colours, start=1):
            found[np.isclose(data, value)] = place
        return np.ma.masked_array(found, mask=np.ma.getmaskarray(values) | (found == 0))

    def legend(self) -> list[dict]:
        stops: list[dict] = [{"value": value, "colour": colour} for value, colour in self.colours]
        for stop, label in zip(stops, self.labels, strict=False):
            stop["label"] = label
        return stops


DIVERGING_COLOURS = "rdbu_r"  # blue lower, white unchanged, red higher: the impact picture's RdBu_r
DIVERGING_STOPS = 7


def diverging_ramp(low: float, high: float, *, least: float) -> Ramp:
    """A ramp centred on 0 for a change from `low` to `high`, as wide either way as the larger of them (at least
    `least`), so that one colour means one change whichever way it went; its middle legend stop is 0."""
    spread = round(max(abs(low), abs(high), least), 3)
    return Ramp(DIVERGING_COLOURS, -spread, spread, stops=DIVERGING_STOPS)


def classes_on(colormap: str, values: list[float], labels: list[str], *, start: float = 0.0) -> Classes:
    """A class per value, coloured evenly along a named colour map from `start` (0..1) to its end, in order."""
    table = _table(colormap, start)
    steps = max(1, len(values) - 1)
    colours = []
    for index, value in enumerate(values):
        red, green, blue, _ = table[round(255 * index / steps)]
        colours.append((value, f"#{red:02x}{green:02x}{blue:02x}"))
    return Classes(tuple(colours), labels=tuple(labels))


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


@functools.cache
def _table(colormap: str, start: float) -> dict[int, tuple[int, int, int, int]]:
    base = cast(dict[int, tuple[int, int, int, int]], cmap.get(colormap))  # a named map is 256 RGBA entries
    return {index: base[round(255 * (start + (1 - start) * index / 255))] for index in range(256)}


def value_range(path: Path, *, where_wet: Path | None = None, wet: float = 0.0) -> tuple[float, float] | None:
    """The lowest and highest value of the raster (read at most RANGE_MAX_PIXELS on its long side), counting only
    cells whose value in `where_wet` is at least `wet` when it is given; None when no cell counts."""
    values = _decimated(path)
    if where_wet is not None:
        depth = _decimated(where_wet)
        values = np.ma.masked_where(np.ma.getmaskarray(depth) | (depth.filled(0) < wet), values)
    counted = values.compressed()
    counted = counted[np.isfinite(counted)]
    if counted.size == 0:
        return None
    return float(counted.min()), float(counted.max())


def _decimated(path: Path) -> np.ma.MaskedArray:
    with rasterio.open(path) as source:
        scale = max(1.0, max(source.width, source.height) / RANGE_MAX_PIXELS)
        shape = (max(1, round(source.height / scale)), max(1, round(source.width / scale)))
        return source.read(1, out_shape=shape, masked=True, resampling=Resampling.nearest)


def tile_address_problem(*, z: int, x: int, y: int) -> str | None:
    """Why z/x/y is not a tile of the Web Mercator pyramid, or None when it is."""
    if not 0 <= z <= MAX_ZOOM:
        return f"z must be between 0 and {MAX_ZOOM}."
    if not (0 <= x < 2**z and 0 <= y < 2**z):
        return f"At zoom {z}, x and y must be between 0 and {2**z - 1}."
    return None


@functools.cache
def transparent_tile() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGBA", (TILE_SIZE, TILE_SIZE), (0, 0, 0, 0)).save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def colour_tile(
    path: Path,
    *,
    z: int,
    x: int,
    y: int,
    ramp: Ramp | Classes,
    hide_below: float | None = None,
    where_wet: Path | None = None,
    hide_within: float | None = None,
) -> bytes:
    """The tile with each cell coloured on `ramp` (or by its class); nodata and anything outside the raster are
    transparent, and so are cells below `hide_below` (in this raster, or in `where_wet` when given: the stage shown
    only where the depth raster says wet) and cells within `hide_within` of 0 (an impact map's "no change"). Cells
    keep their edges (nearest neighbour): a result raster is shown as computed."""
    image = _read(path, z=z, x=x, y=y, resampling="nearest")
    if image is None:
        return transparent_tile()
    values = image.array
    if np.issubdtype(values.dtype, np.floating):
        # A study's envelopes keep NaN as nodata, which rio-tiler makes the fill value: cast to a colour index, it
        # warns. The cells are masked, so their fill is never drawn.
        values.mask = np.ma.getmaskarray(values) | np.isnan(values.data)
        values.fill_value = 0.0
    if hide_below is not None:
        gauge = values.data if where_wet is None else _gauge(where_wet, z=z, x=x, y=y, like=values)
        values.mask = np.ma.getmaskarray(values) | (gauge < hide_below)
    if hide_within is not None:
        values.mask = np.ma.getmaskarray(values) | (np.abs(values.data) < hide_within)
    if np.ma.getmaskarray(values).all():
        return transparent_tile()
    if isinstance(ramp, Classes):
        image.array = ramp.places(values)
        if np.ma.getmaskarray(image.array).all():
            return transparent_tile()
    else:
        image.rescale(in_range=((ramp.low, max(ramp.high, ramp.low + 1e-6)),))
    return image.render(img_format="PNG", colormap=ramp.table())


def _gauge(path: Path, *, z: int, x: int, y: int, like: np.ma.MaskedArray) -> np.ndarray:
    image = _read(path, z=z, x=x, y=y, resampling="nearest")
    if image is None:
        return np.full(like.shape, -np.inf)
    return image.array.filled(-np.inf)


def hillshade_tile(path: Path, *, z: int, x: int, y: int, azimuth: float = 315.0, altitude: float = 45.0) -> bytes:
    """The tile as a grey hillshade of the elevations, lit from the north-west; nodata is transparent."""
    image = _read(path, z=z, x=x, y=y, resampling="bilinear", buffer=1)
    if image is None:
        return transparent_tile()
    elevation = image.array[0].astype("float64").filled(np.nan)
    west, south, east, north = image.bounds or (0.0, 0.0, 0.0, 0.0)  # a tile read always has its bounds
    # Web Mercator stretches distances by 1 / cos(latitude): the cell's size on the ground is smaller than on the map.
    ground = math.cos(_latitude((south + north) / 2))
    cell_x = (east - west) / elevation.shape[1] * ground
    cell_y = (north - south) / elevation.shape[0] * ground
    grey = hillshade(elevation, cell_x=cell_x, cell_y=cell_y, azimuth=azimuth, altitude=altitude)[1:-1, 1:-1]
    valid = np.isfinite(elevation[1:-1, 1:-1])
    if not valid.any():
        return transparent_tile()
    rgba = np.dstack([grey, grey, grey, np.where(valid, 255, 0).astype("uint8")])
    buffer = io.BytesIO()
    Image.fromarray(rgba, mode="RGBA").save(buffer, format="PNG")
    return buffer.getvalue()


def _latitude(mercator_y: float) -> float:
    return 2 * math.atan(math.exp(mercator_y / 6378137.0)) - math.pi / 2


def _read(path: Path, *, z: int, x: int, y: int, resampling: str, buffer: float | None = None) -> ImageData | None:
    with Reader(str(path)) as reader:
        try:
            return reader.tile(
                x, y, z, tilesize=TILE_SIZE, buffer=buffer, reproject_method=resampling, resampling_method=resampling
            )
        except TileOutsideBounds:
            return None
