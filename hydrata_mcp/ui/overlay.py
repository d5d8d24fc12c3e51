"""The depth overlay of a run as one PNG with its WGS84 bounds: the platform's own map tiles over the mesh's
extent, stitched at the zoom where that extent fits a small map, and cropped to it."""

import io
from dataclasses import dataclass

from PIL import Image

from hydrata_mcp.client import PlatformClient
from hydrata_mcp.ui.mercator import TILE_PX, bbox_of, fitting_zoom, pixel_box

OVERLAY_MAX_PX = 384  # a map in a chat is a few hundred pixels wide; 2x2 or 3x3 tiles at most


@dataclass(frozen=True)
class Overlay:
    png: bytes
    bounds_wgs84: list[float]
    width: int
    height: int
    zoom: int


async def stitched_overlay(
    api: PlatformClient, *, tile_template: str, bbox: tuple[float, float, float, float]
) -> Overlay:
    zoom = fitting_zoom(bbox=bbox, max_px=OVERLAY_MAX_PX)
    box = pixel_box(bbox=bbox, zoom=zoom)
    addresses = box.tiles()
    first_x, first_y = addresses[0]
    columns = len({x for x, _ in addresses})
    rows = len({y for _, y in addresses})
    canvas = Image.new("RGBA", (columns * TILE_PX, rows * TILE_PX), (0, 0, 0, 0))
    for x, y in addresses:
        path = tile_template.replace("{z}", str(zoom)).replace("{x}", str(x)).replace("{y}", str(y))
        with Image.open(io.BytesIO(await api.get_png(path))) as tile:
            canvas.paste(tile.convert("RGBA"), ((x - first_x) * TILE_PX, (y - first_y) * TILE_PX))
    origin_x, origin_y = first_x * TILE_PX, first_y * TILE_PX
    cropped = canvas.crop((box.left - origin_x, box.top - origin_y, box.right - origin_x, box.bottom - origin_y))
    return Overlay(png=_png(cropped), bounds_wgs84=bbox_of(box), width=box.width, height=box.height, zoom=zoom)


def _png(image: Image.Image) -> bytes:
    """A palette PNG: a colour ramp over transparency needs no more than 256 colours, and is a fraction the size."""
    out = io.BytesIO()
    image.quantize(colors=255, method=Image.Quantize.FASTOCTREE).save(out, format="PNG", optimize=True)
    return out.getvalue()
