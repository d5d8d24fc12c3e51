"""The refusals of the compute package, its own (it knows nothing of HTTP): the service that calls compute maps
them to the platform's errors (hydrata/core/errors.py) or to a failed record, with the message unchanged."""

from typing import Any

from hydrata_contract.errors import ErrorCode

# The boundary layer has no features at all.
BOUNDARY_EMPTY = ErrorCode.BOUNDARY_EMPTY
# No External edges, or they do not chain into one closed ring (the message says where).
BOUNDARY_NO_EXTERNAL = ErrorCode.BOUNDARY_NO_EXTERNAL
# The External edges chain into a ring that cannot be meshed (it crosses itself, an edge has no tag, ...).
BOUNDARY_INVALID = ErrorCode.BOUNDARY_INVALID
# A mesh-region feature has a `resolution` without `resolution_units` of 'm' or 'm2'.
MESH_REGION_UNITS_UNMARKED = ErrorCode.MESH_REGION_UNITS_UNMARKED
# A mesh-region feature is not a polygon, or its `resolution` is not a positive number.
MESH_REGION_INVALID = ErrorCode.MESH_REGION_INVALID
# A layer names a coordinate reference system that pyproj does not know.
CRS_UNKNOWN = ErrorCode.CRS_UNKNOWN


class CodedError(Exception):
    """A refusal of the maths: `code` is for machines, `message` for the engineer, `extra` for what else helps."""

    def __init__(self, code: ErrorCode, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class ModelGeometryError(CodedError):
    """The input features cannot become a mesh."""


class GeoJSONRejected(Exception):
    """An uploaded file cannot be imported as GeoJSON; the message says why, for the person who uploaded it."""


# Terrain refusals (TerrainFileError codes).
TERRAIN_NOT_GEOTIFF = ErrorCode.TERRAIN_NOT_GEOTIFF  # not a GeoTIFF: another format, whatever the file is called
TERRAIN_NO_BANDS = ErrorCode.TERRAIN_NO_BANDS
TERRAIN_NO_CRS = ErrorCode.TERRAIN_NO_CRS
TERRAIN_CRS_UNSUPPORTED = ErrorCode.TERRAIN_CRS_UNSUPPORTED
TERRAIN_ALL_NODATA = ErrorCode.TERRAIN_ALL_NODATA
TERRAIN_TOO_MANY_PIXELS = ErrorCode.TERRAIN_TOO_MANY_PIXELS  # more pixels than the configured ceiling
TERRAIN_NO_DISK_SPACE = ErrorCode.TERRAIN_NO_DISK_SPACE  # its working copy would not fit on the disk
TERRAIN_OUTSIDE_BOUNDARY = ErrorCode.TERRAIN_OUTSIDE_BOUNDARY


class TerrainFileError(CodedError):
    """A file cannot become terrain (or cover a model); `message` says why and what to do."""


class GridMismatch(Exception):
    """Two runs' result rasters are not on one grid, so their cells cannot be compared; the message says why."""


# Time series refusals (SeriesUnitsError codes).
UNKNOWN_UNITS = ErrorCode.UNKNOWN_UNITS  # units no forcing knows, or not of the series' type; `accepted` lists them
CUMULATIVE_DECREASES = ErrorCode.CUMULATIVE_DECREASES  # a cumulative rain row below the row before it; `row` names it
NEGATIVE_RAIN = ErrorCode.NEGATIVE_RAIN  # a rain intensity or depth below zero; `row` names it
INTERVAL_UNKNOWN = ErrorCode.INTERVAL_UNKNOWN  # rain in mm per interval on a single row: its interval has no length


class SeriesUnitsError(CodedError):
    """A time series whose units or values the model cannot apply; `extra` holds `accepted` (the units that would
    do) or `row` (the position, in time order)."""
