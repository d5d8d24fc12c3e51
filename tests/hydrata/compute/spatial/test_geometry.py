import math
import random

import pytest
import shapely

from hydrata.compute.errors import ModelGeometryError
from hydrata.compute.spatial.geometry import (
    boundary_ring,
    features_in_crs,
    internal_lines,
    mesh_regions,
    resolution_to_max_area,
)
from tests.hydrata.compute.helpers import line, region, ring_features, small_test_features, small_test_ring

SW, SE, NE, NW = (251001.0, 6271802.0), (251198.0, 6271802.0), (251198.0, 6271999.0), (251001.0, 6271999.0)


def segment_midpoints(ring):
    n = len(ring.points)
    return [
        ((ring.points[i][0] + ring.points[(i + 1) % n][0]) / 2, (ring.points[i][1] + ring.points[(i + 1) % n][1]) / 2)
        for i in range(n)
    ]


# --- the boundary ring -----------------------------------------------------------------------------------------


def test_the_small_test_boundary_chains_into_a_four_segment_ring_with_its_tags_in_order():
    ring = small_test_ring()

    assert ring.points == [SW, SE, NE, NW]
    assert ring.segment_tags == ["Transmissive", "Reflective", "Transmissive", "Reflective"]
    assert ring.segment_features == [0, 1, 2, 3]
    assert ring.boundary_tags() == {"Transmissive": [0, 2], "Reflective": [1, 3]}
    assert ring.area == pytest.approx(38809.0)
    assert ring.polygon().exterior.is_ccw


def test_edges_shuffled_and_reversed_still_chain_into_the_same_ring():
    features = small_test_features()
    for feature in features[1::2]:
        feature["geometry"]["coordinates"].reverse()
    shuffled = [features[2], features[0], features[3], features[1]]

    ring = boundary_ring(shuffled)

    assert sorted(ring.points) == sorted([SW, SE, NE, NW])
    assert ring.polygon().exterior.is_ccw and ring.area == pytest.approx(38809.0)
    by_side = {shuffled[f]["id"]: tag for f, tag in zip(ring.segment_features, ring.segment_tags, strict=True)}
    assert by_side == {"south": "Transmissive", "east": "Reflective", "north": "Transmissive", "west": "Reflective"}
    for (x, y), owner in zip(segment_midpoints(ring), ring.segment_features, strict=True):
        assert shapely.LineString(shuffled[owner]["geometry"]["coordinates"]).distance(shapely.Point(x, y)) < 1e-9


def test_a_clockwise_boundary_comes_back_counter_clockwise_with_each_tag_on_its_own_segment():
    clockwise = [(0, 0), (0, 100), (100, 100), (100, 0)]
    features = ring_features(clockwise, tags=("Dirichlet", "Reflective", "Transmissive", "Reflective"))

    ring = boundary_ring(features)

    assert ring.polygon().exterior.is_ccw
    for (x, y), tag, owner in zip(segment_midpoints(ring), ring.segment_tags, ring.segment_features, strict=True):
        assert features[owner]["properties"]["boundary"] == tag
        assert shapely.LineString(features[owner]["geometry"]["coordinates"]).distance(shapely.Point(x, y)) < 1e-9


def test_a_gap_between_edges_raises_boundary_no_external_naming_the_coordinates():
    features = [f for f in small_test_features() if f["id"] != "north"]

    with pytest.raises(ModelGeometryError) as raised:
        boundary_ring(features)

    assert raised.value.code == "BOUNDARY_NO_EXTERNAL"
    assert "the chain stops at (251198.0, 6271999.0) and no other External edge starts or ends there" in (
        raised.value.message
    )
    assert "(251001.0, 6271999.0), 197.000 m away" in raised.value.message
    assert raised.value.extra["loose_ends"] == [list(NE), list(NW)]


def test_ends_within_a_millimetre_join_but_a_centimetre_apart_do_not():
    nearly = small_test_features()
    nearly[1]["geometry"]["coordinates"][-1] = [NE[0] + 0.0004, NE[1] - 0.0004]
    assert len(boundary_ring(nearly).points) == 4

    apart = small_test_features()
    apart[1]["geometry"]["coordinates"][-1] = [NE[0], NE[1] - 0.01]
    with pytest.raises(ModelGeometryError) as raised:
        boundary_ring(apart)
    assert raised.value.code == "BOUNDARY_NO_EXTERNAL" and "0.010 m away" in raised.value.message


def test_no_external_edges_raises_boundary_no_external():
    features = small_test_features()
    for feature in features:
        feature["properties"]["location"] = "Internal"

    with pytest.raises(ModelGeometryError) as raised:
        boundary_ring(features)

    assert raised.value.code == "BOUNDARY_NO_EXTERNAL"
    assert "None of the 4 boundary features has location 'External' (4 are Internal)" in raised.value.message


def test_no_features_raises_boundary_empty():
    with pytest.raises(ModelGeometryError) as raised:
        boundary_ring([])

    assert raised.value.code == "BOUNDARY_EMPTY" and "External" in raised.value.message


def test_a_multi_vertex_edge_gives_several_segments_with_one_tag():
    features = [
        line([(0, 0), (50, -5), (100, 0), (105, 50), (100, 100)], tag="Transmissive"),
        line([(100, 100), (0, 100), (0, 0)], tag="Reflective"),
    ]

    ring = boundary_ring(features)

    assert ring.segment_tags == ["Transmissive"] * 4 + ["Reflective"] * 2
    assert ring.segment_features == [0, 0, 0, 0, 1, 1]
    assert ring.boundary_tags() == {"Transmissive": [0, 1, 2, 3], "Reflective": [4, 5]}


def test_a_multilinestring_edge_and_repeated_points_are_taken_apart_and_dropped():
    features = [
        {
            "type": "Feature",
            "geometry": {
                "type": "MultiLineString",
                "coordinates": [[[0, 0], [100, 0], [100, 0]], [[100, 100], [0, 100]]],
            },
            "properties": {"boundary": "Dirichlet", "location": "External"},
        },
        line([(100, 0), (100, 100)], tag="Reflective"),
        line([(0, 100), (0, 0)], tag="Transmissive"),
    ]

    ring = boundary_ring(features)

    assert ring.points == [(0, 0), (100, 0), (100, 100), (0, 100)]
    assert ring.segment_tags == ["Dirichlet", "Reflective", "Dirichlet", "Transmissive"]


def test_three_edges_meeting_at_one_point_are_refused():
    features = [*ring_features([(0, 0), (100, 0), (100, 100), (0, 100)]), line([(0, 0), (30, 30)])]

    with pytest.raises(ModelGeometryError) as raised:
        boundary_ring(features)

    assert raised.value.code == "BOUNDARY_NO_EXTERNAL"
    assert "(30.0, 30.0)" in raised.value.message or "meet at (0.0, 0.0)" in raised.value.message


def test_two_separate_rings_are_refused():
    features = ring_features([(0, 0), (100, 0), (100, 100), (0, 100)]) + ring_features([(200, 0), (300, 0), (300, 100)])

    with pytest.raises(ModelGeometryError) as raised:
        boundary_ring(features)

    assert raised.value.code == "BOUNDARY_NO_EXTERNAL" and "2 separate closed rings" in raised.value.message


def test_a_boundary_that_crosses_itself_is_refused_with_where():
    features = ring_features([(0, 0), (100, 100), (100, 0), (0, 100)])

    with pytest.raises(ModelGeometryError) as raised:
        boundary_ring(features)

    assert raised.value.code == "BOUNDARY_INVALID" and "near (50.0, 50.0)" in raised.value.message


def test_an_external_edge_without_a_boundary_type_is_refused_by_name():
    features = small_test_features()
    del features[2]["properties"]["boundary"]

    with pytest.raises(ModelGeometryError) as raised:
        boundary_ring(features)

    assert raised.value.code == "BOUNDARY_INVALID" and "feature 2 (id 'north')" in raised.value.message


def test_internal_lines_are_kept_as_breaklines_and_external_ones_are_not():
    features = [
        *small_test_features(),
        line([(251050, 6271850), (251100, 6271900), (251100, 6271900)], location="Internal"),
        {
            "type": "Feature",
            "geometry": {
                "type": "MultiLineString",
                "coordinates": [[[251020, 6271820], [251030, 6271830]], [[251040, 6271840], [251050, 6271840]]],
            },
            "properties": {"boundary": "Reflective", "location": "Internal"},
        },
    ]

    assert internal_lines(features) == [
        [(251050.0, 6271850.0), (251100.0, 6271900.0)],
        [(251020.0, 6271820.0), (251030.0, 6271830.0)],
        [(251040.0, 6271840.0), (251050.0, 6271840.0)],
    ]


# --- coordinate reference systems ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["EPSG:28356", "urn:ogc:def:crs:EPSG::28356"])
def test_features_round_trip_between_mga56_and_wgs84_within_a_millimetre(name):
    collection = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": name}},
        "features": small_test_features(),
    }

    in_wgs84 = features_in_crs(collection, target_crs="EPSG:4326")
    back = features_in_crs({"type": "FeatureCollection", "features": in_wgs84}, target_crs="EPSG:28356")

    lon, lat = in_wgs84[0]["geometry"]["coordinates"][0]
    assert 150.2 < lon < 150.4 and -33.8 < lat < -33.6
    for original, returned in zip(small_test_features(), back, strict=True):
        for a, b in zip(original["geometry"]["coordinates"], returned["geometry"]["coordinates"], strict=True):
            assert math.dist(a, b) < 0.001
        assert returned["properties"] == original["properties"] and returned["id"] == original["id"]


def test_features_already_in_the_target_crs_are_left_as_they_are():
    collection = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "EPSG:28356"}},
        "features": small_test_features(),
    }

    same = features_in_crs(collection, target_crs="EPSG:28356")

    assert same == small_test_features()
    assert collection["features"] == small_test_features()  # the input is not changed either


def test_an_unknown_crs_is_refused():
    with pytest.raises(ModelGeometryError) as raised:
        features_in_crs({"crs": "EPSG:99999999", "features": []}, target_crs="EPSG:28356")

    assert raised.value.code == "CRS_UNKNOWN"


# --- mesh regions ----------------------------------------------------------------------------------------------

WITHIN = shapely.box(0, 0, 100, 100)


def test_resolution_in_metres_is_a_length_and_in_m2_an_area():
    assert resolution_to_max_area(4, "m") == 8.0
    assert resolution_to_max_area(8, "m2") == 8.0

    regions = mesh_regions(
        [
            region(shapely.box(10, 10, 20, 20), 4, "m", id="length"),
            region(shapely.box(30, 30, 40, 40), "8", "m2", id="area"),
        ],
        within=WITHIN,
    )

    assert [(r.name, r.resolution_m, r.max_triangle_area) for r in regions] == [
        ("feature 0 (id 'length')", 4.0, 8.0),
        ("feature 1 (id 'area')", 4.0, 8.0),
    ]


@pytest.mark.parametrize("units", [None, "", "ft"])
def test_a_region_without_resolution_units_is_refused_naming_the_feature(units):
    features = [region(shapely.box(10, 10, 20, 20), 4), region(shapely.box(30, 30, 40, 40), 2, units, id="dense")]

    with pytest.raises(ModelGeometryError) as raised:
        mesh_regions(features, within=WITHIN)

    assert raised.value.code == "MESH_REGION_UNITS_UNMARKED"
    assert "feature 1 (id 'dense')" in raised.value.message and "'m2'" in raised.value.message
    assert raised.value.extra == {"feature_index": 1, "feature_id": "dense"}


def test_a_region_partly_outside_the_boundary_is_clipped_and_one_wholly_outside_is_dropped():
    regions = mesh_regions(
        [region(shapely.box(80, 40, 150, 60), 2), region(shapely.box(200, 200, 300, 300), 2)], within=WITHIN
    )

    assert len(regions) == 1
    assert regions[0].polygon.area == pytest.approx(20 * 20)
    assert regions[0].polygon.bounds == (80.0, 40.0, 100.0, 60.0)


def test_a_region_that_clipping_cuts_in_two_gives_two_parts():
    u_shape = shapely.Polygon([(0, 0), (100, 0), (100, 100), (70, 100), (70, 30), (30, 30), (30, 100), (0, 100)])
    regions = mesh_regions([region(shapely.box(10, 50, 90, 60), 1, id="bar")], within=u_shape)

    assert [r.name for r in regions] == ["feature 0 (id 'bar') part 1", "feature 0 (id 'bar') part 2"]
    assert sum(r.polygon.area for r in regions) == pytest.approx(2 * 20 * 10)


@pytest.mark.parametrize(
    "resolution",
    [0, -1, "fine", None, True, 10**400, "1e400", 1e200],
    ids=["0", "-1", "fine", "None", "True", "10**400", "1e400 as text", "1e200"],
)
def test_a_region_resolution_that_is_not_a_positive_number_is_refused(resolution):
    with pytest.raises(ModelGeometryError) as raised:
        mesh_regions([region(shapely.box(10, 10, 20, 20), resolution)], within=WITHIN)

    assert raised.value.code == "MESH_REGION_INVALID" and len(raised.value.message) < 300


def test_shuffling_the_edges_in_any_order_gives_the_same_area():
    features = ring_features([(math.cos(a) * 50, math.sin(a) * 50) for a in [k * math.pi / 12 for k in range(24)]])
    expected = boundary_ring(features)
    random.Random(7).shuffle(features)

    ring = boundary_ring(features)

    assert len(ring.points) == 24 and ring.area == pytest.approx(expected.area)
