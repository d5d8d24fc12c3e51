"""The report's maps: a fixed size whatever the raster's, over the hillshade of the DEM."""

import io
from pathlib import Path

import numpy as np
import rasterio
from PIL import Image
from rasterio.transform import from_origin

from hydrata.compute.figures.report_figures import (
    MAP_PIXELS,
    MESH_EDGES_DRAWN,
    MapLayer,
    bounded_shape,
    mesh_map,
    result_map,
)
from hydrata.compute.simulation.mesh import MeshGeometry

CRS = "EPSG:28356"


def raster(path: Path, values: np.ndarray, cell: float) -> Path:
    profile = {
        "driver": "GTiff",
        "width": values.shape[1],
        "height": values.shape[0],
        "count": 1,
        "dtype": "float32",
        "crs": CRS,
        "transform": from_origin(251000.0, 6272000.0, cell, cell),
        "nodata": -9999.0,
    }
    with rasterio.open(path, "w", **profile) as destination:
        destination.write(values.astype("float32"), 1)
    return path


def drawn(folder: Path, *, width: int, height: int) -> tuple[int, int]:
    """A depth map of a raster of this many cells over 200 m x 160 m, and its picture's size."""
    rows, columns = np.mgrid[0:height, 0:width]
    depth = np.where(columns < width // 2, rows / height, 0.0)
    ground = 10.0 + columns / width + rows / height
    png = result_map(
        raster=raster(folder / f"depth-{width}.tif", depth, 200.0 / width),
        dem=raster(folder / f"dem-{width}.tif", ground, 200.0 / width),
        layer=MapLayer(title="Peak depth", units="m"),
        crs=CRS,
    )
    return Image.open(io.BytesIO(png)).size


def test_a_raster_is_read_at_most_the_maps_size_whatever_its_own(tmp_path):
    small = drawn(tmp_path, width=100, height=80)
    large = drawn(tmp_path, width=3000, height=2400)

    assert bounded_shape(3000, 2400) == (MAP_PIXELS * 4 // 5, MAP_PIXELS)
    assert bounded_shape(100, 80) == (80, 100)
    assert small == large  # the picture's size is the figure's, not the raster's


def test_a_hazard_map_has_one_swatch_per_class_and_draws_each_class_in_its_own_colour(tmp_path):
    classes = np.repeat(np.arange(7, dtype=float)[None, :], 6, axis=0).repeat(10, axis=1)
    labels = [(number, f"H{number}") for number in range(1, 7)]

    png = result_map(
        raster=raster(tmp_path / "hazard.tif", classes, 2.0),
        dem=raster(tmp_path / "dem.tif", np.full(classes.shape, 5.0), 2.0),
        layer=MapLayer(title="Peak hazard", units="class", classes=labels),
        crs=CRS,
    )

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).reshape(-1, 3)
    colours = {tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in ("#e0f3f8", "#fee08b", "#f46d43", "#7f0000")}
    assert colours <= {tuple(pixel) for pixel in pixels}


def depth_map(folder: Path, depth: np.ndarray, *, cut_off: float) -> bytes:
    ground = 10.0 + np.indices(depth.shape).sum(axis=0) / 100
    name = f"{abs(hash(depth.tobytes()))}-{cut_off}"
    return result_map(
        raster=raster(folder / f"depth-{name}.tif", depth, 2.0),
        dem=raster(folder / f"dem-{name}.tif", ground, 2.0),
        layer=MapLayer(title="Peak depth", units="m", dry_at=cut_off),
        crs=CRS,
    )


def test_a_depth_at_or_under_the_cut_off_is_drawn_as_not_flooded_and_one_over_it_is_drawn(tmp_path):
    rows = np.mgrid[0:60, 0:90][0]
    shallow = np.zeros((60, 90))
    shallow[:, 30:60] = 0.5 + rows[:, 30:60] / 60  # flooded, 0.5 to 1.5 m
    shallow[:, :30] = 0.04  # a film under the cut-off
    dry = np.where(shallow == 0.04, 0.0, shallow)

    assert depth_map(tmp_path, shallow, cut_off=0.05) == depth_map(tmp_path, dry, cut_off=0.05)
    assert depth_map(tmp_path, shallow, cut_off=0.0) != depth_map(tmp_path, dry, cut_off=0.0)


def test_a_mesh_is_drawn_triangle_by_triangle_and_one_too_fine_to_see_as_its_density(tmp_path):
    def grid_mesh(side: int) -> MeshGeometry:
        """A square of side x side cells, two triangles each."""
        nodes = np.stack(np.meshgrid(np.arange(side + 1.0), np.arange(side + 1.0)), axis=-1).reshape(-1, 2)
        corner = (np.arange(side)[:, None] * (side + 1) + np.arange(side)[None, :]).reshape(-1)
        lower = np.stack([corner, corner + 1, corner + side + 2], axis=1)
        upper = np.stack([corner, corner + side + 2, corner + side + 1], axis=1)
        return MeshGeometry(nodes=nodes * 10 + [251000.0, 6271000.0], triangles=np.concatenate([lower, upper]))

    small, large = grid_mesh(20), grid_mesh(200)
    assert len(small.triangles) <= MESH_EDGES_DRAWN < len(large.triangles)

    for mesh in (small, large):
        with Image.open(io.BytesIO(mesh_map(mesh=mesh, crs=CRS))) as picture:
            assert picture.format == "PNG" and max(picture.size) < 1000
