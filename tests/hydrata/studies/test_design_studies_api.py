"""Design studies over REST, on the small_test model: one member per AEP, duration and pattern, each with its
storm's total rain, and the estimate a study's members add up to before anything is spent."""

from decimal import Decimal

import pytest

from hydrata.compute.arr import ensemble as ensemble_module
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


@pytest.fixture
def storms_built(monkeypatch) -> list[int]:
    """How many design storms are built (the real function, counted)."""
    built: list[int] = []
    build = ensemble_module.design_storm

    def counted(**arguments):
        built.append(1)
        return build(**arguments)

    monkeypatch.setattr(ensemble_module, "design_storm", counted)
    return built


def test_a_study_is_counted_before_any_storm_is_built_and_refused_past_each_named_limit(model, settings, storms_built):
    built, http, _ = model
    scenario = base_scenario(http, built.project_id)
    inputs = upload_inputs(http, built.project_id)
    path = studies_path(built.project_id)
    # 1% and 20% x 30 and 60 min: 40 members, each 30-minute pattern 6 five-minute steps and each 60-minute one 12.
    settings.HYDRATA_STUDY_MAX_MEMBERS = 39
    members = http.post(path, json=study_body(scenario, inputs))
    settings.HYDRATA_STUDY_MAX_MEMBERS, settings.HYDRATA_STUDY_MAX_PATTERN_STEPS = 40, 11
    pattern = http.post(path, json=study_body(scenario, inputs))
    settings.HYDRATA_STUDY_MAX_PATTERN_STEPS, settings.HYDRATA_STUDY_MAX_STORM_STEPS = 12, 2 * (10 * 6 + 10 * 12) - 1
    steps = http.post(path, json=study_body(scenario, inputs))
    refused_before_building = len(storms_built)
    settings.HYDRATA_STUDY_MAX_STORM_STEPS = 2 * (10 * 6 + 10 * 12)
    at_every_limit = http.post(path, json=study_body(scenario, inputs))

    assert (members.status_code, members.json()["code"]) == (400, "STUDY_TOO_LARGE")
    assert (members.json()["members"], members.json()["max_members"]) == (40, 39)
    assert (pattern.status_code, pattern.json()["code"]) == (400, "STUDY_PATTERN_TOO_LONG")
    assert (pattern.json()["steps"], pattern.json()["max_pattern_steps"], pattern.json()["duration_min"]) == (
        12,
        11,
        60,
    )
    assert "Choose shorter durations" in pattern.json()["detail"]
    assert (steps.status_code, steps.json()["code"]) == (400, "STUDY_STORMS_TOO_LONG")
    assert (steps.json()["storm_steps"], steps.json()["max_storm_steps"]) == (360, 359)
    assert "Choose fewer AEPs or durations" in steps.json()["detail"]
    assert refused_before_building == 0, "a study past a limit is refused before any storm is built"
    assert at_every_limit.status_code == 201, at_every_limit.text
    assert len(storms_built) == 40, "each member's storm is built once when the study is made"
    assert DesignStudy.objects.count() == 1 and DesignMember.objects.count() == 40


def test_the_defaults_refuse_a_study_of_week_long_storms_in_five_minute_steps():
    """The review's study: week-long storms of 2,016 five-minute steps each are past the pattern's limit."""
    from django.conf import settings

    assert settings.HYDRATA_STUDY_MAX_PATTERN_STEPS < 7 * 24 * 60 // 5
    assert settings.HYDRATA_STUDY_MAX_STORM_STEPS < 400 * 7 * 24 * 60 // 5


def stored_chars(study_id: int) -> int:
    """What a study's member rows hold, as text."""
    return sum(len(str(row)) for row in DesignMember.objects.filter(study_id=study_id).values())


def test_a_members_row_stores_no_storm_so_a_storm_twice_as_long_stores_no_more(model):
    built, http, _ = model
    scenario = base_scenario(http, built.project_id)
    inputs = upload_inputs(http, built.project_id)
    path = studies_path(built.project_id)

    short = http.post(path, json=study_body(scenario, inputs, aeps=["1%"], durations_min=[30])).json()
    long = http.post(path, json=study_body(scenario, inputs, aeps=["1%"], durations_min=[60])).json()

    assert len(short["members"]) == len(long["members"]) == 10
    # Six steps or twelve: each member's row is its totals only (its storm is derived from the inputs).
    assert stored_chars(long["id"]) <= stored_chars(short["id"]) * 1.05


def test_a_study_and_its_inputs_are_deleted_at_draft_level_through_their_project_and_an_input_in_use_is_kept(
    model, live_asgi
):
    built, http, grant = model
    scenario = base_scenario(http, built.project_id)
    inputs = upload_inputs(http, built.project_id)
    study = http.post(studies_path(built.project_id), json=study_body(scenario, inputs, aeps=["1%"])).json()
    study_url = f"{studies_path(built.project_id)}{study['id']}/"
    ifd_url = f"{PROJECTS}{built.project_id}/design-inputs/{inputs['ifd']}/"
    other = make_project(grant.user, name="Other")
    _, stranger_key = make_grant(make_user("stranger"), level="draft")
    _, read_key = make_grant(grant.user, level="read")

    with api(live_asgi.url, stranger_key) as stranger, api(live_asgi.url, read_key) as reader:
        strangers = [stranger.delete(study_url), stranger.delete(ifd_url)]
        readers = [reader.delete(study_url), reader.delete(ifd_url)]
    elsewhere = [
        http.delete(f"{studies_path(other.pk)}{study['id']}/"),
        http.delete(f"{PROJECTS}{other.pk}/design-inputs/{inputs['ifd']}/"),
    ]
    in_use = http.delete(ifd_url)

    assert [(r.status_code, r.json()["code"]) for r in strangers] == [(404, "PROJECT_NOT_FOUND")] * 2
    assert [(r.status_code, r.json()["code"]) for r in readers] == [(403, "GRANT_LEVEL_TOO_LOW")] * 2
    assert [(r.status_code, r.json()["code"]) for r in elsewhere] == [
        (404, "DESIGN_STUDY_NOT_FOUND"),
        (404, "DESIGN_INPUT_NOT_FOUND"),
    ]
    assert (in_use.status_code, in_use.json()["code"], in_use.json()["studies"]) == (
        409,
        "DESIGN_INPUT_IN_USE",
        [study["id"]],
    )
    assert f"{study['id']} ('{study['name']}')" in in_use.json()["detail"]

    assert http.delete(study_url).status_code == 204
    assert http.get(study_url).status_code == 404 and http.delete(study_url).status_code == 404
    assert not DesignMember.objects.exists()
    assert http.delete(ifd_url).status_code == 204
    listed = http.get(f"{PROJECTS}{built.project_id}/design-inputs/").json()["results"]
    assert sorted(item["id"] for item in listed) == sorted([inputs["temporal_patterns"], inputs["storm_losses"]])
