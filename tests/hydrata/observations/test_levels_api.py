"""Grant levels of the observations API: a read key reads, and is refused on every write with the level it needs."""

import pytest

from hydrata.observations.models import FloodEvent, Observation
from tests.factories import make_project, make_user
from tests.hydrata.observations.helpers import PROJECTS, api_for, event_of, observation

pytestmark = pytest.mark.django_db(transaction=True)

WRITES = [
    ("post", "{projects}{project}/events/", {"name": "x", "started_at": "2022-03-01T00:00:00Z"}),
    ("post", "{projects}{project}/observations/", {"event": 0, "x": 1, "y": 1, "quantity": "peak_stage", "value_m": 1}),
    ("patch", "{projects}{project}/observations/{observation}/", {"value_m": 99}),
    ("delete", "{projects}{project}/observations/{observation}/", None),
    (
        "post",
        "{projects}{project}/events/{event}/observations/import/",
        {"execution_id": "x", "quantity": "peak_stage", "value_property": "v"},
    ),
    ("post", "/api/v2/anuga/runs/1/compare/", {"event": 1}),
    ("post", "/api/v2/anuga/comparisons/1/recompute/", None),
    ("post", "{projects}{project}/rankings/", {"event": 1, "runs": [1]}),
]
READS = [
    "{projects}{project}/events/",
    "{projects}{project}/events/{event}/",
    "{projects}{project}/observations/",
    "{projects}{project}/observations/{observation}/",
]


@pytest.fixture
def recorded():
    owner = make_user()
    draft = api_for(owner)
    project = make_project(owner)
    event = event_of(draft, project.pk)
    created = observation(draft, project.pk, event["id"]).json()
    ids = {"projects": PROJECTS, "project": project.pk, "event": event["id"], "observation": created["id"]}
    return api_for(owner, level="read"), ids


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
def test_a_read_key_is_refused_on_every_write_and_nothing_changes(recorded, method, path, body):
    read_key, ids = recorded

    response = getattr(read_key, method)(path.format(**ids), body, format="json")

    assert response.status_code == 403 and response.json()["code"] == "GRANT_LEVEL_TOO_LOW"
    assert response.json()["required_level"] == "draft"
    assert FloodEvent.objects.count() == 1 and Observation.objects.get().value_m == 12.3


@pytest.mark.parametrize("path", READS)
def test_a_read_key_reads_events_and_observations(recorded, path):
    read_key, ids = recorded

    assert read_key.get(path.format(**ids)).status_code == 200
