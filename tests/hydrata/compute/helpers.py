"""Features and rings for the compute tests, built from the shipped small_test data or drawn here."""

import contextlib
import copy
import io
import json
from pathlib import Path

import shapely
from shapely.geometry import mapping

from hydrata.compute.spatial.geometry import BoundaryRing, boundary_ring, features_in_crs
from tests.data import BOUNDARY, SMALL_TEST

MEREWETHER = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "merewether"
SMALL_TEST_CRS = json.loads((SMALL_TEST / "scenario.json").read_text())["epsg"]


def small_test_collection() -> dict:
    return json.loads(BOUNDARY.read_text())


def small_test_features() -> list[dict]:
    return copy.deepcopy(small_test_collection()["features"])


def small_test_ring() -> BoundaryRing:
    return boundary_ring(features_in_crs(small_test_collection(), target_crs=SMALL_TEST_CRS))


def line(points, *, tag: str = "Reflective", location: str = "External", id=None) -> dict:
    return {
        "type": "Feature",
        "id": id,
        "geometry": {"type": "LineString", "coordinates": [list(p) for p in points]},
        "properties": {"boundary": tag, "location": location},
    }


def ring_features(points, tags=("Reflective", "Transmissive")) -> list[dict]:
    """One External edge per side of the polygon `points`, tags taken in turn."""
    return [line([points[i], points[(i + 1) % len(points)]], tag=tags[i % len(tags)]) for i in range(len(points))]


def region(geometry: shapely.Geometry, resolution, units="m", *, id=None) -> dict:
    properties = {"resolution": resolution}
    if units is not None:
        properties["resolution_units"] = units
    return {"type": "Feature", "id": id, "geometry": mapping(geometry), "properties": properties}


def peak_rasters(output_dir: Path) -> dict[str, Path]:
    """The three result rasters of a run's output folder, under the names the API samples them by."""
    return {
        "peak_depth": output_dir / "max_depth.tif",
        "peak_stage": output_dir / "max_stage.tif",
        "peak_speed": output_dir / "max_speed.tif",
    }


def read_domain(path: Path):
    """The mesh file as ANUGA reads it back for a simulation."""
    with contextlib.redirect_stdout(io.StringIO()):
        import anuga

        return anuga.Domain(str(path))
