"""The site as built against plain ANUGA scripts of the same model (issue 46): a dam break down a flume past a
building (Reflective, Raised, Mannings), across a breakline and over a weir, run by the simulation child as the
platform runs it, gives the same peak depth raster (to 1 mm) and volumes (to 1e-9 relative) as a script that
builds the mesh with ANUGA's own create_pmesh_from_regions (its interior_holes, its breaklines) and the building,
the friction and the riverwall with ANUGA's own Region, set_quantity and create_riverwalls. The script reads
the same DEM and the same polygons and lines; it calls none of our code."""

import contextlib
import io

import numpy as np
import pytest
import rasterio
from matplotlib.tri import Triangulation

from tests.hydrata.compute.flume import Flume, FlumeRun, at, feature, rectangle

LENGTH, WIDTH = 40.0, 10.0
DAM_X, LAKE_STAGE = 12.3, 1.2  # water to this stage upstream of the dam at the start (no centroid on x = DAM_X)
SLOPE, MANNINGS = 0.01, 0.03
RESOLUTION, DURATION, YIELD = 1.0, 20.0, 5.0
BUILDING = (18.0, 3.0, 22.0, 7.0)  # x0, y0, x1, y1: gaps either side of it
RAISED_M, BUILDING_MANNINGS = 0.4, 0.2
BREAKLINE = [(15.0, 1.0), (30.0, 9.0)]
WEIR, CREST = [(26.0, 1.0), (26.0, 9.0)], 0.6  # across the flume, water round its ends and over its crest
SLANTED_WEIR, WEIR_HEIGHT = [(24.0, 1.0), (28.0, 9.0)], 0.45  # its crest this far above the ground along it
NODATA = -9999.0


def bed(x: np.ndarray) -> np.ndarray:
    return SLOPE * (LENGTH - x)


def building(method: str, **properties) -> dict:
    return rectangle(*BUILDING, method=method, **properties)


SITES: dict[str, dict[str, list[dict]]] = {
    "Reflective": {"structure": [building("Reflective")]},
    "Raised": {"structure": [building("Raised", height=RAISED_M)]},
    "Mannings": {"structure": [building("Mannings", mannings=BUILDING_MANNINGS)]},
    "breakline": {"breakline": [feature("LineString", [at(*point) for point in BREAKLINE])]},
    "weir": {"weir": [feature("LineString", [at(*point) for point in WEIR], crest_elevation=CREST)]},
    "weir by height": {"weir": [feature("LineString", [at(*point) for point in SLANTED_WEIR], height=WEIR_HEIGHT)]},
}


def ours(directory, kind: str) -> FlumeRun:
    flume = Flume(
        length=LENGTH,
        width=WIDTH,
        bed=bed,
        mannings=MANNINGS,
        layers={"initial_condition": [rectangle(-1, -1, DAM_X, WIDTH + 1, stage=LAKE_STAGE)], **SITES[kind]},
    )
    return flume.run(directory, resolution=RESOLUTION, duration=DURATION, yield_seconds=YIELD)


def polygon(x0: float, y0: float, x1: float, y1: float) -> list[list[float]]:
    return [at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1)]


def plain_anuga(run: FlumeRun, kind: str) -> dict:
    """The same model written with ANUGA's API alone (kind "none": without the site's feature): its mesh from
    the geometry, each triangle's peak depth over every internal step (the depth after each step, as the platform
    keeps it), and the water's volume at the start and the end."""
    with contextlib.redirect_stdout(io.StringIO()):
        import anuga

    package = run.output.parent / "package"
    holes = [polygon(*BUILDING)] if kind == "Reflective" else None
    lines = {"breakline": [BREAKLINE], "weir": [WEIR], "weir by height": [SLANTED_WEIR]}.get(kind, [])
    with contextlib.redirect_stdout(io.StringIO()):
        anuga.create_pmesh_from_regions(
            polygon(0, 0, LENGTH, WIDTH),
            {"Reflective": [0, 1, 2, 3]},
            maximum_triangle_area=RESOLUTION**2 / 2,
            interior_holes=holes,
            hole_tags=[{"Reflective": [0, 1, 2, 3]}] if holes else None,
            breaklines=[[at(*point) for point in line] for line in lines] or None,
            minimum_triangle_angle=28.0,
            filename=str(run.output.parent / "plain.msh"),
            verbose=False,
        )
    domain = anuga.Domain(str(run.output.parent / "plain.msh"))
    domain.set_store(False)
    centroids = domain.get_centroid_coordinates(absolute=True)
    with rasterio.open(package / "inputs" / "dem.tif") as dem:
        ground = np.array([value[0] for value in dem.sample([tuple(point) for point in centroids])])
        start, end = np.array(at(*SLANTED_WEIR[0])), np.array(at(*SLANTED_WEIR[1]))
        along = np.linspace(start, end, int(np.ceil(np.linalg.norm(end - start))) + 1)  # the ground every metre
        under = np.array([value[0] for value in dem.sample([tuple(point) for point in along])])
    domain.set_quantity("elevation", ground, location="centroids")
    domain.set_quantity("friction", MANNINGS, location="centroids")
    if kind == "Raised":  # the ground under the building, raised
        inside = anuga.Region(domain, polygon=polygon(*BUILDING)).indices
        domain.set_quantity("elevation", ground[inside] + RAISED_M, indices=inside, location="centroids")
    if kind == "Mannings":
        domain.set_quantity("friction", BUILDING_MANNINGS, polygon=polygon(*BUILDING), location="centroids")
    domain.set_quantity("stage", expression="elevation", location="centroids")
    domain.set_quantity("stage", LAKE_STAGE, polygon=polygon(-1, -1, DAM_X, WIDTH + 1), location="centroids")
    stage = domain.quantities["stage"].centroid_values
    stage[:] = np.maximum(stage, domain.quantities["elevation"].centroid_values)
    if kind == "weir":
        domain.riverwallData.create_riverwalls({"weir": [[*at(*point), CREST] for point in WEIR]}, verbose=False)
    if kind == "weir by height":
        crest = [[x, y, z + WEIR_HEIGHT] for (x, y), z in zip(along, under, strict=True)]
        domain.riverwallData.create_riverwalls({"weir": crest}, verbose=False)
    domain.set_boundary({tag: anuga.Reflective_boundary(domain) for tag in domain.get_boundary_tags()})
    peak = np.zeros(domain.number_of_triangles)

    class PeakDepth(anuga.Operator):
        def __call__(self) -> None:
            quantities = self.domain.quantities
            depth = quantities["stage"].centroid_values - quantities["elevation"].centroid_values
            np.maximum(peak, depth, out=peak)

        def statistics(self) -> str:
            return "peak depth"

        def timestepping_statistics(self) -> str:
            return "peak depth"

    PeakDepth(domain)
    start = float(domain.get_water_volume())
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in domain.evolve(yieldstep=YIELD, finaltime=DURATION):
            pass
    return {
        "nodes": domain.get_nodes(absolute=True),
        "triangles": domain.get_triangles(),
        "peak": peak,
        "initial_volume": start,
        "final_volume": float(domain.get_water_volume()),
    }


def on_grid_of(raster_path, *, nodes: np.ndarray, triangles: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per-triangle values on the grid of a raster: each cell the value of the triangle holding its centre."""
    with rasterio.open(raster_path) as raster:
        transform, height, width = raster.transform, raster.height, raster.width
    columns, rows = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    x, y = transform @ (columns, rows)
    index = Triangulation(nodes[:, 0], nodes[:, 1], triangles).get_trifinder()(x, y)
    return np.where(index >= 0, values[index], NODATA)


def peak_depths(run: FlumeRun, plain: dict) -> tuple[np.ndarray, np.ndarray]:
    """The platform's peak depth raster and the script's peak depths on its grid."""
    with rasterio.open(run.output / "max_depth.tif") as raster:
        platform = raster.read(1).astype(float)
    script = on_grid_of(
        run.output / "max_depth.tif", nodes=plain["nodes"], triangles=plain["triangles"], values=plain["peak"]
    )
    return platform, script


@pytest.mark.parametrize("kind", list(SITES))
def test_the_platform_gives_the_peak_depths_and_volumes_a_plain_anuga_script_of_the_same_site_gives(kind, tmp_path):
    run = ours(tmp_path, kind)
    platform, script = peak_depths(run, plain := plain_anuga(run, kind))

    assert np.array_equal(platform == NODATA, script == NODATA)  # the same cells on the mesh (none in a hole)
    wet = platform != NODATA
    assert np.abs(platform[wet] - script[wet]).max() < 1e-3  # measured: 3e-8 m (the raster's float32)
    assert script[wet].max() > 0.5  # the flood came
    assert run.statistics["volume_balance"]["initial_m3"] == pytest.approx(plain["initial_volume"], rel=1e-9)
    assert run.statistics["final_volume_m3"] == pytest.approx(plain["final_volume"], rel=1e-9)
    # and the feature matters: the same script without it is decimetres away somewhere
    platform, without = peak_depths(run, plain_anuga(run, "none"))
    both = (platform != NODATA) & (without != NODATA)
    assert np.abs(platform[both] - without[both]).max() > 0.1
