"""The design-study tools through the official MCP client, on the small_test model: the study made from the design
inputs the agent uploaded, with its storms and price, read back; an input of the wrong kind or of another project
refused, naming it."""

import pytest

from hydrata.studies.models import DesignStudy
from tests.data import ARR
from tests.factories import make_grant, make_project
from tests.hydrata.studies.helpers import FILES, base_scenario, uploaded_inputs
from tests.mcp_client import call
from tests.model_setup import PROJECTS, api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def arranged(live_asgi):
    grant, key = make_grant(level="draft")
    built = small_test_model(live_asgi.url, key)
    with api(live_asgi.url, key) as http:
        scenario = base_scenario(http, built.project_id)
    inputs = uploaded_inputs(live_asgi.url, key, built.project_id)
    return built, {**scenario, "inputs": inputs}, key, grant.user


def arguments(built, scenario, **more):
    return {
        "project_id": built.project_id,
        "base_scenario_id": scenario["id"],
        **scenario["inputs"],
        "aeps": ["1%"],
        "durations_min": [30, 60],
        **more,
    }


def test_a_study_is_made_from_the_files_and_handed_back_with_its_storms_and_price(live_asgi, arranged):
    built, scenario, key, _ = arranged

    made = call(live_asgi.url, key, "create_design_study", arguments(built, scenario, climate_factor=1.1))
    read = call(
        live_asgi.url,
        key,
        "get_design_study",
        {"project_id": built.project_id, "study_id": DesignStudy.objects.get().pk},
    )

    assert not made.is_error, made.content[0].text
    result = made.structured_content
    assert [(s["aep"], s["duration_min"], s["patterns"]) for s in result["storms"]] == [("1%", 30, 10), ("1%", 60, 10)]
    assert [s["rain_depth_mm"] for s in result["storms"]] == [pytest.approx(70.8 * 1.1), pytest.approx(91.5 * 1.1)]
    assert all(0 <= s["excess_mm_min"] <= s["excess_mm_max"] < s["rain_depth_mm"] for s in result["storms"])
    assert result["estimate"]["members"] == 20 and result["summary"]["members"] == 20
    assert "panel=study" in result["ui_url"] and f"study={result['id']}" in result["ui_url"]
    assert "20 storms" in result["say_to_user"] and "nothing has been spent" in result["say_to_user"]
    assert f"USD {result['estimate']['compute_cost_estimate']}" in result["say_to_user"]
    assert not read.is_error and read.structured_content["storms"] == result["storms"]
    assert read.structured_content["say_to_user"].startswith("The design study 'ARR 2019: 1% AEP' is of scenario")


def test_a_study_of_a_base_without_gauges_or_flow_lines_is_made_with_a_warning_that_it_gives_no_ensemble_table(
    live_asgi, arranged
):
    built, scenario, key, _ = arranged

    made = call(live_asgi.url, key, "create_design_study", arguments(built, scenario))

    assert not made.is_error, made.content[0].text
    result = made.structured_content
    (warning,) = result["summary"]["warnings"]
    assert f"Base scenario {scenario['id']} has no gauges or flow lines" in warning and "no ensemble table" in warning
    assert result["say_to_user"].endswith(warning)


def test_a_design_input_of_the_wrong_kind_is_refused_naming_it_and_no_study_is_made(live_asgi, arranged):
    """The refusal says what the input is and what was needed, not the platform's field name (the tool's
    `losses` is the platform's `storm_losses`)."""
    built, scenario, key, _ = arranged
    patterns = scenario["inputs"]["temporal_patterns"]

    refused = call(live_asgi.url, key, "create_design_study", arguments(built, scenario, ifd=patterns))

    text = refused.content[0].text
    assert refused.is_error and "DESIGN_INPUT_WRONG_KIND" in text
    assert f"Design input {patterns} is the Temporal patterns" in text and "not the IFD depths table" in text
    assert not DesignStudy.objects.exists()


def test_another_projects_design_input_is_not_found_and_no_study_is_made(live_asgi, arranged):
    built, scenario, key, _ = arranged
    stranger, stranger_key = make_grant(level="draft")
    elsewhere = make_project(stranger.user)
    theirs = uploaded_inputs(live_asgi.url, stranger_key, elsewhere.pk, {"ifd": FILES["ifd"]})

    refused = call(live_asgi.url, key, "create_design_study", arguments(built, scenario, ifd=theirs["ifd"]))

    assert refused.is_error and "NOT_FOUND" in refused.content[0].text
    assert not DesignStudy.objects.exists()


def test_a_malformed_file_is_refused_at_its_upload_with_its_bad_rows_named(live_asgi, arranged):
    built, _, key, _ = arranged
    malformed = (ARR / "Malformed_IFD_Depths.csv").read_bytes()

    with api(live_asgi.url, key) as http:
        refused = http.post(
            f"{PROJECTS}{built.project_id}/design-inputs/",
            data={"kind": "ifd"},
            files={"base_file": ("Malformed_IFD_Depths.csv", malformed, "text/csv")},
        )

    assert refused.status_code == 400 and refused.json()["code"] == "ARR_FILE_INVALID"
    assert all(f"line {line}" in refused.text for line in (10, 11, 13))


def test_a_read_key_may_read_a_study_but_not_make_one(live_asgi, arranged):
    built, scenario, key, user = arranged
    made = call(live_asgi.url, key, "create_design_study", arguments(built, scenario))
    _, read_key = make_grant(user, level="read")

    refused = call(live_asgi.url, read_key, "create_design_study", arguments(built, scenario))
    read = call(
        live_asgi.url,
        read_key,
        "get_design_study",
        {"project_id": built.project_id, "study_id": made.structured_content["id"]},
    )

    assert refused.is_error and "GRANT_LEVEL_TOO_LOW" in refused.content[0].text
    assert not read.is_error and read.structured_content["estimate"] == made.structured_content["estimate"]
