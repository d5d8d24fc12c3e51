"""Design-input files over REST: read whole and stored as what was read, or refused with every bad row named and
nothing stored; seen only through a project the caller may see."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from hydrata.studies.models import DesignInput
from tests.data import ARR
from tests.factories import make_project, make_user
from tests.hostile_files import LOSSES_HOSTILE
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


# --- files as they come: line endings, long cells, characters no database holds, the review's losses file -------

FILES = {"ifd": "Synthetic_IFD_Depths.csv", "temporal_patterns": "Synthetic_Increments.csv"}
FILES["storm_losses"] = "Synthetic_DataHub.txt"


def multipart(client, project, kind: str, data: bytes, name: str = "file.csv"):
    return client.post(
        inputs_path(project), {"kind": kind, "base_file": SimpleUploadedFile(name, data)}, format="multipart"
    )


@pytest.mark.parametrize("kind", list(FILES))
def test_a_file_with_classic_mac_line_endings_is_read_as_the_same_file(kind):
    user = make_user()
    project = make_project(user)
    client = api_for(user)
    text = (ARR / FILES[kind]).read_text().replace("\r\n", "\n")

    unix = multipart(client, project, kind, text.encode())
    mac = multipart(client, project, kind, text.replace("\n", "\r").encode())

    assert unix.status_code == 201 and mac.status_code == 201, mac.content[:300]
    assert mac.json()["summary"] == unix.json()["summary"]


@pytest.mark.parametrize("kind", list(FILES))
def test_a_cell_longer_than_a_csv_cell_may_be_is_a_bad_row_named_by_its_line_not_a_500(kind):
    user = make_user()
    project = make_project(user)
    lines = (ARR / FILES[kind]).read_text().splitlines()
    lines.insert(2, '"' + "9" * 200_000 + '"')

    response = multipart(api_for(user), project, kind, "\n".join(lines).encode())

    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert body["code"] == "ARR_FILE_INVALID" and body["rows"] == [
        {"line": 3, "reason": "a cell is longer than 131,072 characters"}
    ]
    assert not DesignInput.objects.exists()


@pytest.mark.parametrize("kind", list(FILES))
def test_a_nul_in_a_file_sent_by_multipart_is_400_invalid_text_naming_its_line_and_nothing_is_stored(kind):
    user = make_user()
    project = make_project(user)
    lines = (ARR / FILES[kind]).read_text().splitlines()
    lines[3] = lines[3][:5] + "\x00" + lines[3][5:]

    response = multipart(api_for(user), project, kind, "\n".join(lines).encode("cp1252"))

    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert (body["code"], body["field"], body["line"]) == ("INVALID_TEXT", "base_file", 4)
    assert "line 4" in body["detail"] and "NUL" in body["detail"]
    assert not DesignInput.objects.exists()


def test_the_reviews_losses_file_of_long_cells_of_spaces_is_refused_by_its_rows_in_a_moment():
    """The review's file: pre-burst cells of 128 KB of spaces, as many as 4 MiB holds. Each held every thread of
    the web process for about a minute; now they are bad rows, named."""
    user = make_user()
    project = make_project(user)
    text = LOSSES_HOSTILE["pre-burst depth cells of spaces"](4 * 1024 * 1024)

    response = multipart(api_for(user), project, "storm_losses", text.encode(), name="datahub.txt")

    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert body["code"] == "ARR_FILE_INVALID" and body["bad_row_count"] == text.count("\n") - 6
    assert body["rows"][0]["line"] == 7 and "is not 'depth (ratio)'" in body["rows"][0]["reason"]
