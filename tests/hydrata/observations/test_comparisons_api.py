"""Comparisons and rankings over REST: what is refused before anything is computed. The numbers themselves are
checked on real simulations in tests/hydrata_mcp/test_observations.py."""

import pytest

from hydrata.observations.models import Comparison
from tests.factories import make_project, make_user
from tests.hydrata.observations.helpers import PROJECTS, api_for, built_run, event_of, observation

pytestmark = pytest.mark.django_db(transaction=True)
RUNS = "/api/v2/anuga/runs/"


@pytest.fixture
def built():
    """A project with a built (not computed) run and an event with one observation."""
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    run = built_run(client, project.pk)
    event = event_of(client, project.pk)
    assert observation(client, project.pk, event["id"]).status_code == 201
    return client, project, run, event


def test_a_run_that_is_not_complete_is_refused_with_409_and_its_status(built):
    client, project, run, event = built

    compared = client.post(f"{RUNS}{run['id']}/compare/", {"event": event["id"]}, format="json")
    ranked = client.post(
        f"{PROJECTS}{project.pk}/rankings/", {"event": event["id"], "runs": [run["id"]]}, format="json"
    )

    for response in (compared, ranked):
        assert response.status_code == 409 and response.json()["code"] == "RUN_NOT_COMPLETE"
        assert response.json()["status"] == "built" and response.json()["run"] == run["id"]
    assert "get_run_status" in compared.json()["detail"]
    assert not Comparison.objects.exists()


def test_a_run_of_another_project_cannot_be_compared_with_this_projects_event(built):
    client, project, run, _ = built
    other = make_project(project.owner, name="Other")
    theirs = event_of(client, other.pk)
    observation(client, other.pk, theirs["id"])

    compared = client.post(f"{RUNS}{run['id']}/compare/", {"event": theirs["id"]}, format="json")
    ranked = client.post(f"{PROJECTS}{other.pk}/rankings/", {"event": theirs["id"], "runs": [run["id"]]}, format="json")

    for response in (compared, ranked):
        assert response.status_code == 400 and response.json()["code"] == "RUN_NOT_IN_PROJECT"
    assert not Comparison.objects.exists()


def test_an_event_without_observations_cannot_be_compared(built):
    client, project, run, _ = built
    empty = event_of(client, project.pk, name="Nothing recorded")

    response = client.post(f"{RUNS}{run['id']}/compare/", {"event": empty["id"]}, format="json")

    assert response.status_code == 400 and response.json()["code"] == "EVENT_HAS_NO_OBSERVATIONS"
    assert "create_observation" in response.json()["detail"]


def test_another_accounts_run_event_and_comparison_are_404(built):
    client, _project, run, _event = built
    stranger = api_for(make_user())
    stranger_project = stranger.post(PROJECTS, {"name": "Mine", "projection": "EPSG:28356"}, format="json").json()
    stranger_event = event_of(stranger, stranger_project["id"])

    their_run = stranger.post(f"{RUNS}{run['id']}/compare/", {"event": stranger_event["id"]}, format="json")
    their_event = client.post(f"{RUNS}{run['id']}/compare/", {"event": stranger_event["id"]}, format="json")
    ranked = stranger.post(
        f"{PROJECTS}{stranger_project['id']}/rankings/",
        {"event": stranger_event["id"], "runs": [run["id"]]},
        format="json",
    )
    missing = client.get("/api/v2/anuga/comparisons/999999/")
    recompute = client.post("/api/v2/anuga/comparisons/999999/recompute/")

    assert their_run.status_code == 404 and their_run.json()["code"] == "RUN_NOT_FOUND"
    assert their_event.status_code == 404 and their_event.json()["code"] == "EVENT_NOT_FOUND"
    assert ranked.status_code == 404 and ranked.json()["code"] == "RUN_NOT_FOUND"
    assert missing.status_code == 404 and missing.json()["code"] == "COMPARISON_NOT_FOUND"
    assert recompute.status_code == 404 and recompute.json()["code"] == "COMPARISON_NOT_FOUND"


def test_a_viewer_cannot_compare_or_rank(built):
    _client, project, run, event = built
    viewer = make_user()
    project.memberships.create(user=viewer, role="viewer")
    as_viewer = api_for(viewer)

    compared = as_viewer.post(f"{RUNS}{run['id']}/compare/", {"event": event["id"]}, format="json")
    ranked = as_viewer.post(
        f"{PROJECTS}{project.pk}/rankings/", {"event": event["id"], "runs": [run["id"]]}, format="json"
    )

    for response in (compared, ranked):
        assert response.status_code == 403 and response.json()["code"] == "PROJECT_READ_ONLY"


@pytest.mark.parametrize("runs", [[], list(range(1, 23))])
def test_a_ranking_needs_one_to_twenty_runs(built, runs):
    client, project, _, event = built

    response = client.post(f"{PROJECTS}{project.pk}/rankings/", {"event": event["id"], "runs": runs}, format="json")

    assert response.status_code == 400 and response.json()["code"] == "VALIDATION_ERROR"
    assert response.json()["detail"].startswith("runs")
