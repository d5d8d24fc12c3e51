"""The hillshade of terrain, lit from the north-west: in the terrain's PNG and in the map's tiles alike."""

import io

import numpy as np
import rasterio
from PIL import Image
from rasterio.transform import from_origin

from hydrata.compute.rasters.terrain_raster import hillshade, write_hillshade

ROWS, COLUMNS = np.mgrid[0:40, 0:40].astype(float)  # rows run southwards, columns eastwards
RISING_TO_THE_NORTH_WEST = -(ROWS + COLUMNS)  # its slopes face south-east, away from the light
RISING_TO_THE_SOUTH_EAST = ROWS + COLUMNS  # its slopes face north-west, towards the light


def test_a_slope_facing_the_light_is_brighter_than_one_facing_away():
    away = hillshade(RISING_TO_THE_NORTH_WEST, cell_x=1, cell_y=1).mean()
    towards = hillshade(RISING_TO_THE_SOUTH_EAST, cell_x=1, cell_y=1).mean()

    assert towards > away + 100


def test_the_terrains_hillshade_png_is_lit_from_the_north_west(tmp_path):
    def shaded(surface: np.ndarray) -> float:
        dem = tmp_path / "dem.tif"
        with rasterio.open(
            dem,
            "w",
            driver="GTiff",
            width=40,
            height=40,
            count=1,
            dtype="float32",
            crs="EPSG:28356",
            transform=from_origin(251000, 6272000, 1, 1),
        ) as out:
            out.write(surface.astype("float32"), 1)
        png = tmp_path / "hillshade.png"
        write_hillshade(dem, png)
        return np.asarray(Image.open(io.BytesIO(png.read_bytes())).convert("L"))[2:-2, 2:-2].mean()

    assert shaded(RISING_TO_THE_SOUTH_EAST) > shaded(RISING_TO_THE_NORTH_WEST) + 100
