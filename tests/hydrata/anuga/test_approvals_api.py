"""The sign-off over REST: owners and editors approve a scenario as it is; with the account switch on, agents
cannot start a run of a scenario their account's owner has not approved in its current state."""

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import pytest
from django.contrib.auth.models import User
from django.test import Client
from pydantic.fields import FieldInfo

from config.celery import app as celery_app
from hydrata.agents.models import AgentSpend
from hydrata.agents.services import account_set_runs_need_approval
from hydrata.anuga.models import Project, Run, Scenario
from hydrata.anuga.selectors.scenario_answers import REFERENCES
from hydrata.anuga.tasks import run_build_task
from hydrata_contract.requests.scenarios import ScenarioChanges
from hydrata_contract.states import RunStatus
from tests.data import BOUNDARY, RAINFALL
from tests.factories import make_grant, make_user
from tests.model_setup import PROJECTS, Model, api, attach, small_test_model, upload_geojson

MGA56 = "EPSG:28356"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def built(live_asgi):
    """A built small_test scenario of an account that wants to approve runs; nothing computes (no worker)."""
    grant, key = make_grant(level="launch")
    account_set_runs_need_approval(user=grant.user, required=True)
    model = small_test_model(live_asgi.url, key)
    with api(live_asgi.url, key) as http:
        scenario = http.post(
            f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "sign me off", "resolution": 10, "duration": 300}
        ).json()
        assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").status_code == 202
    celery_app.conf.task_always_eager = False
    return grant, key, model, scenario


def person(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def approve(client, model, scenario):
    return client.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/approve/")


def start(url, key, scenario):
    with api(url, key) as http:
        return http.post(f"/api/v2/anuga/scenarios/{scenario['id']}/run/")


def test_an_agent_is_refused_until_the_owner_approves_and_then_it_starts(built, live_asgi):
    grant, key, model, scenario = built
    base_map = Project.objects.get(pk=model.project_id).base_map_id

    refused = start(live_asgi.url, key, scenario)
    approved = approve(person(grant.user), model, scenario)
    started = start(live_asgi.url, key, scenario)

    assert refused.status_code == 409 and refused.json()["code"] == "APPROVAL_REQUIRED"
    link = f"{live_asgi.url}/catalogue/#/map/{base_map}?panel=scenario&scenario={scenario['id']}"
    assert refused.json()["ui_url"] == link and link in refused.json()["detail"]
    assert approved.status_code == 201 and approved.json()["approved"] is True
    assert approved.json()["approvals"][0]["by"] == grant.user.username
    assert started.status_code == 202 and started.json()["status"] == "queued"
    assert AgentSpend.objects.count() == 1  # the refused start charged nothing


def test_a_change_to_the_scenario_leaves_the_approval_stale(built, live_asgi):
    grant, key, model, scenario = built
    approve(person(grant.user), model, scenario)
    celery_app.conf.task_always_eager = True  # the rebuild after the change runs at once
    with api(live_asgi.url, key) as http:
        http.patch(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/", json={"duration": 301})
        assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").status_code == 202
        read = http.get(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/").json()
    celery_app.conf.task_always_eager = False

    refused = start(live_asgi.url, key, scenario)

    assert read["approval"]["approved"] is False and read["approval"]["stale_approval"]["by"] == grant.user.username
    assert read["approval"]["required_for_your_agents"] is True
    assert refused.status_code == 409 and refused.json()["code"] == "APPROVAL_REQUIRED"


def test_a_draft_key_raising_the_inundation_threshold_voids_the_owners_approval(built, live_asgi):
    """The reported case: the owner approved, a draft key of the account changed inundation_threshold_m from 0.05
    to 3.0 and built again, and the approval still held, so a launch key could start the run."""
    grant, key, model, scenario = built
    _, draft_key = make_grant(grant.user, level="draft", name="drafter")
    approve(person(grant.user), model, scenario)
    celery_app.conf.task_always_eager = True  # the rebuild runs at once
    with api(live_asgi.url, draft_key) as http:
        changed = http.patch(
            f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/", json={"inundation_threshold_m": 3.0}
        )
        assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").status_code == 202
    celery_app.conf.task_always_eager = False

    refused = start(live_asgi.url, key, scenario)

    assert scenario["inundation_threshold_m"] == 0.05 and changed.json()["inundation_threshold_m"] == 3.0
    assert changed.json()["approval"]["approved"] is False
    assert changed.json()["approval"]["stale_approval"]["by"] == grant.user.username
    assert refused.status_code == 409 and refused.json()["code"] == "APPROVAL_REQUIRED"
    assert AgentSpend.objects.count() == 0


def test_a_change_to_an_input_row_leaves_the_approval_stale(built, live_asgi):
    grant, key, model, scenario = built
    approve(person(grant.user), model, scenario)
    celery_app.conf.task_always_eager = True  # the upload's import runs at once

    with api(live_asgi.url, key) as http:
        dataset = upload_geojson(http, "rainfall-again.geojson", RAINFALL)
        assert attach(http, model, "rainfall", dataset).status_code == 200
        read = http.get(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/").json()

    assert read["approval"]["approved"] is False and read["approval"]["stale_approval"] is not None


def test_a_build_of_an_earlier_state_cannot_start_once_the_owner_approves_the_changed_inputs(built, live_asgi):
    """The package built before an input row changed holds the old row, so approving the new state must not
    let that package run: attaching a dataset did not mark the build stale, and the start used it."""
    grant, key, model, scenario = built
    celery_app.conf.task_always_eager = True  # the upload's import (and later the rebuild) run at once
    with api(live_asgi.url, key) as http:
        heavier_rain = upload_geojson(http, "heavier-rain.geojson", with_property(RAINFALL, 0, data="500.0"))
        assert attach(http, model, "rainfall", heavier_rain).status_code == 200
    celery_app.conf.task_always_eager = False
    approved = approve(person(grant.user), model, scenario)
    refused = start(live_asgi.url, key, scenario)

    celery_app.conf.task_always_eager = True
    with api(live_asgi.url, key) as http:
        assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").status_code == 202
    celery_app.conf.task_always_eager = False
    started = start(live_asgi.url, key, scenario)

    assert approved.status_code == 201 and approved.json()["approved"] is True
    assert refused.status_code == 409 and refused.json()["code"] == "SCENARIO_NOT_BUILT"
    assert started.status_code == 202, started.json()  # the rebuild holds the approved state
    assert AgentSpend.objects.count() == 1  # only the start that went charged


def test_a_retry_whose_inputs_change_before_its_build_runs_ends_in_error_and_never_computes(built, live_asgi):
    """The other way into a run: a retry is signed off for the state it was asked in, and its build runs later."""
    grant, key, model, scenario = built
    Run.objects.filter(scenario_id=scenario["id"]).update(status=RunStatus.ERROR)
    approve(person(grant.user), model, scenario)
    with api(live_asgi.url, key) as http:
        errored = Run.objects.get(scenario_id=scenario["id"])
        retried = http.post(f"/api/v2/anuga/runs/{errored.pk}/retry/")  # no worker: its build waits
        celery_app.conf.task_always_eager = True  # the upload's import runs at once
        heavier_rain = upload_geojson(http, "heavier-rain.geojson", with_property(RAINFALL, 0, data="500.0"))
        assert attach(http, model, "rainfall", heavier_rain).status_code == 200
        celery_app.conf.task_always_eager = False
    run_build_task.apply(args=[retried.json()["id"]])  # the queued build, as a worker would run it

    retry = Run.objects.get(pk=retried.json()["id"])
    assert retried.status_code == 202
    assert retry.status == RunStatus.ERROR and "changed while this retry was being built" in retry.user_message
    assert retry.queued_at is None


def test_an_agent_key_cannot_approve_whatever_its_level(built, live_asgi):
    _, key, model, scenario = built

    with api(live_asgi.url, key) as http:
        response = http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/approve/")

    assert response.status_code == 403 and response.json()["code"] == "APPROVAL_BY_PERSON_ONLY"


def test_viewers_cannot_approve_and_strangers_do_not_see_the_scenario(built):
    _, _, model, scenario = built
    viewer, stranger = make_user("victor"), make_user("mallory")
    Project.objects.get(pk=model.project_id).memberships.create(user=viewer, role="viewer")

    as_viewer = approve(person(viewer), model, scenario)
    as_stranger = approve(person(stranger), model, scenario)

    assert as_viewer.status_code == 403 and as_viewer.json()["code"] == "PROJECT_READ_ONLY"
    assert as_stranger.status_code == 404


def test_an_editors_approval_does_not_stand_in_for_the_account_owners_own(built, live_asgi):
    _, key, model, scenario = built
    editor = make_user("erin")
    Project.objects.get(pk=model.project_id).memberships.create(user=editor, role="editor")

    approve(person(editor), model, scenario)
    refused = start(live_asgi.url, key, scenario)

    assert refused.status_code == 409 and refused.json()["code"] == "APPROVAL_REQUIRED"


def test_a_person_starting_a_run_in_the_browser_needs_no_approval(built):
    grant, _, _, scenario = built

    response = person(grant.user).post(f"/api/v2/anuga/scenarios/{scenario['id']}/run/")

    assert response.status_code == 202
    assert Run.objects.get(pk=response.json()["id"]).status == RunStatus.QUEUED


def test_with_the_switch_off_agents_start_without_approval(built, live_asgi):
    grant, key, _, scenario = built
    account_set_runs_need_approval(user=grant.user, required=False)

    assert start(live_asgi.url, key, scenario).status_code == 202


# --- every writable field and every input, changed through the API by a draft key, voids the approval -----------


def collection(*features: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": MGA56}},
        "features": [*features],
    }


def line(**properties: Any) -> dict[str, Any]:
    coordinates = [[251050.0, 6271900.0], [251150.0, 6271900.0]]
    return {"type": "Feature", "properties": properties, "geometry": {"type": "LineString", "coordinates": coordinates}}


def square(**properties: Any) -> dict[str, Any]:
    ring = [[251050.0, 6271850.0], [251150.0, 6271850.0], [251150.0, 6271950.0], [251050.0, 6271950.0]]
    geometry = {"type": "Polygon", "coordinates": [[*ring, ring[0]]]}
    return {"type": "Feature", "properties": properties, "geometry": geometry}


def point(**properties: Any) -> dict[str, Any]:
    return {
        "type": "Feature",
        "properties": properties,
        "geometry": {"type": "Point", "coordinates": [251100, 6271900]},
    }


def with_property(layer: Path, index: int, **properties: Any) -> dict[str, Any]:
    changed = json.loads(layer.read_text())
    changed["features"][index]["properties"].update(properties)
    return changed


# A changed input makes the old build stale too (SCENARIO_NOT_BUILT comes first); either way nothing starts.
REFUSED = {(409, "APPROVAL_REQUIRED"), (409, "SCENARIO_NOT_BUILT")}
# kind -> (the layer the scenario is built with, the same layer with one property of one feature changed)
LAYERS: dict[str, tuple[dict[str, Any] | Path, dict[str, Any]]] = {
    "boundary": (BOUNDARY, with_property(BOUNDARY, 0, boundary="Reflective")),
    "rainfall": (RAINFALL, with_property(RAINFALL, 0, data="60.0")),
    "friction": (collection(square(mannings=0.035)), collection(square(mannings=0.05))),
    "inflow": (collection(line(type="Surface", data="1.0")), collection(line(type="Surface", data="2.0"))),
    "structure": (collection(square(method="Mannings", mannings=0.5)), collection(square(method="Raised", height=2))),
    "breakline": (collection(line()), collection(line(note="moved"))),
    "culvert": (
        collection(line(name="C1", shape="pipe", diameter=0.6)),
        collection(line(name="C1", shape="pipe", diameter=0.9)),
    ),
    "weir": (collection(line(height=0.5)), collection(line(height=0.6))),
    "mesh_region": (
        collection(square(resolution=5, resolution_units="m")),
        collection(square(resolution=6, resolution_units="m")),
    ),
    "gauge": (collection(point(name="G1")), collection(point(name="G2"))),
    "flow_line": (collection(line(name="L1")), collection(line(name="L2"))),
    "initial_condition": (collection(square(depth=0.5)), collection(square(depth=0.6))),
    "soil": (
        collection(square(initial_loss_mm=10, continuing_loss_mm_h=2.5)),
        collection(square(initial_loss_mm=10, continuing_loss_mm_h=2.5, impervious_fraction=0.4)),
    ),
}
assert set(LAYERS) == set(Scenario.INPUT_FIELDS)


@dataclass
class SignOff:
    url: str
    owner: User
    launch_key: str
    draft_key: str
    model: Model
    scenario_id: int

    @property
    def scenario_url(self) -> str:
        return f"{PROJECTS}{self.model.project_id}/scenarios/{self.scenario_id}/"

    def read(self) -> dict[str, Any]:
        with api(self.url, self.draft_key) as http:
            return http.get(self.scenario_url).json()

    def approve(self) -> None:
        approved = person(self.owner).post(f"{self.scenario_url}approve/")
        assert approved.status_code == 201 and approved.json()["approved"] is True

    def patch(self, key: str, changes: dict[str, Any]) -> dict[str, Any]:
        with api(self.url, key) as http:
            response = http.patch(self.scenario_url, json=changes)
        assert response.status_code == 200, response.text
        return response.json()

    def build(self) -> None:
        celery_app.conf.task_always_eager = True  # the build runs at once
        with api(self.url, self.draft_key) as http:
            assert http.post(f"{self.scenario_url}build/").status_code == 202
        celery_app.conf.task_always_eager = False  # nothing computes: a start that got through stays queued

    def start(self) -> tuple[int, str | None]:
        started = start(self.url, self.launch_key, {"id": self.scenario_id})
        return started.status_code, started.json().get("code")


@pytest.fixture
def signed_off(live_asgi) -> SignOff:
    """A scenario using a layer of every kind, of an account that wants to approve runs, with its launch key and
    a draft key; nothing is approved yet."""
    grant, launch_key = make_grant(level="launch")
    _, draft_key = make_grant(grant.user, level="draft", name="drafter")
    account_set_runs_need_approval(user=grant.user, required=True)
    model = small_test_model(live_asgi.url, launch_key, rainfall=False, boundary=False)
    with api(live_asgi.url, launch_key) as http:
        for kind, (layer, _) in LAYERS.items():
            assert attach(http, model, kind, upload_geojson(http, f"{kind}.geojson", layer)).status_code == 200
        scenario = http.post(
            f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "sign me off", "resolution": 10, "duration": 300}
        ).json()
    assert all(scenario[kind] == model.rows[kind] for kind in LAYERS)
    return SignOff(live_asgi.url, grant.user, launch_key, draft_key, model, scenario["id"])


def kinds_of(annotation: Any) -> set[Any]:
    """The plain types a field's annotation admits: float for `Resolution`, datetime and None for `Instant | None`."""
    if get_origin(annotation) is Annotated:
        return kinds_of(get_args(annotation)[0])
    return set().union(*(kinds_of(arg) for arg in get_args(annotation))) if get_args(annotation) else {annotation}


def another_value(name: str, field: FieldInfo, current: Any) -> Any:
    kinds = kinds_of(field.annotation)
    if str in kinds:
        return f"{current} (changed)"
    if float in kinds:
        return current * 2
    if int in kinds:
        return current + 1
    if datetime in kinds:
        return "2024-01-01T00:00:00Z" if current is None else "2024-06-01T00:00:00Z"
    pytest.fail(f"The walk knows no other value for {name} ({field.annotation}): teach another_value one.")


def test_a_draft_key_changing_any_writable_field_of_the_scenario_voids_the_approval(signed_off):
    writable = ScenarioChanges.model_fields
    held = {}
    for name, field in writable.items():
        current = signed_off.read()[name]
        if name in REFERENCES:  # a reference is set away first, approved so, then set back by the draft key
            signed_off.patch(signed_off.launch_key, {name: None})
            after = current
        else:
            after = another_value(name, field, current)
        signed_off.approve()

        changed = signed_off.patch(signed_off.draft_key, {name: after})
        signed_off.build()

        if changed["approval"]["approved"] or signed_off.start() != (409, "APPROVAL_REQUIRED"):
            held[name] = (current, after)

    assert writable.keys() >= {"inundation_threshold_m", "resolution", "terrain", *Scenario.INPUT_FIELDS}
    assert held == {}, "the approval held after these changes"


def test_a_draft_key_changing_any_input_row_voids_the_approval_but_a_series_no_input_names_does_not(signed_off):
    signed_off.build()
    held = []
    for kind, (_, changed_layer) in LAYERS.items():
        signed_off.approve()

        celery_app.conf.task_always_eager = True  # the upload's import runs at once
        with api(signed_off.url, signed_off.draft_key) as http:
            dataset = upload_geojson(http, f"{kind}-changed.geojson", changed_layer)
            assert attach(http, signed_off.model, kind, dataset).status_code == 200
        celery_app.conf.task_always_eager = False

        if signed_off.read()["approval"]["approved"] or signed_off.start() not in REFUSED:
            held.append(kind)
    signed_off.approve()
    with api(signed_off.url, signed_off.draft_key) as http:
        rows = [{"timestamp": "2024-01-01T00:00:00Z", "value": 0.0}, {"timestamp": "2024-01-01T01:00:00Z", "value": 5}]
        series = {"name": "Creek", "series_type": "hydrograph", "units": "m3/s", "data": {"rowData": rows}}
        assert http.post(f"{PROJECTS}{signed_off.model.project_id}/time-series/", json=series).status_code == 201
    after_series = signed_off.read()

    assert held == [], "the approval held after these changes"
    # a gauge record no input names changes nothing a run reads: the sign-off of the model still holds
    assert after_series["approval"]["approved"] is True
