"""Making, starting, signing off and cancelling calibration studies over REST and through the tools, on a built
small_test scenario with a friction layer. No worker consumes the queue here, so members stay queued: what is
checked is the gates in front of computing (the spend limit, whole or nothing; the sign-off), the members' runs,
packages and charges, cancel, and the refusals. tests/hydrata_mcp/test_calibration.py runs studies on a worker."""

import json
from decimal import Decimal

import pytest
import shapely.geometry
from django.test import Client

from config.celery import app as celery_app
from hydrata.agents.models import AgentSpend
from hydrata.agents.services import account_set_runs_need_approval, account_set_spend_limit
from hydrata.anuga.models import Project, Run
from hydrata.anuga.services.runs import run_cancel, runs_reap_stale
from hydrata.calibration.models import CalibrationMember, CalibrationStudy
from hydrata.calibration.services.runs import calibration_study_advance
from hydrata.compute.simulation.forcing import friction_values
from hydrata.storage import get_storage
from hydrata_contract.states import RunStatus
from tests.factories import make_grant
from tests.hydrata.calibration.helpers import FRICTION, RESOLUTION
from tests.mcp_client import call
from tests.model_setup import PROJECTS, api, attach, small_test_model, upload_geojson

pytestmark = pytest.mark.django_db(transaction=True)
N = {"target": "friction", "name": "floodplain", "low": 0.02, "high": 0.10}


def arranged(url: str, key: str, *, build: bool = True, observed: bool = True) -> dict:
    """small_test with the friction layer, a scenario (built while the queue is eager) and a flood event with two
    observations; from here on, queued members stay queued."""
    celery_app.conf.task_always_eager = True  # the terrain's import and the build run now
    model = small_test_model(url, key)
    with api(url, key) as http:
        assert attach(http, model, "friction", upload_geojson(http, "friction.geojson", FRICTION)).status_code == 200
        project = f"{PROJECTS}{model.project_id}/"
        scenario = http.post(f"{project}scenarios/", json={"name": "base", "resolution": RESOLUTION, "duration": 600})
        if build:
            assert http.post(f"{project}scenarios/{scenario.json()['id']}/build/").status_code == 202
        event = http.post(f"{project}events/", json={"name": "1974", "started_at": "1974-01-26T00:00:00Z"}).json()
        for x, value in ((251100.0, 30.1), (251150.0, 29.8)) if observed else ():
            made = http.post(
                f"{project}observations/",
                json={"event": event["id"], "x": x, "y": 6271900.0, "quantity": "peak_stage", "value_m": value},
            )
            assert made.status_code == 201, made.text
    celery_app.conf.task_always_eager = False
    return {"project": model.project_id, "scenario": scenario.json()["id"], "event": event["id"], "model": model}


def created(url: str, key: str, arrangement: dict, **fields) -> object:
    body = {
        "name": "fit n",
        "base_scenario": arrangement["scenario"],
        "event": arrangement["event"],
        "parameters": [N],
        "budget": 6,
        "in_flight": 2,
        **fields,
    }
    with api(url, key) as http:
        return http.post(f"{PROJECTS}{arrangement['project']}/calibration-studies/", json=body)


def path(arrangement: dict, study: dict, action: str = "") -> str:
    return f"{PROJECTS}{arrangement['project']}/calibration-studies/{study['id']}/{action}"


def person(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("short_by", [Decimal("0.01"), Decimal("0.00")])
def test_a_study_is_charged_whole_or_refused_whole_at_the_spend_limit(live_asgi, short_by):
    grant, key = make_grant(level="launch")
    arrangement = arranged(live_asgi.url, key)
    study = created(live_asgi.url, key, arrangement).json()
    price = Decimal(study["estimate"]["compute_cost_estimate"])
    account_set_spend_limit(user=grant.user, limit=price - short_by)

    with api(live_asgi.url, key) as http:
        started = http.post(path(arrangement, study, "start/"))

    charges = AgentSpend.objects.filter(grant=grant)
    if short_by:
        assert started.status_code == 402 and started.json()["code"] == "SPEND_LIMIT_EXCEEDED", started.text
        assert not charges.exists() and not Run.objects.filter(study_member=True).exists()
        assert CalibrationStudy.objects.get(pk=study["id"]).status == "draft"
        return
    assert started.status_code == 202, started.text
    runs = [m.run for m in CalibrationMember.objects.filter(study_id=study["id"]).select_related("run")]
    assert len(runs) == 2 and {run.status for run in runs} == {RunStatus.QUEUED}  # in_flight: two at once
    assert sum(charges.values_list("amount", flat=True)) == price and charges.count() == 6
    references = set(charges.values_list("reference", flat=True))
    assert {f"run:{run.pk}" for run in runs} <= references
    assert {f"calibration:{study['id']}:member:{i}" for i in range(2, 6)} <= references


def test_each_member_runs_the_base_build_with_its_own_n_and_nothing_else_of_its_own(live_asgi):
    _, key = make_grant(level="launch")
    arrangement = arranged(live_asgi.url, key)
    study = created(live_asgi.url, key, arrangement, budget=4).json()
    with api(live_asgi.url, key) as http:
        assert http.post(path(arrangement, study, "start/")).status_code == 202

    storage = get_storage()
    for member in CalibrationMember.objects.filter(study_id=study["id"]).select_related("run"):
        prefix = member.run.package_prefix
        with storage.open(key=f"{prefix}/scenario.json") as stream:
            manifest = json.load(stream)
        with storage.open(key=f"{prefix}/{manifest['friction']}") as stream:
            features = json.load(stream)["features"]
        assert manifest["own_files"] == ["inputs/calibration_friction.geojson"]
        assert manifest["calibration"]["values"] == {"friction:floodplain": member.values[0]}
        assert manifest["shared_prefix"] and manifest["mesh"] and member.run.study_member
        assert friction_values(__import__("numpy").array([[251100.0, 6271900.0]]), features)[0] == member.values[0]
        assert 0.02 <= member.values[0] <= 0.10


def test_cancel_gives_back_every_member_not_computed_and_ends_the_study(live_asgi):
    grant, key = make_grant(level="launch")
    arrangement = arranged(live_asgi.url, key)
    study = created(live_asgi.url, key, arrangement).json()
    assert (
        call(
            live_asgi.url,
            key,
            "start_calibration_study",
            {"project_id": arrangement["project"], "study_id": study["id"]},
        ).structured_content["status"]
        == "running"
    )

    with api(live_asgi.url, key) as http:
        computing = http.delete(path(arrangement, study))
    assert computing.status_code == 409 and computing.json()["code"] == "STUDY_RUNNING", computing.text
    cancelled = call(
        live_asgi.url, key, "cancel_calibration_study", {"project_id": arrangement["project"], "study_id": study["id"]}
    )
    again = call(
        live_asgi.url, key, "cancel_calibration_study", {"project_id": arrangement["project"], "study_id": study["id"]}
    )

    assert not cancelled.is_error, cancelled.content[0].text
    assert cancelled.structured_content["status"] == "cancelled"
    runs = [m.run for m in CalibrationMember.objects.filter(study_id=study["id"]).select_related("run")]
    assert {run.status for run in runs} == {RunStatus.CANCELLED}
    assert sum(AgentSpend.objects.filter(grant=grant).values_list("amount", flat=True)) == 0
    assert again.is_error and "STUDY_FINISHED" in again.content[0].text
    with api(live_asgi.url, key) as http:  # ended, it may be deleted; its members' runs stay, with what they cost
        assert http.delete(path(arrangement, study)).status_code == 204
    assert not CalibrationStudy.objects.filter(pk=study["id"]).exists()
    assert Run.objects.filter(pk__in=[run.pk for run in runs]).count() == len(runs)


def test_the_sign_off_gates_the_start_and_only_a_person_gives_it(live_asgi):
    grant, key = make_grant(level="launch")
    account_set_runs_need_approval(user=grant.user, required=True)
    arrangement = arranged(live_asgi.url, key)
    study = created(live_asgi.url, key, arrangement).json()

    through_the_tool = call(
        live_asgi.url, key, "start_calibration_study", {"project_id": arrangement["project"], "study_id": study["id"]}
    )
    with api(live_asgi.url, key) as http:
        over_rest = http.post(path(arrangement, study, "start/"))
        agent_signing = http.post(path(arrangement, study, "approve/"))
    assert through_the_tool.is_error and "APPROVAL_REQUIRED" in through_the_tool.content[0].text
    assert over_rest.status_code == 409 and "panel=calibration" in over_rest.json()["ui_url"]
    assert agent_signing.status_code == 403 and agent_signing.json()["code"] == "APPROVAL_BY_PERSON_ONLY"
    assert not Run.objects.filter(study_member=True).exists() and not AgentSpend.objects.exists()

    signed = person(grant.user).post(path(arrangement, study, "approve/"))
    assert signed.status_code == 201 and signed.json()["approval"]["approved_by_you"], signed.content
    CalibrationStudy.objects.filter(pk=study["id"]).update(budget=7)  # changed after the sign-off: stale
    with api(live_asgi.url, key) as http:
        stale = http.post(path(arrangement, study, "start/"))
        assert stale.status_code == 409 and stale.json()["code"] == "APPROVAL_REQUIRED"
        assert person(grant.user).post(path(arrangement, study, "approve/")).status_code == 201
        started = http.post(path(arrangement, study, "start/"))
        again = http.post(path(arrangement, study, "start/"))
    assert started.status_code == 202, started.text
    assert again.status_code == 409 and again.json()["code"] == "STUDY_NOT_STARTABLE"


@pytest.mark.parametrize(
    ("fields", "status", "code"),
    [
        ({"parameters": [{**N, "name": "gravel"}]}, 400, "CALIBRATION_TARGET_NOT_FOUND"),
        (
            {"parameters": [{"target": "rain", "low": 0.5, "high": 2.0}, {**N, "low": 0.2, "high": 0.1}]},
            400,
            "VALIDATION_ERROR",
        ),
        ({"parameters": [N, N]}, 400, "VALIDATION_ERROR"),
        ({"parameters": [{"target": "rain", "name": "x", "low": 0.5, "high": 2.0}]}, 400, "VALIDATION_ERROR"),
        ({"method": "morris", "budget": 3}, 400, "VALIDATION_ERROR"),
        ({"budget": 100000}, 400, "VALIDATION_ERROR"),
        ({"event": 999999}, 404, "EVENT_NOT_FOUND"),
        ({"base_scenario": 999999}, 404, "SCENARIO_NOT_FOUND"),
        ({"surprise": 1}, 400, "VALIDATION_ERROR"),
    ],
)
def test_a_study_that_cannot_run_as_asked_is_refused_with_a_reason_and_nothing_is_stored(
    live_asgi, fields, status, code
):
    _, key = make_grant(level="draft")
    arrangement = arranged(live_asgi.url, key)

    refused = created(live_asgi.url, key, arrangement, **fields)

    assert refused.status_code == status and refused.json()["code"] == code, refused.text
    assert not CalibrationStudy.objects.exists()


def test_a_base_not_built_and_an_event_without_observations_are_refused(live_asgi):
    _, key = make_grant(level="draft")
    unbuilt = arranged(live_asgi.url, key, build=False)
    not_built = created(live_asgi.url, key, unbuilt)
    unobserved = arranged(live_asgi.url, key, observed=False)
    nothing_seen = created(live_asgi.url, key, unobserved)

    assert not_built.status_code == 409 and not_built.json()["code"] == "SCENARIO_NOT_BUILT", not_built.text
    assert nothing_seen.status_code == 400 and nothing_seen.json()["code"] == "EVENT_HAS_NO_OBSERVATIONS"
    assert not CalibrationStudy.objects.exists()


def test_a_study_is_its_projects_own_another_account_and_a_read_key_cannot_reach_it(live_asgi):
    owner, key = make_grant(level="launch")
    arrangement = arranged(live_asgi.url, key)
    study = created(live_asgi.url, key, arrangement).json()
    _, stranger = make_grant(level="launch")
    _, reader = make_grant(owner.user, level="read")

    with api(live_asgi.url, stranger) as http:
        seen = http.get(path(arrangement, study))
        started = http.post(path(arrangement, study, "start/"))
    told = call(
        live_asgi.url,
        stranger,
        "get_calibration_study",
        {"project_id": arrangement["project"], "study_id": study["id"]},
    )

    assert seen.status_code == 404 and started.status_code == 404
    assert told.is_error and "NOT_FOUND" in told.content[0].text
    assert CalibrationStudy.objects.get(pk=study["id"]).status == "draft"
    Project.objects.filter(pk=arrangement["project"]).update(is_public=True)  # a public project shares none
    with api(live_asgi.url, stranger) as http:
        listed = http.get(f"{PROJECTS}{arrangement['project']}/calibration-studies/")
        still_unseen = http.get(path(arrangement, study))
    assert listed.status_code == 200 and listed.json()["count"] == 0 and listed.json()["results"] == []
    assert still_unseen.status_code == 404 and still_unseen.json()["code"] == "CALIBRATION_STUDY_NOT_FOUND"
    with api(live_asgi.url, reader) as http:
        assert http.get(path(arrangement, study)).status_code == 200
        assert http.post(path(arrangement, study, "start/")).status_code == 403
    assert CalibrationStudy.objects.get(pk=study["id"]).status == "draft"


def test_a_member_that_ends_brings_the_next_on_the_build_the_study_started_with_though_the_base_changed(live_asgi):
    grant, key = make_grant(level="launch")
    arrangement = arranged(live_asgi.url, key)
    everything = {"target": "all_friction", "low": 0.5, "high": 2.0}  # its last polygon spans the model
    study = created(live_asgi.url, key, arrangement, budget=3, parameters=[N, everything]).json()
    with api(live_asgi.url, key) as http:
        assert http.post(path(arrangement, study, "start/")).status_code == 202
        changed = http.patch(
            f"{PROJECTS}{arrangement['project']}/scenarios/{arrangement['scenario']}/", json={"duration": 900}
        )
        # ...and its boundary taken away: the scenario as it is now has no model area at all
        unbounded = attach(http, arrangement["model"], "boundary", None)
    assert changed.status_code == 200 and unbounded.status_code == 200, (changed.text, unbounded.text)
    first = CalibrationMember.objects.filter(study_id=study["id"]).select_related("run").first()
    Run.objects.filter(pk=first.run_id).update(status=RunStatus.ERROR, error_message="the simulation failed")

    calibration_study_advance(study_id=study["id"])

    members = list(CalibrationMember.objects.filter(study_id=study["id"]).select_related("run").order_by("index"))
    assert [m.index for m in members] == [0, 1, 2] and members[0].told and members[0].objective is None
    assert {m.run.package_sha256["mesh.msh"] for m in members} == {first.run.package_sha256["mesh.msh"]}
    assert {m.run.duration for m in members} == {600}  # the build's, not the changed scenario's
    with get_storage().open(key=f"{members[2].run.package_prefix}/scenario.json") as stream:
        manifest = json.load(stream)
    assert manifest["shared_prefix"] == CalibrationStudy.objects.get(pk=study["id"]).build.package_prefix
    with get_storage().open(key=f"{members[2].run.package_prefix}/{manifest['friction']}") as stream:
        spanning = json.load(stream)["features"][-1]
    with get_storage().open(key=f"{manifest['shared_prefix']}/{manifest['boundary']}") as stream:
        built = shapely.geometry.shape({"type": "GeometryCollection", "geometries": [
            feature["geometry"] for feature in json.load(stream)["features"]
        ]}).bounds  # fmt: skip
    west, south, east, north = shapely.geometry.shape(spanning["geometry"]).bounds
    assert (west, south, east, north) == (built[0] - 1, built[1] - 1, built[2] + 1, built[3] + 1)
    charged = AgentSpend.objects.filter(grant=grant)
    assert not charged.filter(reference__startswith="calibration:").exists()  # every planned member is now a run's
    assert sum(charged.values_list("amount", flat=True)) == Decimal(study["estimate"]["compute_cost_estimate"])


def test_a_member_whose_worker_is_lost_runs_once_more_uncharged_then_counts_as_failed_and_the_study_ends(live_asgi):
    _, key = make_grant(level="launch")
    arrangement = arranged(live_asgi.url, key)
    study = created(live_asgi.url, key, arrangement, budget=2).json()
    with api(live_asgi.url, key) as http:
        assert http.post(path(arrangement, study, "start/")).status_code == 202
    member, other = CalibrationMember.objects.filter(study_id=study["id"]).select_related("run").order_by("index")

    def lose(run: Run) -> None:
        """The run computes on a worker that then went silent; the reaper's sweep ends it in error."""
        Run.objects.filter(pk=run.pk).update(status=RunStatus.COMPUTING, heartbeat_at="2020-01-01T00:00:00Z")
        assert runs_reap_stale() >= 1

    first = member.run
    lose(first)
    calibration_study_advance(study_id=study["id"])
    member.refresh_from_db()
    retry = member.run
    assert retry.pk != first.pk and retry.retry_of_id == first.pk and retry.status == RunStatus.QUEUED
    assert retry.package_prefix == first.package_prefix and not member.told
    assert not AgentSpend.objects.filter(reference=f"run:{retry.pk}").exists()

    lose(retry)
    run_cancel(run=other.run)
    ended = calibration_study_advance(study_id=study["id"])
    member.refresh_from_db()

    assert member.run.pk == retry.pk, "a member is retried once only"
    assert member.told and member.objective is None
    assert ended.status == "error" and "No member completed" in ended.status_message
    assert ended.results["best"] is None and ended.results["members_run"] == 2
