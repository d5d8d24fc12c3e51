"""The run series, impact and impact-tile endpoints over REST: what is refused before any file is read or written.
The numbers themselves are checked on real simulations in tests/hydrata_mcp/test_results.py."""

import pytest

from hydrata.storage import get_storage
from tests.factories import make_project, make_user
from tests.hydrata.observations.helpers import api_for, built_run

pytestmark = pytest.mark.django_db(transaction=True)
RUNS = "/api/v2/anuga/runs/"


@pytest.fixture
def runs():
    """Two built (not computed) runs: one of this caller, one of another account."""
    user, stranger = make_user(), make_user()
    client, their_client = api_for(user), api_for(stranger)
    mine = built_run(client, make_project(user).pk)
    theirs = built_run(their_client, make_project(stranger).pk)
    return client, mine, theirs


def test_another_accounts_run_is_not_found_for_series_impact_and_its_tiles_either_way_round(runs):
    client, mine, theirs = runs

    answers = [
        client.post(f"{RUNS}{theirs['id']}/time-series/", {}, format="json"),
        client.get(f"{RUNS}{theirs['id']}/impact/{mine['id']}/"),
        client.get(f"{RUNS}{mine['id']}/impact/{theirs['id']}/"),
        client.get(f"{RUNS}{theirs['id']}/impact/{mine['id']}/tiles/"),
        client.get(f"{RUNS}{mine['id']}/impact/{theirs['id']}/tiles/"),
        client.get(f"{RUNS}{theirs['id']}/impact/{mine['id']}/tiles/impact_depth/0/0/0.png"),
        client.get(f"{RUNS}{mine['id']}/impact/{theirs['id']}/tiles/impact_depth/0/0/0.png"),
    ]

    for response in answers:
        assert response.status_code == 404 and response.json()["code"] == "RUN_NOT_FOUND"


def test_a_run_that_is_not_complete_has_no_series_no_impact_and_no_impact_tiles(runs):
    client, mine, _ = runs

    answers = [
        client.post(f"{RUNS}{mine['id']}/time-series/", {"gauges": ["a"]}, format="json"),
        client.get(f"{RUNS}{mine['id']}/impact/{mine['id']}/"),
        client.get(f"{RUNS}{mine['id']}/impact/{mine['id']}/tiles/"),
        client.get(f"{RUNS}{mine['id']}/impact/{mine['id']}/tiles/impact_depth/0/0/0.png"),
    ]

    for response in answers:
        assert response.status_code == 409 and response.json()["code"] == "RUN_NOT_COMPLETE"
    assert not get_storage().exists(key=f"runs/{mine['id']}/results/compare/{mine['id']}/impact.json")


def test_series_arguments_are_checked_before_anything_is_read(runs):
    client, mine, _ = runs

    too_many = client.post(f"{RUNS}{mine['id']}/time-series/", {"points": [{"x": 1, "y": 2}] * 51}, format="json")
    not_a_list = client.post(f"{RUNS}{mine['id']}/time-series/", {"gauges": "bridge"}, format="json")

    for response in (too_many, not_a_list):
        assert response.status_code == 400 and response.json()["code"] == "VALIDATION_ERROR"


@pytest.mark.parametrize("crs", ["+init=epsg:4326", "+proj=longlat +datum=WGS84", 'GEOGCS["WGS 84"]', "EPSG:99999999"])
def test_a_series_crs_that_is_not_a_known_authority_code_is_refused_before_pyproj_reads_it(runs, crs):
    client, mine, _ = runs
    asked = {"points": [{"x": 1, "y": 2}], "crs": crs}

    response = client.post(f"{RUNS}{mine['id']}/time-series/", asked, format="json")

    assert response.status_code == 400 and response.json()["code"] == "INVALID_CRS"
