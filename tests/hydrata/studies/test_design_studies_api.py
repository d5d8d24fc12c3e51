"""Design studies over REST, on the small_test model: one member per AEP, duration and pattern, each with its
storm's total rain, and the estimate a study's members add up to before anything is spent."""

from decimal import Decimal

import pytest

from hydrata.studies.models import DesignMember, DesignStudy
from tests.factories import make_grant, make_project, make_user
from tests.hydrata.studies.helpers import base_scenario, upload_inputs
from tests.model_setup import PROJECTS, api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)

IFD_MM = {("1%", 30): 70.8, ("1%", 60): 91.5, ("20%", 30): 37.2, ("20%", 60): 48.1}  # Synthetic_IFD_Depths.csv


@pytest.fixture
def model(live_asgi):
    grant, key = make_grant(level="draft")
    built = small_test_model(live_asgi.url, key)
    http = api(live_asgi.url, key)
    yield built, http, grant
    http.close()


def studies_path(project_id: int) -> str:
    return f"{PROJECTS}{project_id}/design-studies/"


def study_body(scenario: dict, inputs: dict, **fields) -> dict:
    return {
        "name": "1% and 20% AEP",
        "base_scenario": scenario["id"],
        **inputs,
        "aeps": ["1%", "20%"],
        "durations_min": [60, 30],
        "areal_reduction_factor": 0.95,
        "climate_factor": 1.1,
        **fields,
    }


def test_a_study_has_a_member_per_aep_duration_and_pattern_with_its_rain_and_the_estimate_summed(model):
    built, http, _ = model
    scenario = base_scenario(http, built.project_id)
    inputs = upload_inputs(http, built.project_id)

    created = http.post(studies_path(built.project_id), json=study_body(scenario, inputs))
    detail = http.get(f"{studies_path(built.project_id)}{created.json()['id']}/")
    listed = http.get(studies_path(built.project_id))

    assert created.status_code == 201, created.text
    body = detail.json()
    assert body["durations_min"] == [30, 60] and body["central_statistic"] == "median"
    assert body["rain_binding"] == "rainfall_layer" and body["rainfall_layer"] == built.rows["rainfall"]
    assert body["rain_units"] == "mm/interval"
    assert (body["initial_loss_mm"], body["continuing_loss_mm_h"]) == (28.0, 2.5)  # read from the Data Hub file
    members = body["members"]
    assert len(members) == 2 * 2 * 10
    for member in members:
        assert member["rain_depth_mm"] == pytest.approx(IFD_MM[member["aep"], member["duration_min"]] * 0.95 * 1.1)
        assert 0 <= member["excess_depth_mm"] <= member["rain_depth_mm"] - member["burst_initial_loss_mm"] + 1e-9
        assert member["aep_bin"] == ("rare" if member["aep"] == "1%" else "frequent")
        assert member["simulated_s"] == 3600  # the base scenario's duration outlasts every storm
    assert {m["burst_initial_loss_mm"] for m in members if m["aep"] == "1%" and m["duration_min"] == 60} == {20.0}
    # Each member is a run of the base scenario for its 3600 s: the scenario's own price, forty times.
    estimate = body["estimate"]
    assert estimate["members"] == 40
    assert estimate["mesh_triangle_count_estimate"] == scenario["mesh_triangle_count_estimate"]
    assert Decimal(estimate["compute_cost_estimate"]) == 40 * Decimal(scenario["compute_cost_estimate"])
    assert estimate["vcpu_hours_estimate"] == pytest.approx(40 * scenario["vcpu_hours_estimate"], rel=1e-3)
    assert estimate["triangle_steps"] > 40 * scenario["mesh_triangle_count_estimate"]
    assert "panel=study" in body["ui_url"] and f"study={body['id']}" in body["ui_url"]
    assert f"scenario={scenario['id']}" in body["ui_url"] and "panel=study" in listed.json()["ui_url"]
    assert [item["id"] for item in listed.json()["results"]] == [body["id"]] and "members" not in listed.json()[
        "results"
    ][0]


def test_without_a_rainfall_layer_the_storms_fall_uniformly_on_the_whole_model_and_losses_may_be_given(model):
    built, http, _ = model
    scenario = base_scenario(http, built.project_id, rainfall=None)
    inputs = upload_inputs(http, built.project_id)
    del inputs["storm_losses"]

    created = http.post(
        studies_path(built.project_id),
        json=study_body(scenario, inputs, aeps=["1 %"], durations_min=[30], initial_loss_mm=0, continuing_loss_mm_h=0),
    )

    assert created.status_code == 201, created.text
    body = created.json()
    assert body["rain_binding"] == "whole_model" and body["rainfall_layer"] is None
    assert body["inputs"]["storm_losses"] is None and body["aeps"] == ["1%"]  # spelt as the IFD table spells it
    for member in body["members"]:
        assert member["excess_depth_mm"] == pytest.approx(member["rain_depth_mm"])  # no loss at all


def test_what_the_inputs_cannot_make_is_refused_naming_it_and_nothing_is_stored(model):
    built, http, _ = model
    scenario = base_scenario(http, built.project_id)
    inputs = upload_inputs(http, built.project_id)
    path = studies_path(built.project_id)

    mismatch = http.post(path, json=study_body(scenario, inputs, aeps=["0.5%"], durations_min=[120]))
    wrong_kind = http.post(path, json=study_body(scenario, {**inputs, "ifd": inputs["temporal_patterns"]}))
    no_losses = http.post(path, json=study_body(scenario, {**inputs, "storm_losses": None}))
    unknown_scenario = http.post(path, json=study_body({"id": 987654}, inputs))

    assert mismatch.status_code == 400 and mismatch.json()["code"] == "STUDY_INPUTS_MISMATCH"
    assert "the IFD table has no AEP 0.5%" in mismatch.json()["detail"]
    assert wrong_kind.status_code == 400 and wrong_kind.json()["code"] == "DESIGN_INPUT_WRONG_KIND"
    assert wrong_kind.json()["field"] == "ifd"
    assert no_losses.status_code == 400 and no_losses.json()["code"] == "STUDY_INPUTS_MISMATCH"
    assert unknown_scenario.status_code == 404 and unknown_scenario.json()["code"] == "SCENARIO_NOT_FOUND"
    assert not DesignStudy.objects.exists() and not DesignMember.objects.exists()


def test_a_base_scenario_whose_mesh_cannot_be_estimated_is_refused_with_the_reason(model):
    built, http, _ = model
    scenario = base_scenario(http, built.project_id, boundary=None)
    inputs = upload_inputs(http, built.project_id)

    response = http.post(studies_path(built.project_id), json=study_body(scenario, inputs))

    assert response.status_code == 422 and response.json()["code"] == "BOUNDARY_EMPTY"
    assert not DesignStudy.objects.exists()


def test_a_study_is_seen_only_through_a_project_the_caller_may_see_and_made_only_at_draft(model, live_asgi):
    built, http, grant = model
    scenario = base_scenario(http, built.project_id)
    inputs = upload_inputs(http, built.project_id)
    study = http.post(studies_path(built.project_id), json=study_body(scenario, inputs, aeps=["1%"])).json()
    _, stranger_key = make_grant(make_user("stranger"), level="draft")
    _, read_key = make_grant(grant.user, level="read")
    other = make_project(grant.user, name="Other")

    with api(live_asgi.url, stranger_key) as stranger, api(live_asgi.url, read_key) as reader:
        hidden = stranger.get(f"{studies_path(built.project_id)}{study['id']}/")
        hidden_list = stranger.get(studies_path(built.project_id))
        read_detail = reader.get(f"{studies_path(built.project_id)}{study['id']}/")
        read_create = reader.post(studies_path(built.project_id), json=study_body(scenario, inputs))
    elsewhere = http.get(f"{studies_path(other.pk)}{study['id']}/")

    assert hidden.status_code == 404 and hidden.json()["code"] == "PROJECT_NOT_FOUND"
    assert hidden_list.status_code == 404
    assert read_detail.status_code == 200 and len(read_detail.json()["members"]) == 20
    assert read_create.status_code == 403 and read_create.json()["code"] == "GRANT_LEVEL_TOO_LOW"
    assert elsewhere.status_code == 404 and elsewhere.json()["code"] == "DESIGN_STUDY_NOT_FOUND"
