"""Starting, signing off and cancelling design studies over REST and through the tools, on a built small_test
scenario. No worker consumes the queue here, so members stay queued: what is checked is the gates in front of
computing (the spend limit, whole or nothing; the sign-off over every member's storm), the members' runs and
charges, cancel, and the retry of a member whose worker was lost. tests/hydrata_mcp/test_design_study_runs.py runs a
study on a real worker."""

import json
from decimal import Decimal

import pytest
import shapely.geometry
from django.test import Client

from config.celery import app as celery_app
from hydrata.agents.models import AgentSpend
from hydrata.agents.services import account_set_runs_need_approval, account_set_spend_limit
from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.selectors.scenarios import latest_run
from hydrata.anuga.services.runs import run_cancel, runs_reap_stale
from hydrata.storage import get_storage
from hydrata.studies.models import DesignMember, DesignStudy
from hydrata.studies.services.runs import RAIN_FILE, SOIL_FILE, STORM_FILE, design_study_advance
from hydrata_contract.states import RunStatus
from tests.data import ARR
from tests.factories import make_grant
from tests.mcp_client import call
from tests.model_setup import PROJECTS, api, attach, small_test_model, upload_geojson

pytestmark = pytest.mark.django_db(transaction=True)

# 1% AEP (the rare bin), 5 and 10 minutes, two patterns each: four members.
FILES = {"ifd": "Synthetic_IFD_Depths_Short.csv", "temporal_patterns": "Synthetic_Increments_Two_Patterns.csv"}


def drafted_study(url: str, key: str, *, soil: dict | None = None) -> tuple[int, dict]:
    """A study of four members on a built small_test scenario (built now, before the queue stops being eager), its
    base with the soil layer `soil` when given."""
    model = small_test_model(url, key)
    with api(url, key) as http:
        if soil is not None:
            assert attach(http, model, "soil", upload_geojson(http, "soil.geojson", soil)).status_code == 200
        project = f"{PROJECTS}{model.project_id}/"
        scenario = http.post(f"{project}scenarios/", json={"name": "base", "resolution": 10, "duration": 600}).json()
        assert http.post(f"{project}scenarios/{scenario['id']}/build/").status_code == 202
        inputs = {
            kind: http.post(
                f"{project}design-inputs/", json={"kind": kind, "name": name, "content": (ARR / name).read_text()}
            ).json()["id"]
            for kind, name in FILES.items()
        }
        study = http.post(
            f"{project}design-studies/",
            json={
                "name": "four storms",
                "base_scenario": scenario["id"],
                **inputs,
                "aeps": ["1%"],
                "durations_min": [5, 10],
                "initial_loss_mm": 5,
                "continuing_loss_mm_h": 1,
            },
        )
    assert study.status_code == 201, study.text
    celery_app.conf.task_always_eager = False  # from here on, queued members stay queued
    return model.project_id, study.json()


def study_path(project_id: int, study: dict, action: str = "") -> str:
    return f"{PROJECTS}{project_id}/design-studies/{study['id']}/{action}"


def start(url: str, key: str, project_id: int, study: dict):
    with api(url, key) as http:
        return http.post(study_path(project_id, study, "start/"))


def person(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def member_runs(study: dict) -> list[Run]:
    return [member.run for member in DesignMember.objects.filter(study_id=study["id"]).select_related("run")]


@pytest.mark.parametrize("short_by", [Decimal("0.01"), Decimal("0.00")])
def test_a_study_is_charged_whole_or_refused_whole_at_the_spend_limit(live_asgi, short_by):
    grant, key = make_grant(level="launch")
    project_id, study = drafted_study(live_asgi.url, key)
    price = Decimal(study["estimate"]["compute_cost_estimate"])
    account_set_spend_limit(user=grant.user, limit=price - short_by)

    started = start(live_asgi.url, key, project_id, study)

    charges = AgentSpend.objects.filter(grant=grant)
    if short_by:  # one cent too little: nothing starts and no member is charged
        assert started.status_code == 402 and started.json()["code"] == "SPEND_LIMIT_EXCEEDED", started.text
        assert started.json()["price"] == str(price)
        assert not charges.exists() and not Run.objects.filter(study_member=True).exists()
        assert DesignStudy.objects.get(pk=study["id"]).status == "draft"
        return
    assert started.status_code == 202, started.text  # exactly enough: every member starts, each charged its price
    runs = member_runs(study)
    assert len(runs) == 4 and {run.status for run in runs} == {RunStatus.QUEUED}
    assert sorted(charges.values_list("reference", flat=True)) == sorted(f"run:{run.pk}" for run in runs)
    assert sum(charges.values_list("amount", flat=True)) == price == Decimal(started.json()["compute_cost"])
    assert started.json()["status"] == "running" and started.json()["progress"]["members_total"] == 4
    again = start(live_asgi.url, key, project_id, study)
    assert again.status_code == 409 and again.json()["code"] == "STUDY_NOT_STARTABLE"


def test_each_member_runs_the_base_build_with_its_own_storm_for_rain(live_asgi):
    _, key = make_grant(level="launch")
    project_id, study = drafted_study(live_asgi.url, key)
    build = latest_run(scenario=Scenario.objects.get(pk=study["base_scenario"]))

    assert start(live_asgi.url, key, project_id, study).status_code == 202

    storage = get_storage()
    for member in DesignMember.objects.filter(study_id=study["id"]).select_related("run"):
        run = member.run
        with storage.open(key=f"{run.package_prefix}/scenario.json") as stream:
            manifest = json.load(stream)
        with storage.open(key=f"{run.package_prefix}/{STORM_FILE}") as stream:
            storm = json.load(stream)
        with storage.open(key=f"{run.package_prefix}/{RAIN_FILE}") as stream:
            rain = json.load(stream)
        assert manifest["duration"] == run.duration == member.simulated_s and run.study_member
        assert manifest["shared_prefix"] == build.package_prefix and manifest["mesh"] == "mesh.msh"
        assert storm["units"] == "mm/interval" and manifest["time_series"][storm["name"]] == STORM_FILE
        assert sum(row["value"] for row in storm["rows"]) == pytest.approx(member.excess_depth_mm)
        assert storm["rows"][-1]["timestamp"] == member.duration_min * 60  # its steps, each time_step_min long
        assert len(storm["rows"]) == member.duration_min // member.time_step_min + 1
        assert max(row["value"] for row in storm["rows"]) * 60 / member.time_step_min == pytest.approx(
            member.peak_excess_mm_per_h
        )
        assert {feature["properties"]["data"] for feature in rain["features"]} == {storm["name"]}
    # The members are runs of the base scenario, but its latest run is still its own build.
    assert latest_run(scenario=Scenario.objects.get(pk=study["base_scenario"])) == build


SANDY = [[251001.0, 6271802.0], [251100.0, 6271802.0], [251100.0, 6271999.0], [251001.0, 6271999.0]]


def test_a_base_with_soils_gives_each_member_the_storm_before_losses_and_the_studys_losses_where_it_has_none(
    live_asgi,
):
    _, key = make_grant(level="launch")
    sandy = {"initial_loss_mm": 25, "continuing_loss_mm_h": 6, "impervious_fraction": 0.1}
    soil = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "EPSG:28356"}},
        "features": [
            {
                "type": "Feature",
                "properties": sandy,
                "geometry": {"type": "Polygon", "coordinates": [[*SANDY, SANDY[0]]]},
            }
        ],
    }
    project_id, study = drafted_study(live_asgi.url, key, soil=soil)

    assert start(live_asgi.url, key, project_id, study).status_code == 202

    storage = get_storage()
    for member in DesignMember.objects.filter(study_id=study["id"]).select_related("run"):
        prefix = member.run.package_prefix
        with storage.open(key=f"{prefix}/scenario.json") as stream:
            manifest = json.load(stream)
        with storage.open(key=f"{prefix}/{STORM_FILE}") as stream:
            storm = json.load(stream)
        with storage.open(key=f"{prefix}/{SOIL_FILE}") as stream:
            soils = json.load(stream)["features"]
        assert manifest["soil"] == SOIL_FILE and SOIL_FILE in manifest["own_files"]
        assert sum(row["value"] for row in storm["rows"]) == pytest.approx(member.rain_depth_mm)  # before losses
        assert member.rain_depth_mm > member.excess_depth_mm
        assert [feature["properties"] for feature in soils[:-1]] == [sandy]  # the base's own soil first
        studys = soils[-1]["properties"]
        assert studys["initial_loss_mm"] == member.burst_initial_loss_mm and studys["continuing_loss_mm_h"] == 1
        assert shapely.geometry.shape(soils[-1]["geometry"]).contains(
            shapely.geometry.box(251001.0, 6271802.0, 251198.0, 6271999.0)
        )  # the whole model


def test_the_sign_off_gates_every_way_in_and_a_changed_member_storm_needs_a_new_one(live_asgi):
    grant, key = make_grant(level="launch")
    account_set_runs_need_approval(user=grant.user, required=True)
    project_id, study = drafted_study(live_asgi.url, key)

    over_rest = start(live_asgi.url, key, project_id, study)
    through_the_tool = call(
        live_asgi.url, key, "start_design_study", {"project_id": project_id, "study_id": study["id"]}
    )
    with api(live_asgi.url, key) as http:
        agent_signing = http.post(study_path(project_id, study, "approve/"))

    assert over_rest.status_code == 409 and over_rest.json()["code"] == "APPROVAL_REQUIRED", over_rest.text
    assert "panel=study" in over_rest.json()["ui_url"] and f"study={study['id']}" in over_rest.json()["ui_url"]
    assert through_the_tool.is_error and "APPROVAL_REQUIRED" in through_the_tool.content[0].text
    assert agent_signing.status_code == 403 and agent_signing.json()["code"] == "APPROVAL_BY_PERSON_ONLY"
    assert not Run.objects.filter(study_member=True).exists() and not AgentSpend.objects.exists()

    signed = person(grant.user).post(study_path(project_id, study, "approve/"))
    assert signed.status_code == 201 and signed.json()["approved_by_you"], signed.content
    # The members' storms changed after the sign-off (they are derived from the study's factors and inputs): the
    # fingerprint no longer matches, so it is stale.
    DesignStudy.objects.filter(pk=study["id"]).update(climate_factor=1.01)
    stale = call(live_asgi.url, key, "start_design_study", {"project_id": project_id, "study_id": study["id"]})
    assert stale.is_error and "APPROVAL_REQUIRED" in stale.content[0].text

    assert person(grant.user).post(study_path(project_id, study, "approve/")).status_code == 201
    started = call(live_asgi.url, key, "start_design_study", {"project_id": project_id, "study_id": study["id"]})
    assert not started.is_error, started.content[0].text
    assert started.structured_content["status"] == "running" and len(member_runs(study)) == 4


def test_a_started_study_reports_the_sign_off_it_ran_under_after_its_base_scenario_changes(live_asgi):
    grant, key = make_grant(level="launch")
    account_set_runs_need_approval(user=grant.user, required=True)
    project_id, study = drafted_study(live_asgi.url, key)
    owner = person(grant.user)
    signed = owner.post(study_path(project_id, study, "approve/")).json()
    assert start(live_asgi.url, key, project_id, study).status_code == 202
    ran = owner.get(study_path(project_id, study)).json()["approval"]

    with api(live_asgi.url, key) as http:  # the base scenario changes after the study started
        changed = http.patch(f"{PROJECTS}{project_id}/scenarios/{study['base_scenario']}/", json={"duration": 900})
    assert changed.status_code == 200, changed.text
    now = owner.get(study_path(project_id, study)).json()["approval"]

    assert ran["started_fingerprint"] == signed["fingerprint"] == ran["fingerprint"]
    assert ran["changed_since_start"] is False and ran["changes_since_start"] == []
    assert not now["approved"] and now["fingerprint"] != signed["fingerprint"]  # not signed off as it is now, but
    assert now["started_fingerprint"] == signed["fingerprint"]  # it ran as signed off, and that is still said
    assert now["started_approvals"] == signed["approvals"] and now["started_approvals"][0]["by"] == grant.user.username
    assert now["sign_off_required_at_start"] is True
    assert now["changed_since_start"] is True and now["changes_since_start"] == ["the scenario's settings"]
    told = call(live_asgi.url, key, "get_design_study", {"project_id": project_id, "study_id": study["id"]})
    said = told.structured_content["say_to_user"]
    assert f"It is running as signed off by {grant.user.username} on {signed['approvals'][0]['at'][:10]}." in said
    assert "Changed since it started: the scenario's settings." in said


def test_a_study_started_where_no_sign_off_was_asked_reports_that_it_ran_without_one_none_required(live_asgi):
    _, key = make_grant(level="launch")
    project_id, study = drafted_study(live_asgi.url, key)
    with api(live_asgi.url, key) as http:
        draft = http.get(study_path(project_id, study)).json()["approval"]
        assert start(live_asgi.url, key, project_id, study).status_code == 202
        ran = http.get(study_path(project_id, study)).json()["approval"]

    assert draft["started_fingerprint"] is None and draft["sign_off_required_at_start"] is None
    assert draft["changed_since_start"] is None and draft["started_approvals"] == []
    assert ran["started_fingerprint"] == draft["fingerprint"] and ran["started_approvals"] == []
    assert ran["sign_off_required_at_start"] is False and ran["changed_since_start"] is False
    told = call(live_asgi.url, key, "get_design_study", {"project_id": project_id, "study_id": study["id"]})
    said = told.structured_content["say_to_user"]
    assert "It is running without a sign-off (none was required)." in said and "Changed since" not in said


def test_cancel_stops_every_member_and_gives_back_what_none_computed(live_asgi):
    grant, key = make_grant(level="launch")
    project_id, study = drafted_study(live_asgi.url, key)
    assert start(live_asgi.url, key, project_id, study).status_code == 202

    cancelled = call(live_asgi.url, key, "cancel_design_study", {"project_id": project_id, "study_id": study["id"]})
    again = call(live_asgi.url, key, "cancel_design_study", {"project_id": project_id, "study_id": study["id"]})
    listed = call(live_asgi.url, key, "list_design_studies", {"project_id": project_id})

    assert not cancelled.is_error, cancelled.content[0].text
    assert cancelled.structured_content["status"] == "cancelled"
    assert {run.status for run in member_runs(study)} == {RunStatus.CANCELLED}
    assert all(run.cancel_requested for run in member_runs(study))
    assert sum(AgentSpend.objects.filter(grant=grant).values_list("amount", flat=True)) == 0
    assert again.is_error and "STUDY_FINISHED" in again.content[0].text
    assert listed.structured_content["results"] == [
        {"id": study["id"], "name": "four storms", "status": "cancelled", "members": 4, "progress_pct": 100.0}
    ]


def test_a_member_whose_worker_is_lost_runs_once_more_then_is_reported_and_none_is_dropped(live_asgi, settings):
    _, key = make_grant(level="launch")
    project_id, study = drafted_study(live_asgi.url, key)
    assert start(live_asgi.url, key, project_id, study).status_code == 202
    member = DesignMember.objects.filter(study_id=study["id"]).select_related("run").first()

    def lose(run: Run) -> None:
        """The run computes on a worker that then went silent; the reaper's sweep ends it in error."""
        Run.objects.filter(pk=run.pk).update(status=RunStatus.COMPUTING, heartbeat_at="2020-01-01T00:00:00Z")
        assert runs_reap_stale() >= 1

    first = member.run
    lose(first)
    design_study_advance(study_id=study["id"])
    member.refresh_from_db()
    retry = member.run
    assert retry.pk != first.pk and retry.retry_of_id == first.pk and retry.status == RunStatus.QUEUED
    assert retry.package_prefix == first.package_prefix

    lose(retry)
    for other in member_runs(study):
        if other.pk != retry.pk:
            run_cancel(run=other)
    settled = design_study_advance(study_id=study["id"])
    member.refresh_from_db()

    assert member.run.pk == retry.pk, "a member is retried once only"
    assert settled.status == "error" and "No member completed" in settled.status_message
    with api(live_asgi.url, key) as http:
        detail = http.get(study_path(project_id, study)).json()
    assert detail["progress"]["members_done"] == 4 and detail["progress"]["members_failed"] == 1
    assert detail["progress"]["members_cancelled"] == 3
    assert [m["run_status"] for m in detail["members"]].count("error") == 1


def test_the_base_scenario_started_after_its_study_runs_its_own_build_not_a_members_storm(live_asgi):
    _, key = make_grant(level="launch")
    project_id, study = drafted_study(live_asgi.url, key)
    build = latest_run(scenario=Scenario.objects.get(pk=study["base_scenario"]))
    assert start(live_asgi.url, key, project_id, study).status_code == 202

    with api(live_asgi.url, key) as http:
        started = http.post(f"/api/v2/anuga/scenarios/{study['base_scenario']}/run/", json={})

    assert started.status_code == 202, started.text
    run = Run.objects.get(pk=started.json()["id"])
    assert run.pk == build.pk and run.package_prefix == build.package_prefix and not run.study_member


def test_a_study_whose_members_compute_is_not_deleted_until_cancelled_and_its_member_runs_stay(live_asgi):
    _, key = make_grant(level="launch")
    project_id, study = drafted_study(live_asgi.url, key)
    assert start(live_asgi.url, key, project_id, study).status_code == 202

    with api(live_asgi.url, key) as http:
        computing = http.delete(study_path(project_id, study))
        kept = DesignStudy.objects.filter(pk=study["id"]).exists()
        assert http.post(study_path(project_id, study, "cancel/")).status_code == 200
        cancelled = http.delete(study_path(project_id, study))

    assert (computing.status_code, computing.json()["code"]) == (409, "STUDY_RUNNING"), computing.text
    assert "cancel it" in computing.json()["detail"] and kept
    assert cancelled.status_code == 204 and not DesignStudy.objects.filter(pk=study["id"]).exists()
    assert Run.objects.filter(study_member=True).count() == 4  # runs of the base scenario, with what they cost
