"""Projects under /api/v2/anuga/: scoped to what the caller may see, errors with machine codes."""

import pytest
from rest_framework.test import APIClient

from hydrata.anuga.models import Map, Project, ProjectMembership
from tests.factories import make_grant, make_project, make_user

pytestmark = pytest.mark.django_db
PROJECTS = "/api/v2/anuga/projects/"
PAST_THE_CAP = 103  # more projects than the largest page may hold


def api_for(user) -> APIClient:
    _, key = make_grant(user, level="draft")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def test_creating_a_project_makes_the_caller_owner_and_gives_it_a_base_map():
    user = make_user()

    response = api_for(user).post(PROJECTS, {"name": " Creek ", "projection": "epsg:28356"}, format="json")

    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "Creek" and body["projection"] == "EPSG:28356"
    assert body["role"] == "owner" and body["visibility"] == "private" and body["owner"] == user.username
    assert Map.objects.filter(pk=body["base_map"]).exists()
    assert ProjectMembership.objects.get(project_id=body["id"]).role == "owner"


@pytest.mark.parametrize(
    "projection, words",
    [
        ("EPSG:4326", "not a projected CRS"),
        ("EPSG:2230", "not metres"),  # NAD83 California zone 6, US survey feet
        ("EPSG:999999", "not a known"),
        ("UTM 56", "EPSG code"),
    ],
)
def test_a_projection_that_is_not_projected_metres_is_refused_with_a_reason(projection, words):
    response = api_for(make_user()).post(PROJECTS, {"name": "n", "projection": projection}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_PROJECTION"
    assert words in response.json()["detail"]
    assert not Project.objects.exists() and not Map.objects.exists()


def test_a_missing_field_is_a_validation_error_naming_it():
    response = api_for(make_user()).post(PROJECTS, {"projection": "EPSG:28356"}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_ERROR"
    assert response.json()["detail"].startswith("name:")


def test_a_body_that_is_not_json_is_a_parse_error_not_a_500():
    client = api_for(make_user())

    response = client.post(PROJECTS, data="{not json", content_type="application/json")

    assert response.status_code == 400
    assert response.json()["code"] == "PARSE_ERROR"


def test_the_list_is_paginated_and_page_size_is_capped_at_100():
    user = make_user()
    for i in range(PAST_THE_CAP):
        make_project(user, name=f"p{i}")
    client = api_for(user)

    first = client.get(PROJECTS, {"page_size": 2}).json()
    second = client.get(PROJECTS, {"page_size": 2, "page": 2}).json()
    capped = client.get(PROJECTS, {"page_size": 1000}).json()
    rest = client.get(PROJECTS, {"page_size": 1000, "page": 2}).json()

    assert first["count"] == PAST_THE_CAP and len(first["results"]) == 2 and first["previous"] is None
    assert "page=2" in first["next"]
    assert len(second["results"]) == 2 and "page=3" in second["next"] and second["previous"]
    assert len(capped["results"]) == 100 and "page=2" in capped["next"]
    assert len(rest["results"]) == PAST_THE_CAP - 100 and rest["next"] is None
    names = {p["name"] for p in capped["results"]} | {p["name"] for p in rest["results"]}
    assert names == {f"p{i}" for i in range(PAST_THE_CAP)}  # two pages, every project once


def test_a_page_past_the_end_is_404_with_a_code():
    response = api_for(make_user()).get(PROJECTS, {"page": 9})

    assert response.status_code == 404
    assert response.json()["code"] == "NOT_FOUND"


def test_a_project_the_caller_may_not_see_is_404_exactly_like_one_that_does_not_exist():
    hidden = make_project(make_user())
    client = api_for(make_user())

    invisible = client.get(f"{PROJECTS}{hidden.pk}/")
    missing = client.get(f"{PROJECTS}999999/")

    assert invisible.status_code == missing.status_code == 404
    assert invisible.json()["code"] == missing.json()["code"] == "PROJECT_NOT_FOUND"


@pytest.mark.parametrize("role", ["owner", "editor", "viewer"])
def test_members_see_the_project_with_their_role(role):
    user = make_user()
    project = make_project(make_user(), members={user: role}) if role != "owner" else make_project(user)

    response = api_for(user).get(f"{PROJECTS}{project.pk}/")

    assert response.status_code == 200 and response.json()["role"] == role


def test_public_projects_are_readable_by_everyone_signed_in():
    project = make_project(make_user(), is_public=True)

    response = api_for(make_user()).get(f"{PROJECTS}{project.pk}/")

    assert response.status_code == 200
    assert response.json()["visibility"] == "public" and response.json()["role"] == "public"


def test_the_map_endpoint_resolves_a_base_map_to_its_project_for_those_who_may_see_it():
    user = make_user()
    project = make_project(user, name="Creek")

    mine = api_for(user).get(f"/api/v2/anuga/maps/{project.base_map_id}/")
    theirs = api_for(make_user()).get(f"/api/v2/anuga/maps/{project.base_map_id}/")

    assert mine.status_code == 200 and mine.json()["project"]["name"] == "Creek"
    assert theirs.status_code == 404
