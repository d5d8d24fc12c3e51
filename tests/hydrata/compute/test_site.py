"""The site as it is built (buildings, breaklines, culverts, weirs), each honoured by the simulation child: the
channel of tests/hydrata/compute/channel.py with the site's layers in its package, meshed as the platform's build
meshes them, run as the platform runs it."""

import json

import numpy as np
import pytest
import shapely

from hydrata.compute.costs.estimate import mesh_estimate
from hydrata.compute.rasters.sampling import sample_rasters
from hydrata.compute.simulation.mesh import mesh_outline, mesh_read
from hydrata.compute.simulation.structures import mesh_holes
from hydrata.compute.spatial.geometry import boundary_ring
from tests.hydrata.compute.channel import (
    WIDTH,
    at,
    bed,
    boundary_features,
    feature,
    make_channel_package,
    run_channel,
)

DURATION = 300
UPSTREAM_X = 100.0  # a gauge of the channel's upstream of the building
WEIR_X, DOWNSTREAM_X = 260.0, 300.0  # a weir across the channel, and a gauge below it
BUILDING = [[at(160, 8), at(190, 8), at(190, 32), at(160, 32), at(160, 8)]]  # across the channel, gaps each side


def building(method: str, **properties) -> dict:
    return feature("Polygon", BUILDING, method=method, **properties)


def run(tmp_path, name: str, **site) -> object:
    package = make_channel_package(tmp_path / name / "package", duration=DURATION, site=site or None)
    return run_channel(package, tmp_path / name / "output", yield_seconds=10)


@pytest.fixture(scope="module")
def open_channel(tmp_path_factory):
    return run(tmp_path_factory.mktemp("site"), "open")


def test_a_reflective_building_across_the_flow_changes_the_flood(open_channel, tmp_path):
    built = run(tmp_path, "reflective", structure=[building("Reflective")])

    upstream_open = open_channel.gauge(UPSTREAM_X)["depth"][-1]
    upstream_built = built.gauge(UPSTREAM_X)["depth"][-1]
    assert built.series["t"] == open_channel.series["t"]
    assert upstream_built > upstream_open + 0.01  # the building holds the water back
    assert not np.allclose(built.gauge(150)["depth"], open_channel.gauge(150)["depth"])


def building_centre_peaks(run) -> dict:
    (sample,) = sample_rasters(
        rasters={"depth": run.output / "max_depth.tif", "speed": run.output / "max_speed.tif"},
        points=[tuple(at(175, 20))],
        decimals=None,
    )
    return sample


def test_a_reflective_building_is_a_hole_in_the_mesh_with_no_triangle_inside(tmp_path):
    site = {"structure": [building("Reflective")]}
    package = make_channel_package(tmp_path / "package", duration=DURATION, site=site)
    mesh = mesh_read(package / "mesh.msh")
    centroids = mesh.nodes[mesh.triangles].mean(axis=1)
    footprint = shapely.Polygon(BUILDING[0])

    assert not shapely.contains_xy(footprint, centroids[:, 0], centroids[:, 1]).any()
    outline = mesh.nodes[mesh_outline(mesh.triangles)].mean(axis=1)  # the edges' middles
    on_walls = shapely.distance(footprint.exterior, shapely.points(outline)) < 1e-3
    assert on_walls.sum() >= 4  # the building's four walls are edges of the mesh's outline


def test_a_raised_building_stays_dry_and_holds_the_water_back(open_channel, tmp_path):
    raised = run(tmp_path, "raised", structure=[building("Raised")])  # 3 m, above the 0.8 m of water

    assert building_centre_peaks(raised)["depth"] == pytest.approx(0.0, abs=1e-3)
    assert building_centre_peaks(open_channel)["depth"] > 0.3
    assert raised.gauge(UPSTREAM_X)["depth"][-1] > open_channel.gauge(UPSTREAM_X)["depth"][-1] + 0.01


def test_a_low_raised_building_is_overtopped(tmp_path):
    low = run(tmp_path, "low", structure=[building("Raised", height=0.1)])

    assert building_centre_peaks(low)["depth"] > 0.2


def test_a_mannings_building_lets_water_through_slowly_and_holds_some_back(open_channel, tmp_path):
    rough = run(tmp_path, "rough", structure=[building("Mannings", mannings=1.0)])

    inside, inside_open = building_centre_peaks(rough), building_centre_peaks(open_channel)
    assert inside["depth"] > 0.1  # wet: water passes through
    assert inside["speed"] < 0.5 * inside_open["speed"]
    assert rough.gauge(UPSTREAM_X)["depth"][-1] > open_channel.gauge(UPSTREAM_X)["depth"][-1] + 0.005


def weir(**properties) -> dict:
    return feature("LineString", [at(WEIR_X, 0), at(WEIR_X, WIDTH)], **properties)


def test_water_below_a_weirs_crest_stays_behind_it_and_water_above_it_flows_over(open_channel, tmp_path):
    high = run(tmp_path, "high", weir=[weir(height=2.5)])
    low = run(tmp_path, "low", weir=[weir(height=0.2)])

    assert open_channel.gauge(DOWNSTREAM_X)["depth"][-1] > 0.3
    assert max(high.gauge(DOWNSTREAM_X)["depth"]) == pytest.approx(0.0, abs=1e-3)  # held back
    assert high.gauge(250)["depth"][-1] > open_channel.gauge(250)["depth"][-1] + 0.1  # ponding behind it
    assert low.gauge(DOWNSTREAM_X)["depth"][-1] > 0.2  # overtopped


def test_a_weir_by_absolute_crest_is_the_same_wall_as_one_by_height_on_a_plane(tmp_path):
    bed_under = float(bed(np.array([WEIR_X]))[0])
    by_height = run(tmp_path, "height", weir=[weir(height=0.2)])
    by_crest = run(tmp_path, "crest", weir=[weir(crest_elevation=bed_under + 0.2)])

    assert by_crest.gauge(DOWNSTREAM_X)["depth"] == pytest.approx(by_height.gauge(DOWNSTREAM_X)["depth"], abs=0.02)


def test_the_estimate_leaves_out_a_reflective_buildings_hole_and_stays_near_the_built_mesh(tmp_path):
    site = {"structure": [feature("Polygon", [[at(50, 5), at(350, 5), at(350, 35), at(50, 35), at(50, 5)]])]}
    site["structure"][0]["properties"]["method"] = "Reflective"  # most of the channel: 9,000 of its 16,000 m2
    package = make_channel_package(tmp_path / "package", duration=DURATION, site=site)
    ring = boundary_ring(boundary_features("NormalDepth"))
    built = json.loads((package / "scenario.json").read_text())["mesh_triangle_count"]

    with_hole = mesh_estimate(ring=ring, regions=[], resolution=5.0, holes=mesh_holes(site["structure"]))
    without = mesh_estimate(ring=ring, regions=[], resolution=5.0)

    assert with_hole.triangles < 0.6 * without.triangles
    assert with_hole.triangles == pytest.approx(built, rel=0.15)
