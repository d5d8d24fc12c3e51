"""Scenarios over REST: references stay inside the project, changes invalidate builds, one build at a time."""

import json

import pytest
from rest_framework.test import APIClient

from hydrata.anuga.models import Run, Scenario
from hydrata_contract.states import RunStatus
from tests.data import RAINFALL
from tests.factories import make_grant, make_project, make_user
from tests.model_setup import PROJECTS, api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def model(live_asgi):
    grant, key = make_grant(level="draft")
    built = small_test_model(live_asgi.url, key)
    http = api(live_asgi.url, key)
    yield built, http, grant
    http.close()


def scenarios_path(model) -> str:
    return f"{PROJECTS}{model.project_id}/scenarios/"


def create(http, model, **fields):
    return http.post(scenarios_path(model), json={"name": "s", "resolution": 5, "duration": 600, **fields})


def test_a_scenario_without_references_takes_the_ready_terrain_and_the_rows_with_features(model):
    built, http, _ = model

    body = create(http, built).json()

    assert body["terrain"] == built.terrain_id
    assert body["boundary"] == built.rows["boundary"] and body["rainfall"] == built.rows["rainfall"]
    assert body["friction"] is None and body["computed_status"] == "created" and "status" not in body
    assert body["latest_run"] is None and body["currency"] == "USD"


def test_a_reference_to_another_projects_row_is_refused_naming_the_field(model, live_asgi):
    built, http, grant = model
    other = make_project(grant.user)

    response = http.post(
        f"{PROJECTS}{other.pk}/scenarios/",
        json={"name": "s", "resolution": 5, "duration": 60, "boundary": built.rows["boundary"]},
    )

    assert response.status_code == 400
    assert response.json()["code"] == "REFERENCE_NOT_IN_PROJECT" and response.json()["field"] == "boundary"


@pytest.mark.parametrize(
    "fields, code", [({"resolution": 0}, "INVALID_RESOLUTION"), ({"duration": 0}, "INVALID_DURATION")]
)
def test_impossible_numbers_are_refused(model, fields, code):
    built, http, _ = model

    response = create(http, built, **fields)

    assert response.status_code == 400 and response.json()["code"] == code
    assert not Scenario.objects.exists()


def test_a_scenario_without_ready_terrain_is_refused_with_no_terrain(model):
    built, http, _ = model
    scenario = create(http, built, terrain=None).json()

    response = http.post(f"{scenarios_path(built)}{scenario['id']}/build/")

    assert response.status_code == 422 and response.json()["code"] == "NO_TERRAIN"
    assert not Run.objects.exists()


def test_a_second_build_while_one_is_in_flight_is_409_naming_the_run(model):
    built, http, _ = model
    scenario = create(http, built).json()
    in_flight = Run.objects.create(scenario_id=scenario["id"], status=RunStatus.BUILDING, resolution=5, duration=600)

    response = http.post(f"{scenarios_path(built)}{scenario['id']}/build/")

    assert response.status_code == 409
    assert response.json()["code"] == "BUILD_IN_FLIGHT" and response.json()["run_id"] == in_flight.pk
    assert Run.objects.count() == 1


def test_a_build_is_accepted_and_any_patch_marks_it_invalid(model):
    built, http, _ = model
    scenario = create(http, built).json()
    accepted = http.post(f"{scenarios_path(built)}{scenario['id']}/build/")
    after_build = http.get(f"{scenarios_path(built)}{scenario['id']}/").json()
    patched = http.patch(f"{scenarios_path(built)}{scenario['id']}/", json={"description": "wetter"}).json()

    assert accepted.status_code == 202 and accepted.json()["run"]["status"] == "created"
    assert after_build["computed_status"] == "built" and after_build["latest_run_is_valid"] is True
    assert after_build["latest_run"]["mesh_triangle_count"] > 0
    assert patched["latest_run_is_valid"] is False and patched["description"] == "wetter"


def test_the_built_package_holds_the_manifest_mesh_dem_and_inputs(model):
    from hydrata.storage import get_storage

    built, http, _ = model
    scenario = create(http, built).json()
    http.post(f"{scenarios_path(built)}{scenario['id']}/build/")
    run = Run.objects.get()
    storage = get_storage()

    with storage.open(key=f"{run.package_prefix}/scenario.json") as stream:
        manifest = json.load(stream)

    assert manifest["format_version"] == "1.0" and manifest["epsg"] == "EPSG:28356"
    assert manifest["mesh_triangle_count"] == run.mesh_triangle_count
    assert manifest["boundary_tags"].keys() >= {"Reflective", "Transmissive"}
    for key in ("mesh", "elevation", "boundary", "rainfall"):
        assert storage.exists(key=f"{run.package_prefix}/{manifest[key]}")
    assert manifest["friction"] is None


def test_rainfall_naming_a_missing_time_series_is_refused_before_a_run_is_made(model, live_asgi):
    from tests.model_setup import attach, upload_geojson

    built, http, _ = model
    collection = json.loads(RAINFALL.read_text())
    collection["features"][0]["properties"]["data"] = "Gauge that does not exist"
    assert attach(http, built, "rainfall", upload_geojson(http, "rain.geojson", collection)).status_code == 200
    scenario = create(http, built).json()

    response = http.post(f"{scenarios_path(built)}{scenario['id']}/build/")

    assert response.status_code == 422 and response.json()["code"] == "UNKNOWN_TIME_SERIES"
    assert not Run.objects.exists()


@pytest.mark.parametrize(
    ("units", "rows", "code", "says"),
    [
        ("mm", [0.0, 5.0], "UNKNOWN_UNITS", "mm/hr (rain intensity); mm/interval"),  # stored before units were read
        ("m3/s", [0.0, 5.0], "UNKNOWN_UNITS", "cannot apply as rain"),
        ("mm cumulative", [5.0, 4.0], "CUMULATIVE_DECREASES", "never decreases"),
    ],
)
def test_rainfall_naming_a_series_whose_units_or_values_cannot_be_rain_is_refused_before_a_run_is_made(
    model, units, rows, code, says
):
    from hydrata.anuga.models import TimeSeries
    from tests.model_setup import attach, upload_geojson

    built, http, grant = model
    TimeSeries.objects.create(  # as a row stored before units were read may be
        project_id=built.project_id,
        name="Old gauge",
        series_type="generic",
        units=units,
        rows=[{"timestamp": f"2024-01-01T00:0{n}:00Z", "value": value} for n, value in enumerate(rows)],
        row_count=2,
        first_timestamp="2024-01-01T00:00:00Z",
        last_timestamp="2024-01-01T00:01:00Z",
        created_by=grant.user,
    )
    collection = json.loads(RAINFALL.read_text())
    collection["features"][0]["properties"]["data"] = "Old gauge"
    assert attach(http, built, "rainfall", upload_geojson(http, "rain.geojson", collection)).status_code == 200
    scenario = create(http, built).json()

    response = http.post(f"{scenarios_path(built)}{scenario['id']}/build/")

    assert response.status_code == 422, response.text
    body = response.json()
    assert body["code"] == code and body["name"] == "Old gauge" and says in body["detail"]
    assert body["detail"].startswith("rainfall feature 0: ")
    if code == "UNKNOWN_UNITS":
        assert body["accepted"] == ["mm/hr", "mm/interval", "mm cumulative"]
    assert not Run.objects.exists()


def test_a_non_member_of_a_public_project_reads_a_reduced_scenario(model, live_asgi):
    built, http, _ = model
    scenario = create(http, built).json()
    from hydrata.anuga.models import Project

    Project.objects.filter(pk=built.project_id).update(is_public=True)
    _, stranger_key = make_grant(make_user(), level="read")

    with api(live_asgi.url, stranger_key) as stranger:
        body = stranger.get(f"{scenarios_path(built)}{scenario['id']}/").json()

    assert body["reduced"] is True and body["name"] == "s"
    assert "compute_cost_estimate" not in body and "boundary" not in body


def test_a_viewer_cannot_build(model, live_asgi):
    built, http, _grant = model
    scenario = create(http, built).json()
    viewer = make_user()
    from hydrata.anuga.models import ProjectMembership

    ProjectMembership.objects.create(project_id=built.project_id, user=viewer, role="viewer")
    _, viewer_key = make_grant(viewer, level="launch")

    with api(live_asgi.url, viewer_key) as as_viewer:
        response = as_viewer.post(f"{scenarios_path(built)}{scenario['id']}/build/")

    assert response.status_code == 403 and response.json()["code"] == "PROJECT_READ_ONLY"


@pytest.fixture
def bare_scenario():
    """A scenario of an empty project (no terrain or inputs): enough to clone and edit."""
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    scenario = client.post(
        f"{PROJECTS}{project.pk}/scenarios/", {"name": "s", "resolution": 5, "duration": 600}, format="json"
    ).json()
    return client, f"{PROJECTS}{project.pk}/scenarios/{scenario['id']}/"


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"duration": "abc"}, "duration"),
        ({"resolution": [1]}, "resolution"),
        ({"model_start": "yesterday"}, "model_start"),
        ({"description": "d" * 5001}, "description"),
    ],
)
def test_clone_overrides_are_validated_like_a_new_scenario(bare_scenario, overrides, field):
    client, path = bare_scenario

    response = client.post(f"{path}clone/", {"name": "copy", "overrides": overrides}, format="json")

    assert response.status_code == 400, response.content
    assert response.json()["code"] == "VALIDATION_ERROR" and field in response.json()["detail"]
    assert Scenario.objects.count() == 1


def test_valid_clone_overrides_are_applied(bare_scenario):
    client, path = bare_scenario

    response = client.post(
        f"{path}clone/", {"name": "copy", "overrides": {"duration": "1200", "resolution": 2}}, format="json"
    )

    assert response.status_code == 201, response.content
    assert response.json()["duration"] == 1200 and response.json()["resolution"] == 2.0


def test_a_description_over_the_length_limit_is_refused(bare_scenario):
    client, path = bare_scenario

    response = client.patch(path, {"description": "d" * 5001}, format="json")

    assert response.status_code == 400 and response.json()["code"] == "VALIDATION_ERROR"
    assert "description" in response.json()["detail"] and "5000" in response.json()["detail"]


def test_a_scenario_says_what_its_rain_and_inflow_apply_over_the_run_and_what_it_cannot_apply(model):
    from tests.model_setup import attach, upload_geojson

    built, http, _ = model
    rows = [{"timestamp": f"2024-01-01T00:{minute:02d}:00Z", "value": value} for minute, value in ((0, 0), (10, 6))]
    for name, series_type, units in (("creek", "hydrograph", "m3/s"), ("storm", "hyetograph", "mm per interval")):
        body = {"name": name, "series_type": series_type, "units": units, "data": {"rowData": rows}}
        assert http.post(f"{PROJECTS}{built.project_id}/time-series/", json=body).status_code == 201
    line = {"type": "LineString", "coordinates": [[251020.0, 6271850.0], [251020.0, 6271950.0]]}
    inflow = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "EPSG:28356"}},
        "features": [
            {"type": "Feature", "properties": {"type": "Surface", "data": "creek"}, "geometry": line},
            {"type": "Feature", "properties": {"type": "Surface", "data": "2"}, "geometry": line},
        ],
    }
    assert attach(http, built, "inflow", upload_geojson(http, "inflow.geojson", inflow)).status_code == 200
    rainfall = json.loads(RAINFALL.read_text())
    rainfall["features"] = [rainfall["features"][0], json.loads(json.dumps(rainfall["features"][0]))]
    rainfall["features"][0]["properties"]["data"] = "storm"
    rainfall["features"][1]["properties"]["data"] = "creek"  # a flow is no rain
    assert attach(http, built, "rainfall", upload_geojson(http, "rain.geojson", rainfall)).status_code == 200

    forcing = create(http, built, duration=900).json()["forcing"]

    # 6 mm in the ten minutes to 00:10: 36 mm/h; the creek rises to 6 m3/s at 00:10 and stops
    assert forcing["rainfall"][0] == {
        "feature": "Rainfall feature 0 (id 'rainfall_1')",
        "data": "storm",
        "total_depth_mm": pytest.approx(6),
        "peak_intensity_mm_per_h": pytest.approx(36),
    }
    assert "cannot apply as rain" in forcing["rainfall"][1]["problem"] and len(forcing["problems"]) == 1
    assert forcing["rain_total_depth_mm"] == pytest.approx(6)
    assert [line["volume_m3"] for line in forcing["inflow"]] == pytest.approx([1800, 1800])
    assert forcing["inflow_volume_m3"] == pytest.approx(3600) and forcing["inflow_peak_m3_per_s"] == pytest.approx(6)
