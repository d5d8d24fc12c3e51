"""Flood events over REST: created in a project the caller may change, read by those who may see it."""

import pytest

from hydrata.observations.models import FloodEvent
from tests.factories import make_project, make_user
from tests.hydrata.observations.helpers import PROJECTS, api_for, event_of, observation

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_event_is_created_and_listed_with_its_observation_count():
    user = make_user()
    client = api_for(user)
    project = make_project(user)

    created = client.post(
        f"{PROJECTS}{project.pk}/events/",
        {
            "name": "March 2022 flood",
            "started_at": "2022-03-01T00:00:00Z",
            "ended_at": "2022-03-03T00:00:00Z",
            "description": "The creek broke its banks.",
        },
        format="json",
    )
    assert observation(client, project.pk, created.json()["id"]).status_code == 201
    listed = client.get(f"{PROJECTS}{project.pk}/events/")
    detail = client.get(f"{PROJECTS}{project.pk}/events/{created.json()['id']}/")

    assert created.status_code == 201, created.content
    body = created.json()
    assert body["name"] == "March 2022 flood" and body["project"] == project.pk
    assert body["ended_at"] == "2022-03-03T00:00:00Z" and body["observation_count"] == 0
    assert listed.status_code == 200 and [e["id"] for e in listed.json()["results"]] == [body["id"]]
    assert listed.json()["results"][0]["observation_count"] == 1
    assert detail.status_code == 200 and detail.json()["observation_count"] == 1


def test_an_event_that_ends_before_it_starts_is_refused_and_nothing_is_stored():
    user = make_user()
    project = make_project(user)

    response = api_for(user).post(
        f"{PROJECTS}{project.pk}/events/",
        {"name": "Backwards", "started_at": "2022-03-02T00:00:00Z", "ended_at": "2022-03-01T00:00:00Z"},
        format="json",
    )

    assert response.status_code == 400 and response.json()["code"] == "EVENT_ENDS_BEFORE_START"
    assert not FloodEvent.objects.exists()


def test_an_event_without_a_start_is_a_validation_error_naming_the_field():
    user = make_user()
    project = make_project(user)

    response = api_for(user).post(f"{PROJECTS}{project.pk}/events/", {"name": "When?"}, format="json")

    assert response.status_code == 400 and response.json()["code"] == "VALIDATION_ERROR"
    assert response.json()["detail"].startswith("started_at")


def test_a_read_key_cannot_create_an_event_and_is_told_the_level_it_needs():
    user = make_user()
    project = make_project(user)

    response = api_for(user, level="read").post(
        f"{PROJECTS}{project.pk}/events/", {"name": "x", "started_at": "2022-03-01T00:00:00Z"}, format="json"
    )

    assert response.status_code == 403 and response.json()["code"] == "GRANT_LEVEL_TOO_LOW"
    assert response.json()["required_level"] == "draft"


def test_another_accounts_event_is_404_and_their_project_is_not_found_for_writing():
    owner, stranger = make_user(), make_user()
    project = make_project(owner)
    event = event_of(api_for(owner), project.pk)
    client = api_for(stranger)

    read = client.get(f"{PROJECTS}{project.pk}/events/{event['id']}/")
    listed = client.get(f"{PROJECTS}{project.pk}/events/")
    written = client.post(
        f"{PROJECTS}{project.pk}/events/", {"name": "x", "started_at": "2022-03-01T00:00:00Z"}, format="json"
    )

    assert read.status_code == 404 and listed.status_code == 404 and written.status_code == 404
    assert {r.json()["code"] for r in (read, listed, written)} == {"PROJECT_NOT_FOUND"}


def test_an_event_of_another_project_is_not_found_through_this_one():
    user = make_user()
    client = api_for(user)
    mine, other = make_project(user), make_project(user, name="Other")
    event = event_of(client, other.pk)

    response = client.get(f"{PROJECTS}{mine.pk}/events/{event['id']}/")

    assert response.status_code == 404 and response.json()["code"] == "EVENT_NOT_FOUND"


def test_a_viewer_reads_events_but_cannot_create_one():
    owner, viewer = make_user(), make_user()
    project = make_project(owner, members={viewer: "viewer"})
    event_of(api_for(owner), project.pk)
    client = api_for(viewer)

    listed = client.get(f"{PROJECTS}{project.pk}/events/")
    written = client.post(
        f"{PROJECTS}{project.pk}/events/", {"name": "x", "started_at": "2022-03-01T00:00:00Z"}, format="json"
    )

    assert listed.status_code == 200 and len(listed.json()["results"]) == 1
    assert written.status_code == 403 and written.json()["code"] == "PROJECT_READ_ONLY"


def test_an_events_points_are_its_observations_in_wgs84_where_they_were_given():
    user = make_user()
    client = api_for(user)
    project = make_project(user)  # MGA zone 56: the observations are stored in metres
    event = event_of(client, project.pk)
    given = [(151.2093, -33.8688), (151.2101, -33.8679)]
    for lon, lat in given:
        assert observation(client, project.pk, event["id"], x=lon, y=lat, crs="EPSG:4326").status_code == 201

    response = client.get(f"{PROJECTS}{project.pk}/events/{event['id']}/points/")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["type"] == "FeatureCollection" and body["event"] == event["id"] and body["feature_count"] == 2
    placed = [feature["geometry"]["coordinates"] for feature in body["features"]]
    assert placed == [pytest.approx([lon, lat], abs=1e-6) for lon, lat in given]
    assert body["bbox_wgs84"] == pytest.approx([151.2093, -33.8688, 151.2101, -33.8679], abs=1e-6)
    assert body["features"][0]["properties"] == {
        "observation_id": body["features"][0]["id"],
        "quantity": "peak_stage",
        "value_m": 12.3,
        "tolerance_m": 0.3,
        "source": "",
    }


def test_an_event_no_run_was_compared_with_ranks_no_comparisons():
    user = make_user()
    client = api_for(user, level="read")
    project = make_project(user)
    event = event_of(api_for(user), project.pk)

    response = client.get(f"{PROJECTS}{project.pk}/events/{event['id']}/comparisons/")

    assert response.status_code == 200, response.content
    assert response.json() == {"event": event["id"], "event_name": event["name"], "results": []}


def test_another_accounts_event_points_and_comparisons_are_404_and_another_projects_event_too():
    owner, stranger = make_user(), make_user()
    project, other = make_project(owner), make_project(owner, name="Other")
    event = event_of(api_for(owner), project.pk)
    theirs = [api_for(stranger).get(f"{PROJECTS}{project.pk}/events/{event['id']}/{what}/") for what in WHAT]
    elsewhere = [api_for(owner).get(f"{PROJECTS}{other.pk}/events/{event['id']}/{what}/") for what in WHAT]

    assert [(r.status_code, r.json()["code"]) for r in theirs] == [(404, "PROJECT_NOT_FOUND")] * 2
    assert [(r.status_code, r.json()["code"]) for r in elsewhere] == [(404, "EVENT_NOT_FOUND")] * 2


WHAT = ("points", "comparisons")


@pytest.mark.parametrize("offset", ["-17:15", "+15:59"])
def test_an_event_started_at_an_offset_postgresql_cannot_hold_is_stored_and_answered_in_utc(offset):
    user = make_user()
    project = make_project(user)

    created = api_for(user).post(
        f"{PROJECTS}{project.pk}/events/", {"name": "Far east", "started_at": f"2022-03-01T12:00:00{offset}"}
    )

    assert created.status_code == 201, created.content
    stored = FloodEvent.objects.get().started_at
    assert stored.utcoffset().total_seconds() == 0 and created.json()["started_at"].endswith("Z")


def test_an_event_whose_start_leaves_the_calendar_in_utc_is_refused_and_nothing_is_stored():
    user = make_user()
    project = make_project(user)

    response = api_for(user).post(
        f"{PROJECTS}{project.pk}/events/", {"name": "Year one", "started_at": "0001-01-01T00:30:00+01:00"}
    )

    assert response.status_code == 400 and response.json()["field"] == "started_at"
    assert not FloodEvent.objects.exists()
