"""The public-reader policy (`reader_of`, `published_face` in hydrata/anuga/api/base.py) over every route of the
URLconf: a stranger reading a public project, with an agent key and with a browser session, is never told a price, a
cost, a sign-off, a design input (or what is derived from one) and never receives a signed link; a person's browser
session (a member's too) never receives a signed link.

The project holds a complete design study (its envelopes computed by the study's own service), its design inputs,
a finished run compared with an observed event, and the model's input layers: every route's ids are real ones of
it, so each answer is the one a reader of that object gets. Every method of every route is asked: a read answers its
published face, a write is refused (and nothing is changed)."""

import json
import re
from typing import Any

import pytest
from rest_framework.test import APIClient

from hydrata.anuga.api.inputs import KIND_PATHS
from hydrata.anuga.models import InputLayer, Project
from hydrata.observations.models import Comparison, FloodEvent, Observation
from hydrata.storage.signing import SIGNATURE_PARAM
from hydrata.studies.models import DesignInput, DesignStudy
from tests.factories import make_finished_run, make_grant, make_user
from tests.hydrata.agents.test_level_matrix import MADE_UP, METHODS, declared
from tests.hydrata.observations.helpers import INSIDE, event_of, observation
from tests.hydrata.studies.test_study_tiles_api import complete_study, tiles_over

pytestmark = pytest.mark.django_db(transaction=True)

CONVERTER = re.compile(r"<(?:(?P<kind>\w+):)?(?P<name>\w+)>")
# What a public reader is never told (a key's value must be empty wherever it appears): prices and costs, the
# sign-off, a study's design inputs and the factors and losses its storms are derived from, the storms' figures.
WITHHELD_KEYS = {
    "compute_cost",
    "compute_cost_estimate",
    "vcpu_hours_estimate",
    "estimate",
    "price",
    "approval",
    "approvals",
    "approved_by",
    "fingerprint",
    "inputs",
    "areal_reduction_factor",
    "climate_factor",
    "initial_loss_mm",
    "continuing_loss_mm_h",
    "burst_initial_loss_mm",
    "rain_depth_mm",
    "excess_depth_mm",
    "peak_excess_mm_per_h",
}
BODIES = {"sample/": {"points": [{"x": INSIDE[0], "y": INSIDE[1]}]}, "time-series/": {"points": [{"x": 1, "y": 1}]}}


@pytest.fixture
def public(live_asgi) -> dict[str, Any]:
    """A public project with everything a route can name, and the id each route argument takes."""
    study, terrain = complete_study(live_asgi.url)
    project = Project.objects.get(pk=study.project_id)
    owner = project.owner
    run = make_finished_run(project, scenario=study.base_scenario)
    other = make_finished_run(project, scenario=study.base_scenario)
    owners_agent = APIClient()
    owners_agent.credentials(HTTP_AUTHORIZATION=f"Bearer {make_grant(owner, level='launch')[1]}")
    event = event_of(owners_agent, project.pk)
    assert observation(owners_agent, project.pk, event["id"]).status_code == 201
    compared = owners_agent.post(f"/api/v2/anuga/runs/{run.pk}/compare/", {"event": event["id"]}, format="json")
    assert compared.status_code in (200, 201), compared.content
    Project.objects.filter(pk=project.pk).update(is_public=True)
    tile = tiles_over(terrain, zoom=16)[0]
    ids = {
        "project_id": project.pk,
        "map_id": project.base_map_id or MADE_UP["int"],
        "terrain_id": terrain.pk,
        "scenario_id": study.base_scenario_id,
        "run_id": run.pk,
        "other_run_id": other.pk,
        "series_id": project.time_series.values_list("pk", flat=True).first() or MADE_UP["int"],
        "event_id": event["id"],
        "observation_id": Observation.objects.filter(event_id=event["id"]).values_list("pk", flat=True).first(),
        "comparison_id": Comparison.objects.values_list("pk", flat=True).get(),
        "study_id": study.pk,
        "input_id": DesignInput.objects.filter(project=project).values_list("pk", flat=True).first(),
        "aep": "1pct",
        "layer": "max_depth",
        "style": "hillshade",
        "z": tile.z,
        "x": tile.x,
        "y": tile.y,
    }
    return {"project": project, "study": study, "ids": ids, "owner": owner}


def url_of(route: str, ids: dict[str, Any]) -> str:
    """The route with each argument the fixture's object, the layer id that of a layer of the route's own kind."""

    def value(match: re.Match) -> str:
        if match["name"] == "layer_id":
            return str(_layer_id(route, ids["project_id"]))
        return str(ids.get(match["name"], MADE_UP[match["kind"] or "str"]))

    return CONVERTER.sub(value, route)


def _layer_id(route: str, project_id: int) -> int:
    kind = next(kind for segment, kind in KIND_PATHS.items() if f"/{segment}/" in route)
    found = InputLayer.objects.filter(project_id=project_id, kind=kind).values_list("pk", flat=True).first()
    return found or int(MADE_UP["int"])


def ask(client: APIClient, method: str, route: str, url: str):
    body = next((body for tail, body in BODIES.items() if route.endswith(tail)), {})
    if method in ("POST", "PATCH", "PUT"):
        return getattr(client, method.lower())(url, json.dumps(body), content_type="application/json")
    return getattr(client, method.lower())(url)


def leaks(value: Any, path: str = "") -> list[str]:
    """Each withheld key with a value, and each signed link, anywhere in an answer."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in WITHHELD_KEYS and item not in (None, "", [], {}):
                found.append(f"{path}.{key}")
            if key.startswith("s3_"):
                found.append(f"{path}.{key} (a signed link's key)")
            found += leaks(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += leaks(item, f"{path}[{index}]")
    return found


def walk(client: APIClient, ids: dict[str, Any], *, methods: tuple[str, ...] = METHODS) -> dict[str, Any]:
    """Every route of the URLconf asked once with each of its `methods`: (method route) -> the answer."""
    asked = sorted((route, method) for route, method in declared() if method in methods)
    return {f"{method} {route}": ask(client, method, route, url_of(route, ids)) for route, method in asked}


def as_agent(user, level: str = "launch") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {make_grant(user, level=level)[1]}")
    return client


def as_person(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_a_stranger_walking_every_route_of_a_public_project_is_told_no_price_cost_sign_off_or_input_and_no_link(
    public,
):
    ids, study = public["ids"], public["study"]
    input_names = list(DesignInput.objects.filter(project=public["project"]).values_list("name", flat=True))
    stranger = make_user("stranger")
    wrong, read = [], {}

    for who, client in [("agent", as_agent(stranger)), ("session", as_person(stranger))]:
        for asked, response in walk(client, ids).items():
            assert response.status_code < 500, f"{who} {asked}: {response.status_code} {response.content[:300]}"
            text = response.content.decode(errors="replace")
            if SIGNATURE_PARAM in text:
                wrong.append(f"{who} {asked}: a signed link")
            wrong += [f"{who} {asked}: the design input {name}" for name in input_names if name in text]
            if response.get("Content-Type", "").startswith("application/json") and response.content:
                wrong += [f"{who} {asked}: {leak}" for leak in leaks(response.json())]
        read[who] = (
            client.get(f"/api/v2/anuga/projects/{ids['project_id']}/design-studies/{study.pk}/"),
            client.get(f"/api/v2/anuga/projects/{ids['project_id']}/design-inputs/"),
        )
    assert not wrong, "\n".join(wrong)
    # Reads are answered (the published face), not refused: the walk reached the objects themselves.
    for who, (detail, inputs) in read.items():
        assert detail.status_code == 200 and detail.json()["reduced"] is True, who
        assert detail.json()["results"]["aeps"][0]["layers"] and len(detail.json()["members"]) == 4
        assert inputs.status_code == 200 and inputs.json()["count"] == 0, who
    # Every write was refused: the study, its inputs, the observation and the comparison are all still there.
    assert DesignStudy.objects.filter(pk=study.pk).exists() and len(input_names) == 2
    assert FloodEvent.objects.filter(pk=ids["event_id"]).exists() and Observation.objects.exists()
    assert Comparison.objects.exists()


def test_a_persons_session_never_receives_a_signed_link_on_any_route_and_an_agent_of_a_member_does(public):
    ids, study, owner = public["ids"], public["study"], public["owner"]
    wrong = []

    # Every read (a member's writes would change what the walk reads; a write answers what a read of it does).
    for asked, response in walk(as_person(owner), ids, methods=("GET",)).items():
        assert response.status_code < 500, f"{asked}: {response.status_code} {response.content[:300]}"
        text = response.content.decode(errors="replace")
        if SIGNATURE_PARAM in text or '"s3_' in text:
            wrong.append(asked)
    agents = as_agent(owner, level="read").get(f"/api/v2/anuga/projects/{ids['project_id']}/design-studies/{study.pk}/")

    assert not wrong, "a person's session received a signed link:\n" + "\n".join(wrong)
    layers = agents.json()["results"]["aeps"][0]["layers"]
    assert layers and all(SIGNATURE_PARAM in layer["url"] for layer in layers)
    assert agents.json()["approval"]["fingerprint"] and agents.json()["estimate"]["compute_cost_estimate"]
