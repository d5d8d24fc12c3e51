"""Paths to the shipped test data (small_test: CC BY 4.0, see tests/data/small_test/LICENSE_DATA.md)."""

from pathlib import Path

import numpy as np
import rasterio
from rasterio.warp import transform_bounds

SMALL_TEST = Path(__file__).resolve().parent / "data" / "small_test"
DEM = SMALL_TEST / "inputs" / "dem.tif"
BOUNDARY = SMALL_TEST / "inputs" / "boundary.geojson"
RAINFALL = SMALL_TEST / "inputs" / "rainfall.geojson"
ARR = Path(__file__).resolve().parent / "data" / "arr"  # synthetic ARR design inputs (see its README)


def dem_truth(path: Path = DEM) -> dict:
    """What rasterio itself reads from the file: the yardstick for the platform's summary."""
    with rasterio.open(path) as src:
        band = src.read(1, masked=True)
        valid = band.compressed()
        return {
            "bbox_wgs84": list(transform_bounds(src.crs, "EPSG:4326", *src.bounds, densify_pts=21)),
            "elevation_min": float(valid.min()),
            "elevation_max": float(valid.max()),
            "nodata_fraction": float(np.ma.count_masked(band) / band.size),
            "crs": f"EPSG:{src.crs.to_epsg()}",
        }
