"""The site as built through the platform's REST API: structures, breaklines, culverts and weirs are attached by
kind, taken by a scenario, written into its package and meshed by the build; what the model cannot hold is
refused by name before anything is built."""

import json
import tempfile
from pathlib import Path

import pytest
import shapely

from hydrata.anuga.models import Run
from hydrata.compute.simulation.mesh import mesh_read
from hydrata.storage import get_storage
from tests.factories import make_grant
from tests.hydrata.anuga.test_gauges_and_outlets_api import attached, build_of, feature
from tests.model_setup import api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)

X, Y = 251001.0, 6271802.0  # small_test's south-west corner; it is 197 m square


def at(x: float, y: float) -> list[float]:
    return [X + x, Y + y]


def square(x0: float, y0: float, x1: float, y1: float) -> list[list[list[float]]]:
    return [[at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1), at(x0, y0)]]


HOUSE = square(80, 80, 110, 100)
CULVERT = feature("LineString", [at(40, 150), at(150, 150)], name="road", shape="pipe", diameter=0.9)
WEIR = feature("LineString", [at(20, 40), at(170, 40)], height=0.5)


@pytest.fixture
def model(live_asgi):
    _, key = make_grant(level="draft")
    built = small_test_model(live_asgi.url, key)
    http = api(live_asgi.url, key)
    yield built, http
    http.close()


def package_file(run: Run, name: str) -> bytes:
    with get_storage().open(key=f"{run.package_prefix}/{name}") as stream:
        return stream.read()


def test_the_site_as_built_reaches_the_package_and_the_mesh(model):
    built, http = model
    assert attached(http, built, "structure", feature("Polygon", HOUSE, method="Reflective")).status_code == 200
    assert attached(http, built, "breakline", feature("LineString", [at(20, 20), at(20, 180)])).status_code == 200
    assert attached(http, built, "culvert", CULVERT).status_code == 200
    assert attached(http, built, "weir", WEIR).status_code == 200

    build = build_of(http, built)

    assert build.status_code == 202, build.text
    run = Run.objects.get()
    assert run.status == "built", run.error_message
    manifest = json.loads(package_file(run, "scenario.json"))
    for kind in ("structure", "breakline", "culvert", "weir"):
        assert manifest[kind] == f"inputs/{kind}.geojson"
        assert json.loads(package_file(run, manifest[kind]))["features"]
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "mesh.msh"
        path.write_bytes(package_file(run, "mesh.msh"))
        mesh = mesh_read(path)
    centroids = mesh.nodes[mesh.triangles].mean(axis=1)
    assert not shapely.contains_xy(shapely.Polygon(HOUSE[0]), centroids[:, 0], centroids[:, 1]).any()
    nodes = shapely.points(mesh.nodes)
    for line in ([at(20, 20), at(20, 180)], WEIR["geometry"]["coordinates"]):  # edges follow them: nodes on them
        assert (shapely.distance(shapely.LineString(line), nodes) < 1e-3).sum() >= 6


@pytest.mark.parametrize(
    ("kind", "features", "says"),
    [
        ("gauge", [feature("Point", at(95, 90), name="in the house")], "swallows gauge 'in the house'"),
        ("culvert", [feature("LineString", [at(60, 90), at(95, 90)], name="c", shape="pipe", diameter=1)], "outlet"),
        ("flow_line", [feature("LineString", [at(100, 20), at(100, 180)], name="road")], "flow line"),
    ],
)
def test_a_hole_that_would_swallow_what_the_run_needs_is_refused_at_build_by_name(model, kind, features, says):
    built, http = model
    assert attached(http, built, "structure", feature("Polygon", HOUSE, method="Reflective")).status_code == 200
    assert attached(http, built, kind, *features).status_code == 200

    refused = build_of(http, built)

    assert refused.status_code == 422 and refused.json()["code"] == "SITE_FEATURE_INVALID", refused.text
    assert says in refused.json()["detail"] and refused.json()["fixable_in_map"] is True
    assert not Run.objects.exists()


def test_a_reflective_structure_across_the_boundary_is_refused_at_build(model):
    built, http = model
    across = feature("Polygon", square(-20, 80, 30, 100), method="Reflective", id="shed")
    assert attached(http, built, "structure", across).status_code == 200

    refused = build_of(http, built)

    assert refused.status_code == 422 and refused.json()["code"] == "SITE_FEATURE_INVALID"
    assert "not wholly inside the model boundary" in refused.json()["detail"] and not Run.objects.exists()


def test_a_culvert_end_outside_the_model_or_named_as_a_flow_line_is_refused_at_build(model):
    built, http = model
    outside = feature("LineString", [at(40, 150), at(250, 150)], name="long", shape="pipe", diameter=0.9)
    assert attached(http, built, "culvert", outside).status_code == 200

    refused = build_of(http, built)

    assert refused.status_code == 422 and "'long'" in refused.json()["detail"]
    assert "outlet" in refused.json()["detail"] and "outside the model boundary" in refused.json()["detail"]
    assert attached(http, built, "culvert", CULVERT).status_code == 200
    assert attached(http, built, "flow_line", feature("LineString", [at(60, 20), at(60, 180)], name="road"))
    named = build_of(http, built)
    assert named.status_code == 422 and "name of a flow line" in named.json()["detail"]
    assert not Run.objects.exists()


def test_a_weir_whose_crest_is_below_the_ground_all_along_fails_the_build_saying_so(model):
    built, http = model
    buried = feature("LineString", [at(20, 40), at(170, 40)], crest_elevation=900.0)  # the ground is 970 m and more
    assert attached(http, built, "weir", buried).status_code == 200

    build_of(http, built)

    run = Run.objects.get()
    assert run.status == "error" and "at or below the ground along its whole length" in run.user_message


def test_a_culvert_with_both_ends_in_one_triangle_fails_the_build_saying_so(model):
    built, http = model
    short = feature("LineString", [at(100, 150), at(100.5, 150)], name="stub", shape="box", width=0.3, height=0.3)
    assert attached(http, built, "culvert", short).status_code == 200

    build_of(http, built)

    run = Run.objects.get()
    assert run.status == "error" and "'stub' has both ends in one triangle" in run.user_message
