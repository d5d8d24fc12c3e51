from hydrata_mcp.ui.shapes import outline_rings, simplified_features, vertex_count


def square_ring(n: int) -> list[list[float]]:
    side = [[153 + i / n, -27.0] for i in range(n)] + [[154.0, -27 + i / n] for i in range(n)]
    side += [[154 - i / n, -26.0] for i in range(n)] + [[153.0, -26 + i / n] for i in range(n)]
    return [*side, side[0]]


def test_a_large_collection_is_cut_to_about_the_vertex_budget_keeping_rings_closed():
    collection = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "geometry": {"type": "Polygon", "coordinates": [square_ring(2500)]},
                "properties": {"boundary": "Reflective", "secret": "x" * 500},
            }
        ],
    }

    cut = simplified_features(collection, max_vertices=500, keep=frozenset({"boundary"}))

    ring = cut["features"][0]["geometry"]["coordinates"][0]
    assert vertex_count(ring) <= 520
    assert ring[0] == ring[-1]
    assert cut["features"][0]["properties"] == {"boundary": "Reflective"}


def test_coordinates_are_rounded_to_about_ten_centimetres():
    collection = {
        "features": [{"geometry": {"type": "Point", "coordinates": [153.123456789, -27.987654321]}, "properties": {}}]
    }

    point = simplified_features(collection, max_vertices=10, keep=frozenset())["features"][0]["geometry"]

    assert point["coordinates"] == [153.123457, -27.987654]


def test_a_mesh_outline_of_loose_edges_becomes_one_closed_line():
    ring = square_ring(50)
    edges = [[ring[i], ring[i + 1]] for i in range(len(ring) - 1)][::-1]

    lines = outline_rings(edges, max_vertices=1000)

    assert len(lines) == 1
    assert len(lines[0]) == len(ring)
    assert lines[0][0] == lines[0][-1]
