"""Reading an uploaded GeoJSON without Django: the checks, the CRS it names, and the one reader of "crs"."""

import itertools
import json
import math

import numpy
import pytest
import shapely

from hydrata.compute.errors import GeoJSONRejected
from hydrata.compute.inputs import geojson
from hydrata.compute.inputs.geojson import (
    DEFAULT_CRS,
    crs_member_name,
    crs_urn,
    edge_tests_bound,
    edge_tests_count,
    geojson_inspect,
)

SQUARE = {
    "type": "Polygon",
    "coordinates": [[[151.0, -33.9], [151.1, -33.9], [151.1, -33.8], [151.0, -33.8], [151.0, -33.9]]],
}


def collection(*geometries, crs=None) -> bytes:
    features = [{"type": "Feature", "geometry": g, "properties": {"n": i}} for i, g in enumerate(geometries)]
    document = {"type": "FeatureCollection", "features": features}
    if crs is not None:
        document["crs"] = crs
    return json.dumps(document).encode()


@pytest.mark.parametrize(
    "member",
    [
        "EPSG:28356",
        {"type": "name", "properties": {"name": "EPSG:28356"}},
        {"type": "EPSG", "properties": {"code": 28356}},
    ],
)
def test_each_legacy_form_of_the_crs_member_gives_its_name(member):
    assert crs_member_name(member) == "EPSG:28356"


@pytest.mark.parametrize(
    "member", [{}, [], 28356, {"type": "link", "properties": {"href": "x"}}, {"properties": {"name": "EPSG:28356"}}]
)
def test_a_crs_member_in_any_other_form_has_no_name(member):
    assert crs_member_name(member) is None


def test_a_collection_without_a_crs_member_is_longitude_latitude_with_its_extent():
    inspected = geojson_inspect(data=collection(SQUARE), max_features=10, max_edge_tests=100)

    assert DEFAULT_CRS == inspected.crs == "EPSG:4326"
    assert inspected.geometry_types == ["Polygon"] and inspected.property_names == ["n"]
    assert inspected.bbox_native == [151.0, -33.9, 151.1, -33.8]
    assert inspected.bbox_wgs84 == pytest.approx([151.0, -33.9, 151.1, -33.8])


def test_an_unreadable_crs_member_is_rejected_with_the_form_to_use():
    with pytest.raises(GeoJSONRejected, match="not in a form this importer reads"):
        geojson_inspect(data=collection(SQUARE, crs={"type": "link"}), max_features=10, max_edge_tests=100)


def test_too_many_features_are_rejected_before_any_geometry_is_read():
    with pytest.raises(GeoJSONRejected, match="has 2 features; at most 1"):
        geojson_inspect(data=collection(SQUARE, None), max_features=1, max_edge_tests=100)


def test_a_normalised_crs_member_names_the_crs_by_its_urn():
    assert crs_urn("EPSG:28356") == "urn:ogc:def:crs:EPSG::28356"
    assert crs_urn("OGC:CRS84") == "urn:ogc:def:crs:OGC:1.3:CRS84"


# --- the work of the validity check is bounded by the edges' overlapping boxes ----------------------------------


def polygon(ring: list[list[float]]) -> dict:
    return {"type": "Polygon", "coordinates": [[*ring, ring[0]]]}


def zigzag(vertices: int) -> dict:
    """A ring that crosses itself at every vertex: each edge runs the ring's whole width, so every pair of edges has
    overlapping boxes (n^2 / 2 pairs for GEOS to test)."""
    return polygon(
        [[151.0 + (i % 2) * 1e-3, -33.0 + (i // 2) * 1e-7 * (1 if i % 4 < 2 else -1)] for i in range(vertices)]
    )


def serpentine(strips: int) -> dict:
    """A valid polygon of parallel slanted strips: no edge crosses another, yet every long edge's box overlaps every
    other's (GEOS took 13 s to find it valid at 40,000 vertices)."""
    ring = []
    for k in range(strips):
        base = 2 * k * 1e-6
        ring += [[0.0, base], [1.0, 1.0 + base], [1.0, 1.0 + base + 1e-6], [0.0, base + 1e-6]]
    return polygon([*ring, [-0.1, ring[-1][1]], [-0.1, 0.0]])


def circle(vertices: int) -> dict:
    return polygon([[math.cos(i / vertices * math.tau), math.sin(i / vertices * math.tau)] for i in range(vertices)])


@pytest.fixture
def validated(monkeypatch):
    """The geometries GEOS is asked to check or explain, in the order asked."""
    asked: list = []
    for name in ("is_valid", "is_valid_reason"):
        real = getattr(shapely, name)

        def spy(geometries, *args, real=real, **kwargs):
            asked.extend(numpy.atleast_1d(geometries).tolist())
            return real(geometries, *args, **kwargs)

        monkeypatch.setattr(geojson.shapely, name, spy)
    return asked


@pytest.mark.parametrize("vertices", [1_000, 4_000, 16_000, 64_000])
def test_a_ring_crossing_itself_at_every_vertex_is_refused_by_its_edge_tests_before_geos_checks_it(validated, vertices):
    with pytest.raises(GeoJSONRejected) as refused:
        geojson_inspect(data=collection(SQUARE, zigzag(vertices)), max_features=10, max_edge_tests=100_000)

    assert "Feature 1 (" in str(refused.value) and "at most 100,000" in str(refused.value)
    assert validated == []  # refused on a count linear in the vertices, before any GEOS validity check


def staircases(count: int, steps: int) -> dict:
    """A valid polygon of parallel staircases, each a run of edges heading one way (one monotone chain), packed so
    closely that each edge's extent overlaps the same edge's on every other staircase: few pairs of chains, but
    GEOS tests the edges of every two chains against each other (6 s at 400 staircases of 2,000 edges)."""
    ring = []
    for k in range(count):
        stair = [
            [
                0.01 * ((j + 1) // 2 + (j // 2) * 0.1 + k / (2 * count)),
                0.01 * (j // 2 + ((j + 1) // 2) * 0.1 - k / (2 * count)),
            ]
            for j in range(2 * steps + 1)
        ]
        ring += stair if k % 2 == 0 else stair[::-1]
    return polygon([*ring, [ring[-1][0] / 2, -0.1]])


@pytest.mark.parametrize(("count", "steps"), [(20, 100), (40, 100), (80, 100)])
def test_parallel_runs_of_edges_are_counted_by_their_edges_not_only_their_chains(validated, count, steps):
    pairs = overlapping_run_pairs(shapely.from_geojson(json.dumps(staircases(count, steps))))

    assert pairs >= 2 * count * (count - 1) * steps  # every two staircases, 2 x steps edges each
    assert geojson_inspect(data=collection(staircases(count, steps)), max_features=10, max_edge_tests=pairs)
    with pytest.raises(GeoJSONRejected, match=f"at most {pairs - 1:,}"):
        geojson_inspect(data=collection(staircases(count, steps)), max_features=10, max_edge_tests=pairs - 1)
    assert len(validated) == 1


@pytest.mark.parametrize("strips", [50, 200, 400])
def test_a_polygon_whose_edge_tests_reach_the_limit_is_imported_and_one_over_is_refused(validated, strips):
    data = collection(serpentine(strips))
    pairs = overlapping_run_pairs(shapely.from_geojson(json.dumps(serpentine(strips))))

    assert geojson_inspect(data=data, max_features=10, max_edge_tests=pairs).geometry_types == ["Polygon"]
    assert len(validated) == 1
    with pytest.raises(GeoJSONRejected, match=f"at most {pairs - 1:,}"):
        geojson_inspect(data=data, max_features=10, max_edge_tests=pairs - 1)
    assert len(validated) == 1


@pytest.mark.parametrize("chunk", [geojson.EXACT_CHUNK_PAIRS, 1_000], ids=["one chunk", "chunks of 1,000 pairs"])
def test_rings_nested_in_one_another_are_counted_exactly_where_the_quick_bound_is_too_loose(
    validated, monkeypatch, chunk
):
    # Depth bands: each chain of a ring shares its x range with the rings around it, or its y range, rarely both.
    monkeypatch.setattr(geojson, "EXACT_CHUNK_PAIRS", chunk)
    random = numpy.random.default_rng(7)
    turns = numpy.arange(400) / 400 * math.tau

    def ring(radius):
        jittered = radius * (1 + 0.002 * random.uniform(-1, 1, len(turns)))
        points = [[float(r * math.cos(t)), float(r * math.sin(t))] for r, t in zip(jittered, turns, strict=True)]
        return [*points, points[0]]

    bands = {"type": "MultiPolygon", "coordinates": [[ring(2 * k + 2), ring(2 * k + 1)] for k in range(20)]}
    geometry = numpy.asarray([shapely.from_geojson(json.dumps(bands))])
    loose = int(edge_tests_bound(geometry)[0])
    pairs = int(edge_tests_count(geometry, limit=loose - 1)[0])

    assert pairs < loose / 4
    assert pairs == 792_522  # the same in one chunk as in many (and as numpy comparing every pair)
    assert geojson_inspect(data=collection(bands), max_features=10, max_edge_tests=pairs).geometry_types == [
        "MultiPolygon"
    ]
    assert len(validated) == 1
    with pytest.raises(GeoJSONRejected, match=f"at most {pairs - 1:,}"):
        geojson_inspect(data=collection(bands), max_features=10, max_edge_tests=pairs - 1)


def test_a_circle_of_200000_vertices_has_a_few_edge_tests_a_vertex_and_is_imported():
    # A detailed boundary's edges are short and local: its four runs of edges (one a quadrant) meet at the centre,
    # each pair tested edge by edge, so its count grows with its vertices, not their square.
    inspected = geojson_inspect(data=collection(circle(200_000)), max_features=10, max_edge_tests=3 * 200_000)

    assert inspected.geometry_types == ["Polygon"]


def monotone_runs(line: list[list[float]]) -> list[tuple[float, float, float, float, int]]:
    """The boxes of a line's runs of edges heading into one quadrant (GEOS's monotone chains) and their edges."""
    runs: list[tuple[float, float, float, float, int]] = []
    last = None
    for (x0, y0), (x1, y1) in itertools.pairwise(line):
        if (x0, y0) == (x1, y1):
            continue
        quadrant = (x1 < x0, y1 < y0)
        box = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
        if quadrant == last:
            x_low, y_low, x_high, y_high, edges = runs[-1]
            box = (min(x_low, box[0]), min(y_low, box[1]), max(x_high, box[2]), max(y_high, box[3]))
            runs[-1] = (*box, edges + 1)
        else:
            runs.append((*box, 1))
        last = quadrant
    return runs


def overlapping_run_pairs(geometry) -> int:
    """The edges of every two monotone runs whose boxes overlap (a + b for runs of a and b edges), by brute force:
    the work of GEOS's intersection search."""
    runs = [run for part in _lines(geometry) for run in monotone_runs(list(part.coords))]
    return sum(
        a[4] + b[4]
        for a, b in itertools.combinations(runs, 2)
        if a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]
    )


def _lines(geometry):
    if isinstance(geometry, shapely.Polygon):
        return [geometry.exterior, *geometry.interiors]
    if isinstance(geometry, shapely.LineString | shapely.LinearRing):
        return [geometry]
    if hasattr(geometry, "geoms"):
        return [line for part in geometry.geoms for line in _lines(part)]
    return []


def test_the_edge_tests_counted_are_the_edges_of_every_two_monotone_runs_whose_boxes_overlap():
    random = numpy.random.default_rng(45)
    geometries = [
        shapely.Point(1, 2),
        shapely.from_geojson(json.dumps(zigzag(60))),
        shapely.from_geojson(json.dumps(serpentine(9))),
    ]
    for _ in range(60):
        walk = numpy.cumsum(random.normal(size=(int(random.integers(3, 40)), 2)), axis=0)
        walk[random.integers(0, len(walk))] = walk[0]  # a repeated point now and then
        line = shapely.LineString(walk)
        ring = shapely.Polygon(walk)
        holed = shapely.Polygon(walk * 10, [walk[:3] + 0.1])
        geometries += [
            line,
            ring,
            shapely.MultiPolygon([ring, holed]),
            shapely.GeometryCollection([line, shapely.MultiLineString([walk, walk[::-1]])]),
        ]

    bounds = edge_tests_bound(numpy.asarray(geometries, dtype=object))

    exact = [overlapping_run_pairs(geometry) for geometry in geometries]
    assert all(bounds >= exact)
    for geometry, pairs in zip(geometries, exact, strict=True):  # counted exactly to the limit, and past it
        assert edge_tests_count(numpy.asarray([geometry]), limit=pairs)[0] == pairs
        assert edge_tests_count(numpy.asarray([geometry]), limit=pairs - 1)[0] >= pairs


def test_only_the_invalid_features_listed_are_explained(validated):
    bowtie = polygon([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])

    with pytest.raises(GeoJSONRejected) as refused:
        geojson_inspect(data=collection(*[bowtie] * 25), max_features=100, max_edge_tests=10_000)

    assert str(refused.value).count("Self-intersection at (0.5, 0.5)") == geojson.MAX_LISTED_PROBLEMS
    assert "and 15 more" in str(refused.value)
    assert len(validated) == 25 + geojson.MAX_LISTED_PROBLEMS  # each checked once, only the listed explained
