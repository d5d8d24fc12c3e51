"""Reading a DEM the way the engineer will trust it: real rasterio readings, memory bounded by blocks.

Every refusal is a `TerrainFileError` (compute/errors.py) whose message a person can act on; the terrain and
build services turn it into a terrain or run in error with that message.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import rasterio
from PIL import Image
from rasterio.enums import Resampling
from rasterio.errors import RasterioError, WindowError
from rasterio.vrt import WarpedVRT
from rasterio.warp import transform_bounds
from rasterio.windows import Window, from_bounds

from hydrata.compute.errors import TerrainFileError

HILLSHADE_MAX_PIXELS = 2048
WGS84 = "EPSG:4326"


@dataclass(frozen=True)
class DemReading:
    native_crs: str
    crs: str
    width: int
    height: int
    resolution_x: float
    resolution_y: float
    bbox_native: list[float]
    bbox_wgs84: list[float]
    elevation_min: float
    elevation_max: float
    nodata_fraction: float
    reprojected: bool


def crs_label(crs: rasterio.crs.CRS) -> str:
    epsg = crs.to_epsg()
    return f"EPSG:{epsg}" if epsg else crs.to_string()


def open_dem(path: Path) -> rasterio.io.DatasetReader:
    try:
        dataset = rasterio.open(path)
    except RasterioError:
        raise TerrainFileError(
            "The file is not a raster that can be read. Upload the DEM as a GeoTIFF (.tif); a PNG or JPEG renamed "
            "to .tif will not work."
        ) from None
    if dataset.driver != "GTiff":
        # GDAL reads many formats whatever the file is called; only a GeoTIFF carries the georeferencing a DEM needs.
        driver = dataset.driver
        dataset.close()
        raise TerrainFileError(
            f"The file is not a GeoTIFF: it is a {driver} raster (perhaps renamed to .tif). Export the DEM as a "
            "GeoTIFF (.tif) and upload that; a PNG or JPEG renamed to .tif will not work."
        )
    if dataset.count < 1:
        dataset.close()
        raise TerrainFileError("The raster has no bands; a DEM needs one band of elevations.")
    if dataset.crs is None:
        dataset.close()
        raise TerrainFileError(
            "The GeoTIFF has no coordinate reference system, so it cannot be placed on the map. Assign the CRS it "
            "was surveyed in (for example `gdal_edit.py -a_srs EPSG:28356 dem.tif`) and upload it again."
        )
    if not dataset.crs.is_projected and not dataset.crs.is_geographic:
        dataset.close()
        raise TerrainFileError("The GeoTIFF's coordinate reference system is neither projected nor geographic.")
    return dataset


def write_dem(source: Path, destination: Path, *, project_crs: str) -> DemReading:
    """Copy the DEM to `destination` as a tiled GeoTIFF in the project CRS, reprojecting when it differs."""
    with open_dem(source) as src:
        native = crs_label(src.crs)
        reproject = src.crs != rasterio.crs.CRS.from_user_input(project_crs)
        nodata = src.nodata if src.nodata is not None else -9999.0
        if reproject:
            with WarpedVRT(src, crs=project_crs, resampling=Resampling.bilinear, nodata=nodata) as vrt:
                _copy_band(vrt, destination, nodata)
        else:
            _copy_band(src, destination, nodata)
    reading = read_dem(destination)
    return DemReading(**{**reading.__dict__, "native_crs": native, "reprojected": reproject})


def _copy_band(src: rasterio.io.DatasetReaderBase, destination: Path, nodata: float) -> None:
    profile = {
        "driver": "GTiff", "width": src.width, "height": src.height, "count": 1, "dtype": "float32",
        "crs": src.crs, "transform": src.transform, "nodata": nodata, "compress": "deflate",
        "tiled": True, "blockxsize": 256, "blockysize": 256, "BIGTIFF": "IF_SAFER",
    }
    with rasterio.open(destination, "w", **profile) as dst:
        for _, window in dst.block_windows(1):
            band = src.read(1, window=window, masked=True).astype("float32")
            dst.write(band.filled(nodata), 1, window=window)


def read_dem(path: Path) -> DemReading:
    """Statistics read block by block, so a large DEM never has to fit in memory."""
    with open_dem(path) as src:
        lowest, highest, missing = np.inf, -np.inf, 0
        for _, window in src.block_windows(1):
            band = src.read(1, window=window, masked=True)
            valid = band.compressed()
            valid = valid[np.isfinite(valid)]
            missing += band.size - valid.size
            if valid.size:
                lowest, highest = min(lowest, float(valid.min())), max(highest, float(valid.max()))
        if not np.isfinite(lowest):
            raise TerrainFileError("Every cell of the DEM is nodata; there are no elevations to model with.")
        bounds = list(src.bounds)
        return DemReading(
            native_crs=crs_label(src.crs),
            crs=crs_label(src.crs),
            width=src.width,
            height=src.height,
            resolution_x=abs(src.transform.a),
            resolution_y=abs(src.transform.e),
            bbox_native=[round(v, 3) for v in bounds],
            bbox_wgs84=[round(v, 7) for v in transform_bounds(src.crs, WGS84, *bounds, densify_pts=21)],
            elevation_min=round(lowest, 3),
            elevation_max=round(highest, 3),
            nodata_fraction=round(missing / (src.width * src.height), 6),
            reprojected=False,
        )


def write_hillshade(dem: Path, destination: Path, *, azimuth: float = 315.0, altitude: float = 45.0) -> None:
    """A greyscale hillshade PNG (nodata transparent) from a decimated read of the DEM."""
    with rasterio.open(dem) as src:
        scale = max(src.width, src.height) / HILLSHADE_MAX_PIXELS
        shape = (max(1, round(src.height / max(scale, 1))), max(1, round(src.width / max(scale, 1))))
        band = src.read(1, out_shape=shape, masked=True, resampling=Resampling.bilinear)
        cell_x = abs(src.transform.a) * src.width / shape[1]
        cell_y = abs(src.transform.e) * src.height / shape[0]
    elevation = band.filled(np.nan).astype("float64")
    grey = hillshade(elevation, cell_x=cell_x, cell_y=cell_y, azimuth=azimuth, altitude=altitude)
    alpha = np.where(np.isfinite(elevation), 255, 0).astype("uint8")
    Image.fromarray(np.dstack([grey, grey, grey, alpha])).save(destination, format="PNG")


def hillshade(elevation: np.ndarray, *, cell_x: float, cell_y: float, azimuth: float = 315.0,
              altitude: float = 45.0) -> np.ndarray:
    """Grey levels 0..255 of a surface lit from `azimuth` (degrees clockwise from north) at `altitude` degrees;
    rows run north to south. NaN elevations come out black (mask them yourself). The usual formula (Burrough and
    McDonnell, as GDAL and ESRI use it), with the derivative along rows taken southwards."""
    dz_south, dz_east = np.gradient(elevation, cell_y, cell_x)
    slope = np.arctan(np.hypot(dz_east, dz_south))
    aspect = np.arctan2(dz_south, -dz_east)
    sun_azimuth, sun_altitude = np.radians(360.0 - azimuth + 90.0), np.radians(altitude)
    shade = np.sin(sun_altitude) * np.cos(slope) + np.cos(sun_altitude) * np.sin(slope) * np.cos(sun_azimuth - aspect)
    return np.nan_to_num(np.clip(shade, 0, 1) * 255).astype("uint8")


def clip_dem(source: Path, destination: Path, *, bounds: tuple[float, float, float, float]) -> None:
    """The part of the DEM covering `bounds` (same CRS), as a tiled GeoTIFF; refused when they do not overlap."""
    with rasterio.open(source) as src:
        try:
            window = from_bounds(*bounds, transform=src.transform).round_offsets().round_lengths()
            window = window.intersection(Window(0, 0, src.width, src.height))
        except WindowError:
            window = None
        if window is None or window.width < 1 or window.height < 1:
            raise TerrainFileError("The terrain does not cover the model boundary; upload a DEM of this area.")
        profile = src.profile | {"width": int(window.width), "height": int(window.height),
                                 "transform": src.window_transform(window), "tiled": True, "compress": "deflate"}
        with rasterio.open(destination, "w", **profile) as dst:
            dst.write(src.read(1, window=window), 1)
