"""Single observations over REST: placed in the project CRS, checked before anything is stored, scoped to the
project."""

import pytest
from pyproj import Transformer
from rest_framework.test import APIClient

from hydrata.observations.models import Observation
from tests.factories import make_project, make_user
from tests.hydrata.observations.helpers import INSIDE, MGA56, PROJECTS, api_for, event_of, observation, with_terrain

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def mine():
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    return client, project, event_of(client, project.pk)


def test_an_observation_given_in_the_project_crs_is_stored_as_given(mine):
    client, project, event = mine

    response = observation(
        client,
        project.pk,
        event["id"],
        quantity="peak_depth",
        value_m=0.85,
        tolerance_m=0.1,
        source="Survey 2022-03-04",
        notes="mud line on the fence",
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["x"], body["y"], body["crs"]) == (*INSIDE, MGA56)
    assert body["given"] == {"x": INSIDE[0], "y": INSIDE[1], "crs": MGA56}
    assert (body["quantity"], body["value_m"], body["tolerance_m"]) == ("peak_depth", 0.85, 0.1)
    assert body["event"] == event["id"] and body["source"] == "Survey 2022-03-04"


def test_an_observation_in_longitude_latitude_is_placed_in_the_project_crs_as_pyproj_does(mine):
    client, project, event = mine
    lon, lat = Transformer.from_crs(MGA56, "EPSG:4326", always_xy=True).transform(*INSIDE)

    response = observation(client, project.pk, event["id"], x=lon, y=lat, crs="EPSG:4326")

    assert response.status_code == 201, response.content
    expected = Transformer.from_crs("EPSG:4326", MGA56, always_xy=True).transform(lon, lat)
    assert response.json()["x"] == pytest.approx(expected[0], abs=1e-6)
    assert response.json()["y"] == pytest.approx(expected[1], abs=1e-6)
    assert response.json()["given"] == {"x": lon, "y": lat, "crs": "EPSG:4326"}


@pytest.mark.parametrize("crs", ["EPSG:999999", "not a crs", "EPSG:5714"])  # unknown, unreadable, vertical only
def test_a_crs_pyproj_does_not_know_is_refused_and_nothing_is_stored(mine, crs):
    client, project, event = mine

    response = observation(client, project.pk, event["id"], crs=crs)

    assert response.status_code == 400 and response.json()["code"] == "INVALID_CRS"
    assert "EPSG:4326" in response.json()["detail"]
    assert not Observation.objects.exists()


@pytest.mark.parametrize("tolerance", [0, -0.1])
def test_a_tolerance_that_is_not_positive_is_refused_and_nothing_is_stored(mine, tolerance):
    client, project, event = mine

    response = observation(client, project.pk, event["id"], tolerance_m=tolerance)

    assert response.status_code == 400 and response.json()["code"] == "INVALID_TOLERANCE"
    assert not Observation.objects.exists()


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity", "high"])
def test_a_value_that_is_not_a_finite_number_is_refused_and_nothing_is_stored(mine, value):
    client, project, event = mine

    response = observation(client, project.pk, event["id"], value_m=value)

    assert response.status_code == 400 and response.json()["code"] == "VALIDATION_ERROR"
    assert "finite number of metres" in response.json()["detail"]
    assert not Observation.objects.exists()


def test_a_negative_peak_depth_is_refused(mine):
    client, project, event = mine

    response = observation(client, project.pk, event["id"], quantity="peak_depth", value_m=-0.2)

    assert response.status_code == 400 and response.json()["code"] == "NEGATIVE_DEPTH"


def test_a_point_outside_the_projects_terrain_is_refused_naming_the_extent(mine):
    client, project, event = mine
    with_terrain(client, project.pk)

    inside = observation(client, project.pk, event["id"])
    outside = observation(client, project.pk, event["id"], x=INSIDE[0] + 5000)

    assert inside.status_code == 201
    assert outside.status_code == 400 and outside.json()["code"] == "OUTSIDE_TERRAIN"
    assert "terrain" in outside.json()["detail"] and "256100.0" in outside.json()["detail"]
    assert Observation.objects.count() == 1


def test_an_event_of_another_project_cannot_receive_an_observation_through_this_one(mine):
    client, project, _ = mine
    other = make_project(project.owner, name="Other")
    theirs = event_of(client, other.pk)

    response = observation(client, project.pk, theirs["id"])

    assert response.status_code == 404 and response.json()["code"] == "EVENT_NOT_FOUND"
    assert not Observation.objects.exists()


def test_the_list_is_filtered_by_event_and_paginated(mine):
    client, project, event = mine
    second = event_of(client, project.pk, name="Later flood")
    for value in (1.0, 2.0):
        observation(client, project.pk, event["id"], value_m=value)
    observation(client, project.pk, second["id"], value_m=3.0)

    everything = client.get(f"{PROJECTS}{project.pk}/observations/")
    filtered = client.get(f"{PROJECTS}{project.pk}/observations/", {"event": second["id"]})
    unknown = client.get(f"{PROJECTS}{project.pk}/observations/", {"event": 999999})
    malformed = client.get(f"{PROJECTS}{project.pk}/observations/", {"event": "first"})

    assert everything.status_code == 200 and everything.json()["count"] == 3
    assert [o["value_m"] for o in filtered.json()["results"]] == [3.0]
    assert unknown.status_code == 404 and unknown.json()["code"] == "EVENT_NOT_FOUND"
    assert malformed.status_code == 400 and malformed.json()["code"] == "INVALID_EVENT_FILTER"


def test_the_schema_describes_the_list_as_the_contracts_page_taking_the_page_parameters():
    document = APIClient().get("/api/v2/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()

    listed = document["paths"]["/api/v2/anuga/projects/{project_id}/observations/"]["get"]
    assert listed["operationId"] == "anuga_projects_observations_list"
    assert {"event", "page", "page_size"} <= {parameter["name"] for parameter in listed["parameters"]}
    page = listed["responses"]["200"]["content"]["application/json"]["schema"]
    assert page == {"$ref": "#/components/schemas/ObservationPage"}


@pytest.mark.parametrize(
    "event_filter",
    ["9" * 5000, "9" * 400, "\u0663", "1e3"],
    ids=["5000 digits", "400 digits", "arabic-indic digit", "1e3"],
)
def test_an_event_filter_that_is_no_plain_id_is_400_invalid_event_filter_not_a_500(mine, event_filter):
    client, project, _ = mine

    response = client.get(f"{PROJECTS}{project.pk}/observations/", {"event": event_filter})

    assert response.status_code == 400, response.content
    assert response.json()["code"] == "INVALID_EVENT_FILTER" and len(response.json()["detail"]) < 200


def test_an_update_changes_only_what_it_names_and_a_move_is_placed_again(mine):
    client, project, event = mine
    created = observation(client, project.pk, event["id"], value_m=12.0, source="survey").json()
    path = f"{PROJECTS}{project.pk}/observations/{created['id']}/"
    lon, lat = Transformer.from_crs(MGA56, "EPSG:4326", always_xy=True).transform(251150.0, 6271950.0)

    raised = client.patch(path, {"value_m": 12.5}, format="json")
    moved = client.patch(path, {"x": lon, "y": lat, "crs": "EPSG:4326"}, format="json")

    assert raised.status_code == 200 and raised.json()["value_m"] == 12.5
    assert raised.json()["source"] == "survey" and raised.json()["tolerance_m"] == 0.3
    assert moved.status_code == 200, moved.content
    assert moved.json()["x"] == pytest.approx(251150.0, abs=1e-6)
    assert moved.json()["y"] == pytest.approx(6271950.0, abs=1e-6)
    assert moved.json()["value_m"] == 12.5


def test_an_update_with_half_a_position_or_a_bad_tolerance_changes_nothing(mine):
    client, project, event = mine
    created = observation(client, project.pk, event["id"]).json()
    path = f"{PROJECTS}{project.pk}/observations/{created['id']}/"

    half = client.patch(path, {"x": 251150.0}, format="json")
    bad = client.patch(path, {"tolerance_m": 0, "value_m": 20.0}, format="json")

    assert half.status_code == 400 and half.json()["code"] == "POSITION_INCOMPLETE"
    assert bad.status_code == 400 and bad.json()["code"] == "INVALID_TOLERANCE"
    stored = Observation.objects.get()
    assert (stored.x, stored.value_m, stored.tolerance_m) == (INSIDE[0], 12.3, 0.3)


def test_a_deleted_observation_is_gone(mine):
    client, project, event = mine
    created = observation(client, project.pk, event["id"]).json()
    path = f"{PROJECTS}{project.pk}/observations/{created['id']}/"

    deleted = client.delete(path)
    after = client.get(path)

    assert deleted.status_code == 204
    assert after.status_code == 404 and after.json()["code"] == "OBSERVATION_NOT_FOUND"


def test_another_accounts_observation_is_404_to_read_change_and_delete(mine):
    client, project, event = mine
    created = observation(client, project.pk, event["id"]).json()
    path = f"{PROJECTS}{project.pk}/observations/{created['id']}/"
    stranger = api_for(make_user())

    answers = [stranger.get(path), stranger.patch(path, {"value_m": 1.0}, format="json"), stranger.delete(path)]

    assert [a.status_code for a in answers] == [404, 404, 404]
    assert Observation.objects.get().value_m == 12.3


def test_an_observation_of_another_project_is_not_found_through_this_one(mine):
    client, project, _ = mine
    other = make_project(project.owner, name="Other")
    theirs = observation(client, other.pk, event_of(client, other.pk)["id"]).json()

    response = client.get(f"{PROJECTS}{project.pk}/observations/{theirs['id']}/")

    assert response.status_code == 404 and response.json()["code"] == "OBSERVATION_NOT_FOUND"
