"""Design-input files over REST: read whole and stored as what was read, or refused with every bad row named and
nothing stored; seen only through a project the caller may see."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from hydrata.studies.models import DesignInput
from tests.data import ARR
from tests.factories import make_project, make_user
from tests.hydrata.observations.helpers import PROJECTS, api_for

pytestmark = pytest.mark.django_db(transaction=True)


def inputs_path(project) -> str:
    return f"{PROJECTS}{project.pk}/design-inputs/"


def test_an_ifd_table_uploaded_as_a_file_is_stored_with_what_it_holds():
    user = make_user()
    project = make_project(user)
    client = api_for(user)
    data = (ARR / "Synthetic_IFD_Depths.csv").read_bytes()

    created = client.post(
        inputs_path(project),
        {"kind": "ifd", "base_file": SimpleUploadedFile("Synthetic_IFD_Depths.csv", data, content_type="text/csv")},
        format="multipart",
    )
    listed = client.get(inputs_path(project))

    assert created.status_code == 201, created.content
    body = created.json()
    assert body["kind"] == "ifd" and body["name"] == "Synthetic_IFD_Depths.csv"
    assert body["summary"]["aeps"] == ["63.2%", "50%", "20%", "10%", "5%", "2%", "1%"]
    assert body["summary"]["durations_min"] == [10, 30, 60, 120]
    assert body["summary"]["depth_range_mm"] == [14.0, 115.1]
    assert body["ui_url"].startswith("http") and "panel=time-series" in body["ui_url"]
    assert listed.status_code == 200 and [item["id"] for item in listed.json()["results"]] == [body["id"]]


@pytest.mark.parametrize(
    ("kind", "file", "summary"),
    [
        ("temporal_patterns", "Synthetic_Increments.csv", {"pattern_count": 90, "regions": ["Synthetic Region"]}),
        ("storm_losses", "Synthetic_DataHub.txt", {"initial_loss_mm": 28.0, "continuing_loss_mm_h": 2.5}),
    ],
)
def test_patterns_and_losses_sent_as_text_are_stored(kind, file, summary):
    user = make_user()
    project = make_project(user)

    created = api_for(user).post(
        inputs_path(project), {"kind": kind, "name": file, "content": (ARR / file).read_text()}, format="json"
    )

    assert created.status_code == 201, created.content
    assert created.json()["summary"].items() >= summary.items()


def test_a_malformed_file_is_refused_naming_every_bad_row_and_nothing_is_stored():
    user = make_user()
    project = make_project(user)

    response = api_for(user).post(
        inputs_path(project),
        {"kind": "temporal_patterns", "content": (ARR / "Malformed_Increments.csv").read_text()},
        format="json",
    )

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "ARR_FILE_INVALID" and body["kind"] == "temporal_patterns"
    assert [row["line"] for row in body["rows"]] == [2, 4, 13, 41] and body["bad_row_count"] == 4
    assert "line 2" in body["detail"] and "line 41" in body["detail"]
    assert not DesignInput.objects.exists()


def test_a_file_given_both_ways_or_neither_is_a_validation_error():
    user = make_user()
    project = make_project(user)
    client = api_for(user)

    neither = client.post(inputs_path(project), {"kind": "ifd"}, format="json")
    unknown_kind = client.post(inputs_path(project), {"kind": "rainfall", "content": "x"}, format="json")

    assert neither.status_code == 400 and neither.json()["code"] == "VALIDATION_ERROR"
    assert unknown_kind.status_code == 400 and unknown_kind.json()["code"] == "VALIDATION_ERROR"


def test_another_persons_project_and_its_inputs_are_404_and_a_read_key_cannot_upload():
    owner = make_user("owner")
    project = make_project(owner)
    created = api_for(owner).post(
        inputs_path(project), {"kind": "ifd", "content": (ARR / "Synthetic_IFD_Depths.csv").read_text()}, format="json"
    )
    stranger = api_for(make_user("stranger"))

    assert stranger.get(inputs_path(project)).status_code == 404
    assert stranger.get(f"{inputs_path(project)}{created.json()['id']}/").json()["code"] == "PROJECT_NOT_FOUND"
    other = make_project(owner, name="Other")
    missing = api_for(owner).get(f"{inputs_path(other)}{created.json()['id']}/")
    assert missing.status_code == 404 and missing.json()["code"] == "DESIGN_INPUT_NOT_FOUND"
    refused = api_for(owner, level="read").post(inputs_path(project), {"kind": "ifd", "content": "x"}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "GRANT_LEVEL_TOO_LOW"
