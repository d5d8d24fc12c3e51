"""What the map draws as vectors: an input row's features and a scenario's built mesh, in WGS84, scoped."""

import pytest

from tests.factories import make_grant, make_user
from tests.model_setup import PROJECTS, api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)
SMALL_TEST_WGS84 = (150.3145, -33.6647, 150.3168, -33.6627)  # a little beyond the DEM


@pytest.fixture
def model(live_asgi):
    _, key = make_grant(level="draft")
    built = small_test_model(live_asgi.url, key)
    with api(live_asgi.url, key) as http:
        yield built, http


def inside_small_test(lon: float, lat: float) -> bool:
    west, south, east, north = SMALL_TEST_WGS84
    return west <= lon <= east and south <= lat <= north


def build(http, model, **fields) -> dict:
    scenario = http.post(
        f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "mesh me", "resolution": 10, "duration": 60, **fields}
    ).json()
    assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").status_code == 202
    return scenario


def test_an_input_rows_features_are_served_in_wgs84_with_their_properties(model):
    built, http = model

    response = http.get(f"{PROJECTS}{built.project_id}/boundaries/{built.rows['boundary']}/features/")

    assert response.status_code == 200
    body = response.json()
    assert body["type"] == "FeatureCollection" and body["kind"] == "boundary"
    assert len(body["features"]) == body["feature_count"] > 0
    for feature in body["features"]:
        assert feature["properties"]["boundary"] and feature["properties"]["location"]
        assert all(inside_small_test(lon, lat) for lon, lat in feature["geometry"]["coordinates"])


def test_an_empty_row_has_no_features(model):
    built, http = model

    body = http.get(f"{PROJECTS}{built.project_id}/frictions/{built.rows['friction']}/features/").json()

    assert body["features"] == [] and body["feature_count"] == 0


def test_another_accounts_features_and_mesh_are_not_found(model, live_asgi):
    built, http = model
    scenario = build(http, built)
    _, stranger = make_grant(make_user("mallory"), level="read")

    with api(live_asgi.url, stranger) as other:
        features = other.get(f"{PROJECTS}{built.project_id}/boundaries/{built.rows['boundary']}/features/")
        mesh = other.get(f"{PROJECTS}{built.project_id}/scenarios/{scenario['id']}/mesh/")

    assert features.status_code == mesh.status_code == 404
    assert features.json()["code"] == mesh.json()["code"] == "PROJECT_NOT_FOUND"


def test_a_scenario_that_was_never_built_has_no_mesh(model):
    built, http = model
    scenario = http.post(
        f"{PROJECTS}{built.project_id}/scenarios/", json={"name": "draft", "resolution": 10, "duration": 60}
    ).json()

    response = http.get(f"{PROJECTS}{built.project_id}/scenarios/{scenario['id']}/mesh/")

    assert response.status_code == 409 and response.json()["code"] == "SCENARIO_NOT_BUILT"


def test_a_built_mesh_shows_its_outline_and_the_triangles_of_a_view(model):
    built, http = model
    scenario = build(http, built)
    run = http.get(f"{PROJECTS}{built.project_id}/scenarios/{scenario['id']}/").json()["latest_run"]

    whole = http.get(
        f"{PROJECTS}{built.project_id}/scenarios/{scenario['id']}/mesh/",
        params={"bbox": ",".join(map(str, SMALL_TEST_WGS84))},
    ).json()

    assert whole["triangle_count"] == run["mesh_triangle_count"] and whole["current"] is True
    assert whole["outline"] and all(inside_small_test(*end) for segment in whole["outline"] for end in segment)
    view = whole["view"]
    assert view["triangle_count"] == whole["triangle_count"] and view["truncated"] is False
    assert len(view["edges"]) > whole["triangle_count"]  # each triangle has three edges, shared by two


def test_a_view_with_too_many_triangles_sends_none_and_says_so(model, settings):
    built, http = model
    scenario = build(http, built)
    settings.HYDRATA_MESH_VIEW_MAX_TRIANGLES = 10

    body = http.get(
        f"{PROJECTS}{built.project_id}/scenarios/{scenario['id']}/mesh/",
        params={"bbox": ",".join(map(str, SMALL_TEST_WGS84))},
    ).json()

    assert body["view"]["truncated"] is True and body["view"]["edges"] == [] and body["view"]["limit"] == 10
    assert body["outline"]


@pytest.mark.parametrize("bbox", ["1,2,3", "a,b,c,d", "10,0,5,1", "0,50,1,40", "-200,0,0,1"])
def test_a_bad_bbox_is_400(model, bbox):
    built, http = model
    scenario = http.post(
        f"{PROJECTS}{built.project_id}/scenarios/", json={"name": "draft", "resolution": 10, "duration": 60}
    ).json()

    response = http.get(f"{PROJECTS}{built.project_id}/scenarios/{scenario['id']}/mesh/", params={"bbox": bbox})

    assert response.status_code == 400 and response.json()["code"] == "INVALID_BBOX"
