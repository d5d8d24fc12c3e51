"""Reading a DEM the way the engineer will trust it: real rasterio readings, memory bounded by blocks.

Every refusal is a `TerrainFileError` (compute/errors.py) whose message a person can act on; the terrain and
build services turn it into a terrain or run in error with that message.

Every file here is opened through `open_geotiff`: the upload is untrusted, and GDAL would otherwise read any of
its formats from it, some of which fetch the URLs a file names (WMS, WMTS, a VRT of /vsicurl/ sources).
"""

from collections.abc import Iterator
from contextlib import contextmanager
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

from hydrata.compute.errors import (
    TERRAIN_ALL_NODATA,
    TERRAIN_CRS_UNSUPPORTED,
    TERRAIN_NO_BANDS,
    TERRAIN_NO_CRS,
    TERRAIN_NO_DISK_SPACE,
    TERRAIN_NOT_GEOTIFF,
    TERRAIN_OUTSIDE_BOUNDARY,
    TERRAIN_TOO_MANY_PIXELS,
    TerrainFileError,
)

HILLSHADE_MAX_PIXELS = 2048
WGS84 = "EPSG:4326"
# The working copy is float32; deflate usually shrinks it, but a DEM of noise would not shrink.
WORKING_BYTES_PER_PIXEL = 4

# GDAL's network access, pointed nowhere while an uploaded file is open. The GTiff-only open already keeps out the
# formats that fetch; these are the second wall. Driver registration happens once per process, so GDAL_SKIP here
# would do nothing: the allowlist in open_geotiff is what keeps the VRT, WMS and WMTS drivers away.
UNTRUSTED_FILE_GDAL_OPTIONS = {
    "CPL_VSIL_CURL_ALLOWED_FILENAME": "/nonexistent/no-network-access",  # /vsicurl/ may open only this name
    "CPL_VSIL_CURL_ALLOWED_EXTENSIONS": "{no-network-access}",
    "GDAL_HTTP_MAX_RETRY": "0",
    "GDAL_HTTP_TIMEOUT": "1",
    "GDAL_HTTP_CONNECTTIMEOUT": "1",
    "GDAL_DISABLE_READDIR_ON_OPEN": "EMPTY_DIR",  # no listing of, or reading from, files beside the upload
    "GDAL_PAM_ENABLED": "NO",  # no .aux.xml side-car read beside it, nor written
}


@dataclass(frozen=True)
class RasterLimits:
    """What an import may take: at most `max_pixels` pixels, and a working copy that fits in `free_bytes`."""

    max_pixels: int
    free_bytes: int


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


@contextmanager
def open_geotiff(path: Path) -> Iterator[rasterio.io.DatasetReader]:
    """The one way a DEM is opened: as a GeoTIFF only (a COG is one), with GDAL's network access off throughout."""
    with rasterio.Env(**UNTRUSTED_FILE_GDAL_OPTIONS):
        try:
            dataset = rasterio.open(path, driver="GTiff")
        except RasterioError:
            raise TerrainFileError(
                TERRAIN_NOT_GEOTIFF,
                "The file is not a GeoTIFF: it may be another format renamed to .tif (a PNG or JPEG, or an XML "
                "description of a web service, will not work). Export the DEM as a GeoTIFF (.tif) and upload that.",
            ) from None
        with dataset:
            _check_georeferenced(dataset)
            yield dataset


def _check_georeferenced(dataset: rasterio.io.DatasetReader) -> None:
    if dataset.count < 1:
        raise TerrainFileError(TERRAIN_NO_BANDS, "The raster has no bands; a DEM needs one band of elevations.")
    if dataset.crs is None:
        raise TerrainFileError(
            TERRAIN_NO_CRS,
            "The GeoTIFF has no coordinate reference system, so it cannot be placed on the map. Assign the CRS it "
            "was surveyed in (for example `gdal_edit.py -a_srs EPSG:28356 dem.tif`) and upload it again.",
        )
    if not dataset.crs.is_projected and not dataset.crs.is_geographic:
        raise TerrainFileError(
            TERRAIN_CRS_UNSUPPORTED, "The GeoTIFF's coordinate reference system is neither projected nor geographic."
        )


def check_size(width: int, height: int, *, limits: RasterLimits) -> None:
    """Refuse, from the header alone, a grid too large to import: a tiny sparse file can declare billions of pixels."""
    pixels = width * height
    if pixels > limits.max_pixels:
        raise TerrainFileError(
            TERRAIN_TOO_MANY_PIXELS,
            f"The DEM has {width:,} x {height:,} = {pixels:,} pixels; terrain may have at most "
            f"{limits.max_pixels:,}. Clip it to the area of interest or coarsen it (for example "
            "`gdalwarp -tr 2 2 dem.tif dem_2m.tif`).",
        )
    needed = pixels * WORKING_BYTES_PER_PIXEL
    if needed > limits.free_bytes:
        raise TerrainFileError(
            TERRAIN_NO_DISK_SPACE,
            f"Importing this DEM needs about {needed / 1024**3:,.1f} GiB of working disk space and only "
            f"{limits.free_bytes / 1024**3:,.1f} GiB is free. Clip or coarsen the DEM, or try again later.",
        )


def write_dem(source: Path, destination: Path, *, project_crs: str, limits: RasterLimits) -> DemReading:
    """Copy the DEM to `destination` as a tiled GeoTIFF in the project CRS, reprojecting when it differs; refused
    before any cell is read when the grid, as uploaded or as reprojected, is over `limits`."""
    with open_geotiff(source) as src:
        check_size(src.width, src.height, limits=limits)
        native = crs_label(src.crs)
        reproject = src.crs != rasterio.crs.CRS.from_user_input(project_crs)
        nodata = src.nodata if src.nodata is not None else -9999.0
        if reproject:
            with WarpedVRT(src, crs=project_crs, resampling=Resampling.bilinear, nodata=nodata) as vrt:
                check_size(vrt.width, vrt.height, limits=limits)
                _copy_band(vrt, destination, nodata)
        else:
            _copy_band(src, destination, nodata)
    reading = read_dem(destination)
    return DemReading(**{**reading.__dict__, "native_crs": native, "reprojected": reproject})


def _copy_band(src: rasterio.io.DatasetReaderBase, destination: Path, nodata: float) -> None:
    profile = {
        "driver": "GTiff",
        "width": src.width,
        "height": src.height,
        "count": 1,
        "dtype": "float32",
        "crs": src.crs,
        "transform": src.transform,
        "nodata": nodata,
        "compress": "deflate",
        "tiled": True,
        "blockxsize": 256,
        "blockysize": 256,
        "BIGTIFF": "IF_SAFER",
    }
    with rasterio.open(destination, "w", **profile) as dst:
        for _, window in dst.block_windows(1):
            band = src.read(1, window=window, masked=True).astype("float32")
            dst.write(band.filled(nodata), 1, window=window)


def read_dem(path: Path) -> DemReading:
    """Statistics read block by block, so a large DEM never has to fit in memory."""
    with open_geotiff(path) as src:
        lowest, highest, missing = np.inf, -np.inf, 0
        for _, window in src.block_windows(1):
            band = src.read(1, window=window, masked=True)
            valid = band.compressed()
            valid = valid[np.isfinite(valid)]
            missing += band.size - valid.size
            if valid.size:
                lowest, highest = min(lowest, float(valid.min())), max(highest, float(valid.max()))
        if not np.isfinite(lowest):
            raise TerrainFileError(
                TERRAIN_ALL_NODATA, "Every cell of the DEM is nodata; there are no elevations to model with."
            )
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
    with open_geotiff(dem) as src:
        scale = max(src.width, src.height) / HILLSHADE_MAX_PIXELS
        shape = (max(1, round(src.height / max(scale, 1))), max(1, round(src.width / max(scale, 1))))
        band = src.read(1, out_shape=shape, masked=True, resampling=Resampling.bilinear)
        cell_x = abs(src.transform.a) * src.width / shape[1]
        cell_y = abs(src.transform.e) * src.height / shape[0]
    elevation = band.filled(np.nan).astype("float64")
    grey = hillshade(elevation, cell_x=cell_x, cell_y=cell_y, azimuth=azimuth, altitude=altitude)
    alpha = np.where(np.isfinite(elevation), 255, 0).astype("uint8")
    Image.fromarray(np.dstack([grey, grey, grey, alpha])).save(destination, format="PNG")


def hillshade(
    elevation: np.ndarray, *, cell_x: float, cell_y: float, azimuth: float = 315.0, altitude: float = 45.0
) -> np.ndarray:
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
    with open_geotiff(source) as src:
        try:
            window = from_bounds(*bounds, transform=src.transform).round_offsets().round_lengths()
            window = window.intersection(Window(0, 0, src.width, src.height))
        except WindowError:
            window = None
        if window is None or window.width < 1 or window.height < 1:
            raise TerrainFileError(
                TERRAIN_OUTSIDE_BOUNDARY, "The terrain does not cover the model boundary; upload a DEM of this area."
            )
        profile = src.profile | {
            "width": int(window.width),
            "height": int(window.height),
            "transform": src.window_transform(window),
            "tiled": True,
            "compress": "deflate",
        }
        with rasterio.open(destination, "w", **profile) as dst:
            dst.write(src.read(1, window=window), 1)
