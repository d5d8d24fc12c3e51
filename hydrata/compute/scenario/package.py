"""Reading a scenario package (docs/scenario-package.md) without Django: the manifest, the input layers, the time
series and the terrain. Everything is in the project CRS; nothing here knows about ANUGA."""

import hashlib
import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import rasterio
from scipy import ndimage

from hydrata.compute.inputs.numbers import finite_number_or_none
from hydrata.compute.spatial.geometry import features_in_crs

SUPPORTED_MAJOR_VERSION = "1"


class PackageError(Exception):
    """The package cannot be run as it stands; the message says what is wrong with it."""


@dataclass(frozen=True)
class SeriesRecord:
    """A time series of the package: its rows ({timestamp, value}) and its units as written (None in a package
    written before units were read: the forcing that uses it takes its own first unit)."""

    rows: list[dict]
    units: str | None


@dataclass(frozen=True)
class Package:
    root: Path
    manifest: dict[str, Any]

    @property
    def crs(self) -> str:
        return str(self.manifest["epsg"])

    @property
    def duration(self) -> float:
        return float(self.manifest["duration"])

    @property
    def dem_path(self) -> Path:
        return self.root / str(self.manifest.get("elevation") or "inputs/dem.tif")

    @property
    def mesh_path(self) -> Path:
        return self.root / str(self.manifest.get("mesh") or "mesh.msh")

    def features(self, kind: str) -> list[dict]:
        """The features of one input kind in the project CRS ([] when the scenario has none). A layer that names
        another CRS in its "crs" member is reprojected; one without a "crs" member is taken as the project's."""
        relative = self.manifest.get(kind)
        if not relative:
            return []
        path = self.root / str(relative)
        if not path.is_file():
            raise PackageError(f"scenario.json names {relative} for the {kind} input, but the file is missing.")
        collection = json.loads(path.read_text())
        if not collection.get("crs"):  # the package's layers are in the project CRS, said or not
            return [dict(feature) for feature in collection.get("features") or []]
        return features_in_crs(collection, target_crs=self.crs)

    def time_series(self) -> dict[str, "SeriesRecord"]:
        """Each time series name with its rows ({timestamp, value}) and units."""
        series = {}
        for name, relative in (self.manifest.get("time_series") or {}).items():
            path = self.root / str(relative)
            if not path.is_file():
                raise PackageError(
                    f"scenario.json names {relative} for the time series {name!r}, but the file is missing."
                )
            document = json.loads(path.read_text())
            units = document.get("units")
            series[str(name)] = SeriesRecord(
                rows=list(document.get("rows") or []), units=None if units is None else str(units)
            )
        return series

    def model_start(self) -> datetime | None:
        value = self.manifest.get("model_start")
        return parse_timestamp(value) if value else None


def load_package(root: Path) -> Package:
    """The package at `root`, checked for the files a run needs before anything heavy starts."""
    manifest_path = root / "scenario.json"
    if not manifest_path.is_file():
        raise PackageError(f"No scenario.json in {root}; the package directory is incomplete.")
    try:
        manifest = json.loads(manifest_path.read_text())
    except json.JSONDecodeError as error:
        raise PackageError(f"scenario.json is not valid JSON ({error}).") from None
    version = str(manifest.get("format_version") or "")
    if version.split(".")[0] != SUPPORTED_MAJOR_VERSION:
        raise PackageError(
            f"scenario.json has format_version {version!r}; this simulator reads version "
            f"{SUPPORTED_MAJOR_VERSION}.x only."
        )
    for key in ("epsg", "duration"):
        if manifest.get(key) in (None, ""):
            raise PackageError(f"scenario.json has no {key!r}.")
    duration = float(manifest["duration"])
    if not math.isfinite(duration) or duration <= 0:
        raise PackageError(
            f"scenario.json has duration {manifest['duration']!r}; it must be a positive number of seconds."
        )
    package = Package(root=root, manifest=manifest)
    for path, what in ((package.dem_path, "terrain"), (package.mesh_path, "mesh")):
        if not path.is_file():
            raise PackageError(f"The {what} file {path.relative_to(root)} named by scenario.json is missing.")
    return package


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def package_sha256(root: Path) -> dict[str, str]:
    """Each file under `root` (relative POSIX path) with its SHA-256: what a package holds, hashed once as it is
    written, so that what ran can be said later without reading it again."""
    return {path.relative_to(root).as_posix(): file_sha256(path) for path in sorted(root.rglob("*")) if path.is_file()}


def parse_timestamp(value: Any) -> datetime:
    """An ISO 8601 time as an aware UTC datetime (naive times are taken as UTC, as the platform stores them)."""
    when = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def as_number(value: Any) -> float | None:
    """`value` as a finite float, or None when it is not a number (e.g. a time series name)."""
    return finite_number_or_none(value)


# --- terrain ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grid:
    """A raster's grid: what the result rasters copy so that they line up with the DEM cell for cell."""

    crs: Any
    transform: Any
    width: int
    height: int

    @property
    def cell_area(self) -> float:
        return abs(self.transform.a * self.transform.e - self.transform.b * self.transform.d)


def dem_grid(path: Path) -> Grid:
    with rasterio.open(path) as source:
        return Grid(crs=source.crs, transform=source.transform, width=source.width, height=source.height)


def sample_dem(path: Path, xy: np.ndarray) -> np.ndarray:
    """The DEM cell value under each point (x, y in the DEM's CRS).

    Nodata cells take the value of the nearest valid cell (a Euclidean distance transform over the grid), so a
    hole in the survey becomes the ground beside it rather than a pit or a spike. Points off the grid take the
    nearest edge cell. Raises PackageError when the DEM has no valid cell at all.
    """
    with rasterio.open(path) as source:
        band = source.read(1, masked=True)
        inverse = ~source.transform
    values = np.ma.filled(band.astype("float64"), np.nan)
    invalid = ~np.isfinite(values)
    if invalid.all():
        raise PackageError("The terrain has no valid elevation cells (every cell is nodata).")
    if invalid.any():
        nearest = ndimage.distance_transform_edt(invalid, return_distances=False, return_indices=True)
        values = values[tuple(nearest)]
    cols, rows = inverse @ (xy[:, 0], xy[:, 1])
    rows = np.clip(np.floor(rows).astype(np.int64), 0, values.shape[0] - 1)
    cols = np.clip(np.floor(cols).astype(np.int64), 0, values.shape[1] - 1)
    return values[rows, cols]
