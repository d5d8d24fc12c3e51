"""Independent readings of a finished run's files, to hold what the run reported against.

The stored water is integrated here from ANUGA's own .sww (centroid stage less elevation, times each triangle's
area computed from the node coordinates), and the wet area is counted from the max-depth raster cell by cell.
Nothing of hydrata.compute.outputs.results is used: the point is to read the same truth another way.
"""

from dataclasses import dataclass
from pathlib import Path

import netCDF4
import numpy as np
import pytest
import rasterio

from hydrata.anuga.models import Run
from hydrata.storage import get_storage

WET_M = 0.01  # the documented threshold: a cell is wet when its maximum depth reached 1 cm
BANDS_M = {
    "0.01-0.15": (0.01, 0.15),
    "0.15-0.3": (0.15, 0.3),
    "0.3-0.5": (0.3, 0.5),
    "0.5-1.0": (0.5, 1.0),
    "1.0-2.0": (1.0, 2.0),
    ">2.0": (2.0, np.inf),
}
RASTER_VS_MESH = 0.05  # 1 m cells take the triangle under their centre: the wet outlines differ by a cell or so


@dataclass(frozen=True)
class MeshReading:
    area_m2: float
    final_time_s: float
    stored_m3: float  # at the last frame
    rounding_m3: float  # the most the .sww's float32 stage and elevation can move stored_m3
    peak_depth_m: float
    wet_area_m2: float


@dataclass(frozen=True)
class RasterReading:
    cell_area_m2: float
    max_depth_m: float
    wet_area_m2: float
    band_areas_m2: dict[str, float]


def read_sww(path: Path) -> MeshReading:
    with netCDF4.Dataset(path) as sww:
        x, y = (sww.variables[name][:].astype(float) for name in ("x", "y"))
        corners = sww.variables["volumes"][:]
        frames = sww.variables["stage_c"][:].astype(float)
        stage = frames[-1]
        elevation = sww.variables["elevation_c"][:].astype(float)
        # The deepest each triangle was in any stored frame (frames are yield steps: the run's own recorder sees
        # every internal step, so its peaks can only be as high or higher).
        max_depth = (frames - elevation).max(axis=0)
        final_time = float(sww.variables["time"][-1])
    xs, ys = x[corners], y[corners]
    area = 0.5 * np.abs((xs[:, 1] - xs[:, 0]) * (ys[:, 2] - ys[:, 0]) - (xs[:, 2] - xs[:, 0]) * (ys[:, 1] - ys[:, 0]))
    # Each float32 value is within half a unit in the last place of the largest stage; a depth within one.
    ulp = float(np.spacing(np.float32(np.abs(stage).max())))
    return MeshReading(
        area_m2=float(area.sum()),
        final_time_s=final_time,
        stored_m3=float(((stage - elevation) * area).sum()),
        rounding_m3=ulp * float(area.sum()),
        peak_depth_m=float(max_depth.max()),
        wet_area_m2=float(area[max_depth >= WET_M].sum()),
    )


def read_max_depth(path: Path) -> RasterReading:
    with rasterio.open(path) as raster:
        depth = raster.read(1, masked=True).compressed().astype(float)
        cell = abs(raster.transform.a * raster.transform.e)
    bands = {
        label: float(np.count_nonzero((depth >= low) & (depth < high))) * cell for label, (low, high) in BANDS_M.items()
    }
    return RasterReading(
        cell_area_m2=cell,
        max_depth_m=float(depth.max()),
        wet_area_m2=float(np.count_nonzero(depth >= WET_M)) * cell,
        band_areas_m2=bands,
    )


def assert_statistics_match_the_files(statistics: dict, *, sww: Path, max_depth: Path) -> MeshReading:
    """What the run reported agrees with the files it wrote; returns the mesh reading for the caller's own
    check of the water that came in (the rain it expects)."""
    mesh, raster = read_sww(sww), read_max_depth(max_depth)
    balance = statistics["volume_balance"]
    out = balance["boundary_out_m3"]  # water that left through the transmissive edges

    assert mesh.final_time_s == statistics["sim_seconds"]
    # Mass balance: what came in (rain, inflow, through the boundary) is the change in what is stored plus what
    # left through the boundary and what the soils took.
    assert statistics["volume_in_m3"] == pytest.approx(
        mesh.stored_m3 - balance["initial_m3"] + out + balance.get("losses_m3", 0.0), abs=mesh.rounding_m3
    )
    assert statistics["final_volume_m3"] == pytest.approx(mesh.stored_m3, abs=mesh.rounding_m3)
    assert statistics["volume_out_m3"] == out
    # The wet area and its bands are the raster's wet cells; the raster's outline is the mesh's.
    assert statistics["wet_area_m2"] == pytest.approx(raster.wet_area_m2, abs=raster.cell_area_m2 / 2)
    assert statistics["flooded_area_m2_by_depth_band"] == pytest.approx(
        raster.band_areas_m2, abs=raster.cell_area_m2 / 2
    )
    assert raster.wet_area_m2 == pytest.approx(mesh.wet_area_m2, rel=RASTER_VS_MESH)
    # The peak is at least the deepest triangle of any stored frame, and the raster (cells finer than any
    # triangle) shows it.
    # 0.1 mm: the .sww keeps stage and elevation in float32, a few ulps of a stage of tens of metres.
    assert statistics["peak_depth_m"] >= mesh.peak_depth_m - 1e-4, (statistics["peak_depth_m"], mesh.peak_depth_m)
    assert raster.max_depth_m == pytest.approx(statistics["peak_depth_m"], rel=1e-6)
    return mesh


def statistics_match_the_stored_files(run_id: int, statistics: dict) -> MeshReading:
    """The run's reported statistics against its own stored .sww and max-depth raster."""
    prefix = Run.objects.get(pk=run_id).results_prefix
    storage = get_storage()
    with storage.local_path(key=f"{prefix}/run.sww") as sww, storage.local_path(key=f"{prefix}/max_depth.tif") as depth:
        return assert_statistics_match_the_files(statistics, sww=sww, max_depth=depth)
