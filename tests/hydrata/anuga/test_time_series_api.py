"""Time series through the REST API: rows checked one by one, stored in UTC, a bad row named by its index."""

import json
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from rest_framework.test import APIClient

from hydrata.anuga.models import TimeSeries
from tests.factories import make_grant, make_project, make_user

pytestmark = pytest.mark.django_db(transaction=True)

PROJECTS = "/api/v2/anuga/projects/"
ROWS = [
    {"timestamp": "2024-01-01T00:00:00Z", "value": 0.0},
    {"timestamp": "2024-01-01T00:15:00Z", "value": 50.0},
    {"timestamp": "2024-01-01T00:30:00Z", "value": 12.5},
]


def api_for(user, *, level: str = "draft") -> APIClient:
    _, key = make_grant(user, level=level)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def series_body(rows: list, **fields) -> dict:
    return {"name": "Gauge 1", "series_type": "hyetograph", "units": "mm/hr", "data": {"rowData": rows}, **fields}


def create(client: APIClient, project_id: int, rows: list, **fields):
    return client.post(f"{PROJECTS}{project_id}/time-series/", series_body(rows, **fields), format="json")


@pytest.fixture
def owner():
    return make_user()


@pytest.fixture
def client(owner) -> APIClient:
    return api_for(owner)


@pytest.fixture
def project(owner):
    return make_project(owner)


def assert_refused(response, *words: str) -> None:
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "INVALID_TIME_SERIES"
    for word in words:
        assert word in response.json()["detail"]
    assert not TimeSeries.objects.exists()


# --- creating and reading --------------------------------------------------------------------------------------


def test_creating_a_series_stores_its_rows_in_utc_and_answers_with_the_summary(client, project):
    response = create(client, project.pk, ROWS, location_name="Creek gauge", source="BoM")

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["name"] == "Gauge 1" and body["series_type"] == "hyetograph" and body["units"] == "mm/hr"
    assert body["timezone"] == "UTC" and body["location_name"] == "Creek gauge" and body["source"] == "BoM"
    assert body["row_count"] == 3
    assert body["first_timestamp"] == "2024-01-01T00:00:00Z" and body["last_timestamp"] == "2024-01-01T00:30:00Z"
    assert body["data"]["rowData"] == ROWS
    assert TimeSeries.objects.get(pk=body["id"]).project_id == project.pk


def test_rows_sent_out_of_order_are_stored_sorted_by_time(client, project):
    response = create(client, project.pk, [ROWS[2], ROWS[0], ROWS[1]])

    assert response.status_code == 201
    assert response.json()["data"]["rowData"] == ROWS
    assert response.json()["first_timestamp"] == "2024-01-01T00:00:00Z"


def test_naive_timestamps_are_read_in_the_given_timezone_and_offsets_are_kept(client, project):
    rows = [
        {"timestamp": "2024-01-01T10:00:00", "value": 1},  # AEDT, UTC+11, in January
        {"timestamp": "2024-07-01T10:00:00", "value": 2},  # AEST, UTC+10, in July
        {"timestamp": "2024-03-01T00:00:00+05:30", "value": 3},
    ]  # an explicit offset wins

    response = create(client, project.pk, rows, timezone="Australia/Sydney")

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["timezone"] == "Australia/Sydney"
    assert [row["timestamp"] for row in body["data"]["rowData"]] == [
        "2023-12-31T23:00:00Z",
        "2024-02-29T18:30:00Z",
        "2024-07-01T00:00:00Z",
    ]
    assert body["first_timestamp"] == "2023-12-31T23:00:00Z" and body["last_timestamp"] == "2024-07-01T00:00:00Z"
    assert [row["value"] for row in body["data"]["rowData"]] == [1.0, 3.0, 2.0]


def test_the_list_has_no_rows_and_the_detail_has_them(client, project):
    created = create(client, project.pk, ROWS).json()
    reader = api_for(project.owner, level="read")

    listed = reader.get(f"{PROJECTS}{project.pk}/time-series/")
    detail = reader.get(f"{PROJECTS}{project.pk}/time-series/{created['id']}/")

    assert listed.status_code == 200
    [summary] = listed.json()["results"]
    assert summary["id"] == created["id"] and summary["row_count"] == 3
    assert "data" not in summary and "rows" not in summary
    assert summary["first_timestamp"] == "2024-01-01T00:00:00Z"
    assert summary["last_timestamp"] == "2024-01-01T00:30:00Z"
    assert detail.status_code == 200
    assert detail.json()["data"]["rowData"] == ROWS
    assert detail.json()["first_timestamp"] == created["first_timestamp"]
    assert detail.json()["last_timestamp"] == created["last_timestamp"]


def test_a_series_of_another_project_is_time_series_not_found(client, owner, project):
    created = create(client, project.pk, ROWS).json()
    other = make_project(owner, name="Other")

    response = client.get(f"{PROJECTS}{other.pk}/time-series/{created['id']}/")

    assert response.status_code == 404
    assert response.json()["code"] == "TIME_SERIES_NOT_FOUND"


# --- refusals --------------------------------------------------------------------------------------------------


def test_a_row_with_a_bad_timestamp_is_refused_naming_its_index_and_nothing_is_stored(client, project):
    rows = [ROWS[0], ROWS[1], {"timestamp": "yesterday", "value": 3}]

    response = create(client, project.pk, rows)

    assert_refused(response, "rowData[2]", "yesterday")
    assert response.json()["row"] == 2


@pytest.mark.parametrize("stamp", [None, "", 1704067200, "2024-13-01T00:00:00Z"])
def test_other_timestamps_that_are_not_iso_8601_are_refused_naming_the_row(client, project, stamp):
    response = create(client, project.pk, [ROWS[0], {"timestamp": stamp, "value": 1}])

    assert_refused(response, "rowData[1]")


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00"])
def test_a_timestamp_that_cannot_be_expressed_in_utc_is_refused_naming_the_row(client, project, stamp):
    response = create(client, project.pk, [ROWS[0], {"timestamp": stamp, "value": 1}], timezone="Australia/Sydney")

    assert_refused(response, "rowData[1]")


@pytest.mark.parametrize("value", ["abc", None, True, "NaN", "1e400", [1], {"mm": 1}])
def test_a_value_that_is_not_a_finite_number_is_refused_naming_the_row(client, project, value):
    response = create(
        client, project.pk, [ROWS[0], ROWS[1], ROWS[2], {"timestamp": "2024-01-01T01:00:00Z", "value": value}]
    )

    assert_refused(response, "rowData[3]", "value")
    assert response.json()["row"] == 3


def test_a_row_that_is_not_an_object_is_refused_naming_it(client, project):
    response = create(client, project.pk, [ROWS[0], ["2024-01-01T00:15:00Z", 1]])

    assert_refused(response, "rowData[1]")


def test_two_rows_at_the_same_instant_are_refused(client, project):
    rows = [
        {"timestamp": "2024-01-01T00:00:00Z", "value": 1},
        {"timestamp": "2024-01-01T11:00:00+11:00", "value": 2},
    ]  # the same instant, written another way

    response = create(client, project.pk, rows)

    assert_refused(response, "2024-01-01T00:00:00+00:00")


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "../etc/passwd", "Australia", "UTC+10"])
def test_an_unknown_timezone_is_refused(client, project, zone):
    response = create(client, project.pk, ROWS, timezone=zone)

    assert_refused(response, "IANA")


@pytest.mark.parametrize("data", [{"rowData": []}, {"rows": ROWS}, ROWS, "rowData"])
def test_data_without_rows_is_refused(client, project, data):
    response = client.post(f"{PROJECTS}{project.pk}/time-series/", {**series_body([]), "data": data}, format="json")

    assert_refused(response, "rowData")


def test_an_unknown_series_type_is_a_validation_error(client, project):
    response = create(client, project.pk, ROWS, series_type="snowfall")

    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_ERROR" and response.json()["detail"].startswith("series_type:")
    assert not TimeSeries.objects.exists()


def test_a_second_series_with_the_same_name_in_the_project_is_a_conflict(client, owner, project):
    assert create(client, project.pk, ROWS).status_code == 201

    again = create(client, project.pk, ROWS, name="Gauge 1 ")
    elsewhere = create(client, make_project(owner, name="Other").pk, ROWS)

    assert again.status_code == 409
    assert again.json()["code"] == "TIME_SERIES_EXISTS" and "Gauge 1" in again.json()["detail"]
    assert elsewhere.status_code == 201
    assert TimeSeries.objects.filter(project=project).count() == 1


def test_creating_needs_a_draft_key_and_a_writable_project(owner, project):
    viewer = make_user()
    project.memberships.create(user=viewer, role="viewer")

    read_key = create(api_for(owner, level="read"), project.pk, ROWS)
    as_viewer = create(api_for(viewer), project.pk, ROWS)
    as_stranger = create(api_for(make_user()), project.pk, ROWS)

    assert read_key.status_code == 403 and read_key.json()["code"] == "GRANT_LEVEL_TOO_LOW"
    assert as_viewer.status_code == 403 and as_viewer.json()["code"] == "PROJECT_READ_ONLY"
    assert as_stranger.status_code == 404 and as_stranger.json()["code"] == "PROJECT_NOT_FOUND"
    assert not TimeSeries.objects.exists()


# --- size limits -----------------------------------------------------------------------------------------------


def minute_rows(count: int) -> list[dict]:
    start = datetime(2024, 1, 1, tzinfo=ZoneInfo("Australia/Sydney"))
    return [
        {"timestamp": (start + timedelta(minutes=i)).isoformat(), "value": round(i * 0.001234, 6)} for i in range(count)
    ]


def test_a_70000_row_series_under_the_row_limit_is_accepted(client, project):
    rows = minute_rows(70_000)
    assert len(json.dumps(series_body(rows))) > 2_621_440  # Django's default body limit

    response = create(client, project.pk, rows)

    assert response.status_code == 201, response.content[:300]
    assert response.json()["row_count"] == 70_000


def test_a_series_over_the_row_limit_is_refused_by_the_row_limit_not_by_the_body_size(client, project, settings):
    rows = minute_rows(settings.HYDRATA_TIME_SERIES_MAX_ROWS + 1)

    response = create(client, project.pk, rows)

    assert_refused(response, "at most")


def test_a_body_over_the_request_size_limit_is_413_with_a_code(client, project, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000

    response = create(client, project.pk, minute_rows(500))

    assert response.status_code == 413, response.content[:300]
    assert response.json()["code"] == "REQUEST_TOO_LARGE"
    assert "10,000" in response.json()["detail"]
    assert not TimeSeries.objects.exists()


def test_a_description_over_the_length_limit_is_refused(client, project):
    response = create(client, project.pk, ROWS, description="d" * 5001)

    assert response.status_code == 400 and response.json()["code"] == "VALIDATION_ERROR"
    assert "description" in response.json()["detail"]
    assert not TimeSeries.objects.exists()


# --- units -----------------------------------------------------------------------------------------------------

STORM_TIMES = ["2024-01-01T00:00:00Z", "2024-01-01T00:10:00Z", "2024-01-01T00:20:00Z", "2024-01-01T00:30:00Z"]


def storm_rows(values: list[float]) -> list[dict]:
    return [{"timestamp": when, "value": value} for when, value in zip(STORM_TIMES, values, strict=True)]


@pytest.mark.parametrize(
    ("units", "values", "canonical"),
    [
        ("mm per interval", [0, 5, 10, 3], "mm/interval"),
        ("cumulative mm", [0, 5, 15, 18], "mm cumulative"),
        ("MM/Interval", [0, 5, 10, 3], "mm/interval"),
    ],
)
def test_a_storm_in_mm_per_interval_or_cumulative_mm_is_stored_under_one_name_and_says_what_the_model_applies(
    client, project, units, values, canonical
):
    response = create(client, project.pk, storm_rows(values), units=units)

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["units"] == canonical and TimeSeries.objects.get().units == canonical
    assert body["applied"]["applies_as"] == "rain" and body["applied"]["units"] == canonical
    assert body["applied"]["total_depth_mm"] == pytest.approx(18)
    assert body["applied"]["peak_intensity_mm_per_h"] == pytest.approx(60)  # 10 mm in ten minutes
    assert body["applied"]["starts_at"] == STORM_TIMES[0] and body["applied"]["ends_at"] == STORM_TIMES[-1]
    assert client.get(f"{PROJECTS}{project.pk}/time-series/{body['id']}/").json()["applied"] == body["applied"]


def test_an_intensity_series_applies_the_area_under_its_line_and_its_highest_row(client, project):
    body = create(client, project.pk, storm_rows([0, 60, 60, 0]), units="mm/h").json()

    assert body["units"] == "mm/hr"
    assert body["applied"]["total_depth_mm"] == pytest.approx(20)  # 5 + 10 + 5 mm
    assert body["applied"]["peak_intensity_mm_per_h"] == pytest.approx(60)


def test_a_hydrograph_says_the_volume_and_the_peak_flow_it_brings_in(client, project):
    rows = storm_rows([0, 2, 4, 0])
    body = create(client, project.pk, rows, series_type="hydrograph", units="m³/s").json()

    assert body["units"] == "m3/s"
    assert body["applied"] == {
        "applies_as": "flow",
        "units": "m3/s",
        "meaning": "flow",
        "starts_at": STORM_TIMES[0],
        "ends_at": STORM_TIMES[-1],
        "volume_m3": pytest.approx(600 + 1800 + 1200),
        "peak_m3_per_s": pytest.approx(4),
    }


@pytest.mark.parametrize(
    ("series_type", "units", "accepted"),
    [
        ("hyetograph", "mm", ["mm/hr", "mm/interval", "mm cumulative"]),
        ("hyetograph", "in/hr", ["mm/hr", "mm/interval", "mm cumulative"]),
        ("hydrograph", "L/s", ["m3/s"]),
        ("stage", "ft", ["m"]),
    ],
)
def test_units_the_model_does_not_know_are_refused_with_a_code_that_lists_the_ones_it_does(
    client, project, series_type, units, accepted
):
    response = create(client, project.pk, ROWS, series_type=series_type, units=units)

    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "UNKNOWN_UNITS" and body["accepted"] == accepted
    assert all(name in body["detail"] for name in accepted) and repr(units) in body["detail"]
    assert not TimeSeries.objects.exists()


def test_cumulative_rain_that_decreases_is_refused_naming_the_row_as_it_was_sent(client, project):
    sent = [storm_rows([0, 5, 4, 18])[index] for index in (3, 0, 2, 1)]  # out of time order

    response = create(client, project.pk, sent, units="mm cumulative")

    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "CUMULATIVE_DECREASES" and body["row"] == 2
    assert body["detail"].startswith(f"rowData[2] ({STORM_TIMES[2]})") and "4 mm" in body["detail"]
    assert not TimeSeries.objects.exists()


def test_negative_rain_is_refused_naming_its_row(client, project):
    response = create(client, project.pk, storm_rows([0, 5, -1, 3]), units="mm/interval")

    assert response.status_code == 400 and response.json()["code"] == "NEGATIVE_RAIN"
    assert response.json()["row"] == 2


def test_a_generic_series_keeps_units_the_model_does_not_apply_and_says_so(client, project):
    body = create(client, project.pk, ROWS, series_type="generic", units="kPa").json()

    assert body["units"] == "kPa" and body["applied"]["applies_as"] is None and "kPa" in body["applied"]["problem"]
