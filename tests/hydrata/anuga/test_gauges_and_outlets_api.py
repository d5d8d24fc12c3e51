"""Gauges, flow lines, NormalDepth outlets, Dirichlet stages from a series and the inundation threshold over REST:
each refused when attached or built with a code and the feature named, and nothing half-stored."""

import json

import pytest

from hydrata.anuga.models import InputLayer, Run
from hydrata.storage import get_storage
from tests.data import BOUNDARY
from tests.factories import make_grant
from tests.model_setup import PROJECTS, api, attach, small_test_model, upload_geojson

pytestmark = pytest.mark.django_db(transaction=True)
INSIDE, OUTSIDE = [251100.0, 6271900.0], [251500.0, 6271900.0]


@pytest.fixture
def model(live_asgi):
    _, key = make_grant(level="draft")
    built = small_test_model(live_asgi.url, key)
    http = api(live_asgi.url, key)
    yield built, http
    http.close()


def collection(*features) -> dict:
    return {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "EPSG:28356"}},
        "features": list(features),
    }


def feature(geometry_type: str, coordinates, **properties) -> dict:
    return {
        "type": "Feature",
        "properties": properties,
        "geometry": {"type": geometry_type, "coordinates": coordinates},
    }


def attached(http, model, kind: str, *features):
    return attach(http, model, kind, upload_geojson(http, f"{kind}.geojson", collection(*features)))


def boundary_with(**changes) -> list[dict]:
    """small_test's boundary with its south edge (feature 0) changed."""
    features = json.loads(BOUNDARY.read_text())["features"]
    features[0]["properties"] = {"location": "External", **changes}
    return features


def test_gauges_are_named_points_and_flow_lines_named_lines(model):
    built, http = model

    gauges = attached(
        http,
        built,
        "gauge",
        feature("Point", INSIDE, name="bridge"),
        feature("Point", [251050.0, 6271850.0], name="school"),
    )
    lines = attached(
        http, built, "flow_line", feature("LineString", [[251050.0, 6271810.0], [251050.0, 6271990.0]], name="culvert")
    )

    assert gauges.status_code == 200 and gauges.json()["feature_count"] == 2
    assert lines.status_code == 200 and lines.json()["feature_count"] == 1


@pytest.mark.parametrize(
    ("kind", "features", "says"),
    [
        ("gauge", [feature("LineString", [INSIDE, OUTSIDE], name="a")], "points"),
        ("gauge", [feature("Point", INSIDE)], "'name'"),
        (
            "gauge",
            [feature("Point", INSIDE, name="bridge"), feature("Point", OUTSIDE, name="bridge")],
            "Feature 1 has name='bridge', as Feature 0 has",
        ),
        ("flow_line", [feature("Point", INSIDE, name="a")], "lines"),
        ("flow_line", [feature("LineString", [INSIDE, OUTSIDE])], "'name'"),
    ],
)
def test_gauges_and_flow_lines_that_do_not_fit_are_refused_saying_why(model, kind, features, says):
    built, http = model

    response = attached(http, built, kind, *features)

    assert response.status_code == 400 and response.json()["code"] == "FEATURES_DO_NOT_FIT_KIND"
    assert says in response.json()["detail"]
    assert InputLayer.objects.get(pk=built.rows[kind]).dataset is None


@pytest.mark.parametrize("slope", [None, 0, -0.002, "steep"])
def test_a_normal_depth_boundary_without_a_positive_slope_is_refused_naming_the_feature(model, slope):
    built, http = model
    properties = {"boundary": "NormalDepth"} | ({} if slope is None else {"slope": slope})

    response = attached(http, built, "boundary", *boundary_with(**properties))

    assert response.status_code == 400 and response.json()["code"] == "FEATURES_DO_NOT_FIT_KIND"
    detail = response.json()["detail"]
    assert "Feature 0 (id 'south') is a NormalDepth boundary" in detail and "slope" in detail
    assert InputLayer.objects.get(pk=built.rows["boundary"]).feature_count == 4  # small_test's, still attached


def test_a_normal_depth_outlet_with_its_slope_builds_into_a_mesh_tagged_normal_depth(model):
    built, http = model
    assert attached(http, built, "boundary", *boundary_with(boundary="NormalDepth", slope=0.01)).status_code == 200
    scenario = http.post(
        f"{PROJECTS}{built.project_id}/scenarios/", json={"name": "s", "resolution": 20, "duration": 60}
    ).json()

    build = http.post(f"{PROJECTS}{built.project_id}/scenarios/{scenario['id']}/build/")

    assert build.status_code == 202, build.text
    run = Run.objects.get()
    with get_storage().open(key=f"{run.package_prefix}/scenario.json") as stream:
        manifest = json.load(stream)
    assert "NormalDepth" in manifest["boundary_tags"] and run.status == "built"


def build_of(http, model, **fields):
    scenario = http.post(
        f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "s", "resolution": 20, "duration": 60, **fields}
    ).json()
    return http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/")


def test_a_dirichlet_stage_may_name_a_stage_series_and_a_missing_one_is_refused_at_build(model):
    built, http = model
    assert attached(http, built, "boundary", *boundary_with(boundary="Dirichlet", stage="tide")).status_code == 200

    missing = build_of(http, built)
    assert missing.status_code == 422 and missing.json()["code"] == "UNKNOWN_TIME_SERIES"
    assert missing.json()["name"] == "tide" and not Run.objects.exists()

    rows = [
        {"timestamp": "2024-01-01T00:00:00Z", "value": 975.0},
        {"timestamp": "2024-01-01T01:00:00Z", "value": 976.0},
    ]
    created = http.post(
        f"{PROJECTS}{built.project_id}/time-series/",
        json={"name": "tide", "series_type": "stage", "units": "m", "data": {"rowData": rows}},
    )
    assert created.status_code == 201, created.text
    assert build_of(http, built).status_code == 202


def test_a_gauge_outside_the_model_or_a_flow_line_that_misses_it_is_refused_at_build_by_name(model):
    built, http = model
    assert (
        attached(
            http, built, "gauge", feature("Point", INSIDE, name="bridge"), feature("Point", OUTSIDE, name="far away")
        ).status_code
        == 200
    )

    gauge = build_of(http, built)

    assert gauge.status_code == 422 and gauge.json()["code"] == "GAUGE_OUTSIDE_MESH"
    assert "'far away'" in gauge.json()["detail"] and gauge.json()["name"] == "far away"
    assert gauge.json()["fixable_in_map"] is True and not Run.objects.exists()
    assert attached(http, built, "gauge", feature("Point", INSIDE, name="bridge")).status_code == 200
    assert (
        attached(
            http,
            built,
            "flow_line",
            feature("LineString", [[251400.0, 6271800.0], [251400.0, 6272000.0]], name="beyond"),
        ).status_code
        == 200
    )
    line = build_of(http, built)
    assert line.status_code == 422 and line.json()["code"] == "FLOW_LINE_OUTSIDE_MESH"
    assert line.json()["name"] == "beyond" and not Run.objects.exists()


def test_the_inundation_threshold_is_a_scenario_setting_that_reaches_the_package(model):
    built, http = model
    path = f"{PROJECTS}{built.project_id}/scenarios/"

    default = http.post(path, json={"name": "a", "resolution": 20, "duration": 60}).json()
    chosen = http.post(
        path, json={"name": "b", "resolution": 20, "duration": 60, "inundation_threshold_m": 0.15}
    ).json()
    refused = http.post(path, json={"name": "c", "resolution": 20, "duration": 60, "inundation_threshold_m": 0})
    clone = http.post(f"{path}{chosen['id']}/clone/", json={"name": "b2"}).json()

    assert default["inundation_threshold_m"] == 0.05 and chosen["inundation_threshold_m"] == 0.15
    assert refused.status_code == 400 and refused.json()["code"] == "INVALID_INUNDATION_THRESHOLD"
    assert clone["inundation_threshold_m"] == 0.15
    assert http.post(f"{path}{chosen['id']}/build/").status_code == 202
    with get_storage().open(key=f"{Run.objects.get().package_prefix}/scenario.json") as stream:
        assert json.load(stream)["inundation_threshold_m"] == 0.15
