import pytest

from hydrata_mcp.ui.mercator import TILE_PX, bbox_of, fitting_zoom, global_pixel, lon_lat, pixel_box

CREEK = (153.0, -27.51, 153.012, -27.5)  # about 1.2 km by 1.1 km


def test_a_pixel_and_its_longitude_latitude_are_one_point():
    x, y = global_pixel(lon=153.01, lat=-27.5, zoom=15)

    assert lon_lat(x=x, y=y, zoom=15) == pytest.approx((153.01, -27.5), abs=1e-9)


def test_the_zoom_is_the_deepest_at_which_the_box_fits():
    zoom = fitting_zoom(bbox=CREEK, max_px=384)
    fits, deeper = pixel_box(bbox=CREEK, zoom=zoom), pixel_box(bbox=CREEK, zoom=zoom + 1)

    assert max(fits.width, fits.height) <= 384 < max(deeper.width, deeper.height)


def test_the_window_covers_the_box_and_lists_every_tile_it_touches():
    box = pixel_box(bbox=CREEK, zoom=fitting_zoom(bbox=CREEK, max_px=384))
    west, south, east, north = bbox_of(box)

    assert west <= CREEK[0] and south <= CREEK[1] and east >= CREEK[2] and north >= CREEK[3]
    tiles = box.tiles()
    assert (box.left // TILE_PX, box.top // TILE_PX) == tiles[0]
    assert ((box.right - 1) // TILE_PX, (box.bottom - 1) // TILE_PX) == tiles[-1]
    assert len(tiles) <= 9
