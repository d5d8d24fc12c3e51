"""Map tiles read from rasters with rio-tiler: colours where there is a value, transparency everywhere else."""

import io

import morecantile
import numpy as np
import pytest
import rasterio
from affine import Affine
from PIL import Image

from hydrata.compute.outputs.results import NODATA, write_cog
from hydrata.compute.rasters.tiles import (
    Classes,
    Ramp,
    classes_on,
    colour_tile,
    hillshade_tile,
    tile_address_problem,
    transparent_tile,
    value_range,
)
from hydrata.compute.scenario.package import Grid
from hydrata_contract.hazard import HazardClass
from tests.data import DEM

WEB_MERCATOR = morecantile.tms.get("WebMercatorQuad")
DEPTH = Ramp("ylgnbu", 0.0, 2.0, start=0.25)


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


def centre_tile(path, zoom: int) -> morecantile.Tile:
    with rasterio.open(path) as source:
        west, south, east, north = rasterio.warp.transform_bounds(source.crs, "EPSG:4326", *source.bounds)
    return WEB_MERCATOR.tile((west + east) / 2, (south + north) / 2, zoom)


@pytest.fixture
def depth_raster(tmp_path):
    """A 100 m square on the small_test grid: the west half 1 m deep, the east half dry, the north rows nodata."""
    with rasterio.open(DEM) as dem:
        grid = Grid(crs=dem.crs, transform=dem.transform @ Affine.scale(2), width=100, height=100)
    depth = np.zeros((100, 100), dtype=np.float32)
    depth[:, :50] = 1.0
    depth[:10, :] = NODATA
    path = tmp_path / "max_depth.tif"
    write_cog(path, depth, grid)
    return path


def test_wet_cells_are_coloured_and_dry_or_nodata_cells_are_transparent(depth_raster):
    tile = centre_tile(depth_raster, 18)

    image = pixels(colour_tile(depth_raster, z=tile.z, x=tile.x, y=tile.y, ramp=DEPTH, hide_below=0.01))

    opaque = image[..., 3] == 255
    assert 0.2 < opaque.mean() < 0.8  # the wet half shows, the dry half does not
    expected = DEPTH.table()[round(1.0 / 2.0 * 255)][:3]
    assert np.abs(image[opaque][:, :3].astype(int) - expected).max() <= 2
    assert (image[~opaque][:, 3] == 0).all()


def test_a_tile_outside_the_raster_is_transparent(depth_raster):
    assert colour_tile(depth_raster, z=18, x=0, y=0, ramp=DEPTH) == transparent_tile()
    assert pixels(transparent_tile()).shape == (256, 256, 4) and (pixels(transparent_tile())[..., 3] == 0).all()


def test_the_stage_can_be_shown_only_where_the_depth_says_wet(depth_raster, tmp_path):
    with rasterio.open(depth_raster) as depth:
        grid = Grid(crs=depth.crs, transform=depth.transform, width=depth.width, height=depth.height)
    stage = tmp_path / "max_stage.tif"
    write_cog(stage, np.full((100, 100), 12.5, dtype=np.float32), grid)
    tile = centre_tile(depth_raster, 18)

    everywhere = pixels(colour_tile(stage, z=tile.z, x=tile.x, y=tile.y, ramp=Ramp("viridis", 12, 13)))
    where_wet = pixels(
        colour_tile(
            stage, z=tile.z, x=tile.x, y=tile.y, ramp=Ramp("viridis", 12, 13), hide_below=0.01, where_wet=depth_raster
        )
    )

    assert (where_wet[..., 3] == 255).sum() < 0.7 * (everywhere[..., 3] == 255).sum()
    assert value_range(stage, where_wet=depth_raster, wet=0.01) == (12.5, 12.5)
    assert value_range(depth_raster) == (0.0, 1.0)


def test_a_class_raster_draws_each_class_in_its_own_colour_whatever_classes_the_run_reached(tmp_path):
    with rasterio.open(DEM) as dem:
        grid = Grid(crs=dem.crs, transform=dem.transform @ Affine.scale(2), width=120, height=100)
    classes = np.zeros((100, 120), dtype=np.uint8)  # a dry strip, then H1..H6 in vertical bands of 20 cells
    for number in range(1, 6 + 1):
        classes[:, 20 * (number - 1) + 10 : 20 * number + 10] = number
    path = tmp_path / "max_hazard.tif"
    write_cog(path, classes[:, :120], grid)
    colours = Classes(tuple((item.number, item.colour) for item in HazardClass))
    tile = centre_tile(path, 16)

    image = pixels(colour_tile(path, z=tile.z, x=tile.x, y=tile.y, ramp=colours))

    opaque = image[image[..., 3] == 255][:, :3]
    drawn = {"#" + "".join(f"{int(channel):02x}" for channel in pixel) for pixel in opaque}
    assert drawn == {item.colour for item in HazardClass}  # nothing blended: only the six class colours
    assert (image[..., 3] == 0).any()  # the dry strip (class 0) is clear
    assert colours.legend() == [{"value": item.number, "colour": item.colour} for item in HazardClass]


def drawn(image: np.ndarray) -> set[str]:
    return {"#" + "".join(f"{int(channel):02x}" for channel in pixel[:3]) for pixel in image[image[..., 3] == 255]}


def test_durations_beyond_255_minutes_are_classes_of_their_own_each_labelled_in_its_colour(tmp_path):
    with rasterio.open(DEM) as dem:
        grid = Grid(crs=dem.crs, transform=dem.transform @ Affine.scale(2), width=90, height=100)
    minutes = np.full((100, 90), NODATA, dtype=np.float32)  # no critical duration, then 30, 270 and 720 min bands
    for band, value in enumerate((30.0, 270.0, 720.0)):
        minutes[:, 30 * band + 5 : 30 * (band + 1)] = value
    path = tmp_path / "critical_duration.tif"
    write_cog(path, minutes, grid)
    classes = classes_on("viridis", [30.0, 270.0, 720.0], ["30 min", "270 min", "720 min"])
    tile = centre_tile(path, 16)

    image = pixels(colour_tile(path, z=tile.z, x=tile.x, y=tile.y, ramp=classes))

    legend = classes.legend()
    assert [(stop["value"], stop["label"]) for stop in legend] == [(30, "30 min"), (270, "270 min"), (720, "720 min")]
    assert len({stop["colour"] for stop in legend}) == 3
    assert drawn(image) == {stop["colour"] for stop in legend}  # 270 and 720 are not wrapped into a byte
    assert (image[..., 3] == 0).any()


def test_a_value_between_two_hazard_classes_is_drawn_in_the_class_above_only_when_asked(tmp_path):
    with rasterio.open(DEM) as dem:
        grid = Grid(crs=dem.crs, transform=dem.transform @ Affine.scale(2), width=100, height=100)
    path = tmp_path / "max_hazard.tif"
    write_cog(path, np.full((100, 100), 2.5, dtype=np.float32), grid)  # the median of H2 and H3
    exact = Classes(tuple((item.number, item.colour) for item in HazardClass))
    tile = centre_tile(path, 16)

    cautious = pixels(colour_tile(path, z=tile.z, x=tile.x, y=tile.y, ramp=Classes(exact.colours, round_up=True)))
    as_is = pixels(colour_tile(path, z=tile.z, x=tile.x, y=tile.y, ramp=exact))

    assert drawn(cautious) == {HazardClass.H3.colour}
    assert drawn(as_is) == set()  # 2.5 is no class of its own


def test_the_hillshade_of_the_small_test_dem_is_opaque_grey_with_relief():
    tile = centre_tile(DEM, 17)

    image = pixels(hillshade_tile(DEM, z=tile.z, x=tile.x, y=tile.y))

    inside = image[..., 3] == 255
    assert inside.mean() > 0.2
    grey = image[inside][:, 0].astype(int)
    assert (image[inside][:, 0] == image[inside][:, 1]).all()
    assert grey.std() > 1  # the ground has shape, not one flat tone


def test_the_legend_runs_from_low_to_high_in_the_ramps_colours():
    stops = DEPTH.legend()

    assert [stop["value"] for stop in stops] == [0.0, 0.4, 0.8, 1.2, 1.6, 2.0]
    assert all(stop["colour"].startswith("#") and len(stop["colour"]) == 7 for stop in stops)
    assert stops[0]["colour"] != stops[-1]["colour"]


@pytest.mark.parametrize(
    ("z", "x", "y", "valid"),
    [
        (0, 0, 0, True),
        (3, 7, 7, True),
        (3, 8, 0, False),
        (3, 0, -1, False),
        (25, 0, 0, False),
        (-1, 0, 0, False),
    ],
)
def test_only_tiles_of_the_web_mercator_pyramid_are_addresses(z, x, y, valid):
    assert (tile_address_problem(z=z, x=x, y=y) is None) is valid
