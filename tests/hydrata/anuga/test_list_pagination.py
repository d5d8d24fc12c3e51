"""Every list of a project's records is paginated like the projects list: count, next, previous, results, at most
100 a page (page_size up to 100)."""

import pytest

from hydrata.anuga.services.inputs import default_inputs_seed
from tests.data import DEM
from tests.factories import make_project, make_user
from tests.hydrata.anuga.test_terrain_api import api_for

pytestmark = pytest.mark.django_db(transaction=True)

PROJECTS = "/api/v2/anuga/projects/"
ROWS = [{"timestamp": "2024-01-01T00:00:00Z", "value": 0.0}, {"timestamp": "2024-01-01T00:15:00Z", "value": 5.0}]


def make_three(client, project_id: int, segment: str) -> None:
    for number in range(3):
        if segment == "terrain":
            with DEM.open("rb") as dem:
                response = client.post(f"{PROJECTS}{project_id}/terrain/upload/", {"file": dem}, format="multipart")
        elif segment == "time-series":
            response = client.post(
                f"{PROJECTS}{project_id}/time-series/",
                {"name": f"Gauge {number}", "series_type": "hyetograph", "units": "mm/hr", "data": {"rowData": ROWS}},
                format="json",
            )
        else:
            response = client.post(
                f"{PROJECTS}{project_id}/scenarios/",
                {"name": f"Scenario {number}", "resolution": 10, "duration": 300},
                format="json",
            )
        assert response.status_code in (201, 202), response.content


@pytest.mark.parametrize("segment", ["terrain", "time-series", "scenarios"])
def test_a_projects_list_comes_in_pages_of_the_size_asked_for(segment):
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    make_three(client, project.pk, segment)

    first = client.get(f"{PROJECTS}{project.pk}/{segment}/", {"page_size": 2}).json()
    second = client.get(f"{PROJECTS}{project.pk}/{segment}/", {"page_size": 2, "page": 2}).json()
    whole = client.get(f"{PROJECTS}{project.pk}/{segment}/").json()

    assert first["count"] == second["count"] == whole["count"] == 3
    assert len(first["results"]) == 2 and "page=2" in first["next"] and first["previous"] is None
    assert len(second["results"]) == 1 and second["next"] is None and second["previous"]
    ids = [row["id"] for row in first["results"] + second["results"]]
    assert sorted(ids) == sorted(row["id"] for row in whole["results"]) and len(set(ids)) == 3


def test_a_page_holds_at_most_100_rows_whatever_page_size_asks_for():
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    for number in range(101):
        assert (
            client.post(
                f"{PROJECTS}{project.pk}/time-series/",
                {
                    "name": f"Gauge {number:03}",
                    "series_type": "hyetograph",
                    "units": "mm/hr",
                    "data": {"rowData": ROWS},
                },
                format="json",
            ).status_code
            == 201
        )

    body = client.get(f"{PROJECTS}{project.pk}/time-series/", {"page_size": 100000}).json()

    assert body["count"] == 101 and len(body["results"]) == 100 and "page=2" in body["next"]


@pytest.mark.parametrize("segment", ["boundaries", "frictions", "inflows", "rainfalls", "structures", "mesh-regions"])
def test_the_input_rows_of_each_kind_are_paginated_too(segment):
    user = make_user()
    project = make_project(user)
    default_inputs_seed(project=project)

    body = api_for(user, level="read").get(f"{PROJECTS}{project.pk}/{segment}/", {"page_size": 1}).json()

    assert body["count"] == 1 and len(body["results"]) == 1 and body["next"] is None and body["previous"] is None
