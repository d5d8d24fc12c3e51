"""Importing observations from an uploaded GeoJSON of points: reprojected, all or nothing."""

import json

import pytest
from pyproj import Transformer

from hydrata.observations.models import Observation
from hydrata.storage import get_storage
from hydrata.uploads.models import Dataset
from tests.factories import make_project, make_user
from tests.hydrata.observations.helpers import (
    INSIDE,
    MGA56,
    PROJECTS,
    api_for,
    event_of,
    point,
    points,
    upload,
    with_terrain,
)

pytestmark = pytest.mark.django_db(transaction=True)
TO_WGS84 = Transformer.from_crs(MGA56, "EPSG:4326", always_xy=True)
MARKS = [(251050.0, 6271850.0, 10.25, 0.2), (251120.0, 6271930.0, 11.5, 0.15), (251180.0, 6271990.0, 12.0, 0.4)]


@pytest.fixture
def mine():
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    return client, project, event_of(client, project.pk)


def import_path(project_id: int, event_id: int) -> str:
    return f"{PROJECTS}{project_id}/events/{event_id}/observations/import/"


def run_import(client, project_id: int, event_id: int, execution: dict, **fields):
    body = {"execution_id": execution["exec_id"], "quantity": "peak_stage", "value_property": "level"} | fields
    return client.post(import_path(project_id, event_id), body, format="json")


def test_points_in_longitude_latitude_are_reprojected_to_the_project_crs_as_pyproj_does(mine):
    client, project, event = mine
    lonlat = [TO_WGS84.transform(x, y) for x, y, _, _ in MARKS]
    execution = upload(
        client,
        "marks.geojson",
        points(
            *[
                point(lon, lat, level=value, plus_minus=tolerance)
                for (lon, lat), (_, _, value, tolerance) in zip(lonlat, MARKS, strict=True)
            ],
            crs=None,
        ),
    )

    response = run_import(client, project.pk, event["id"], execution, tolerance_property="plus_minus")

    assert response.status_code == 201, response.content
    assert response.json()["imported"] == 3 and response.json()["observation_count"] == 3
    assert (response.json()["value_min"], response.json()["value_max"]) == (10.25, 12.0)
    stored = list(Observation.objects.order_by("id"))
    back = Transformer.from_crs("EPSG:4326", MGA56, always_xy=True)
    for observation, (lon, lat), (x, y, value, tolerance) in zip(stored, lonlat, MARKS, strict=True):
        expected = back.transform(lon, lat)
        assert observation.x == pytest.approx(expected[0], abs=1e-6)
        assert observation.y == pytest.approx(expected[1], abs=1e-6)
        assert observation.x == pytest.approx(x, abs=1e-3) and observation.y == pytest.approx(y, abs=1e-3)
        assert (observation.given_x, observation.given_y, observation.given_crs) == (lon, lat, "EPSG:4326")
        assert (observation.quantity, observation.value_m, observation.tolerance_m) == ("peak_stage", value, tolerance)
    west, _south, _east, north = response.json()["bbox_wgs84"]
    assert west == pytest.approx(lonlat[0][0], abs=1e-5) and north == pytest.approx(lonlat[2][1], abs=1e-5)


def test_without_a_tolerance_property_every_point_takes_the_default(mine):
    client, project, event = mine
    execution = upload(client, "marks.geojson", points(point(*INSIDE, level="10.5")))

    response = run_import(client, project.pk, event["id"], execution, quantity="peak_depth")

    assert response.status_code == 201, response.content
    stored = Observation.objects.get()
    assert (stored.quantity, stored.value_m, stored.tolerance_m, stored.given_crs) == ("peak_depth", 10.5, 0.3, MGA56)


def test_a_file_with_two_bad_rows_is_refused_naming_both_and_the_event_stays_empty(mine):
    client, project, event = mine
    polygon = {
        "type": "Feature",
        "properties": {"level": 1.0},
        "geometry": {
            "type": "Polygon",
            "coordinates": [
                [[251000.0, 6271800.0], [251010.0, 6271800.0], [251010.0, 6271810.0], [251000.0, 6271800.0]]
            ],
        },
    }
    execution = upload(
        client,
        "marks.geojson",
        points(point(*INSIDE, level=10.0), polygon, point(*INSIDE, level=11.0), point(*INSIDE, level="high")),
    )

    response = run_import(client, project.pk, event["id"], execution)

    assert response.status_code == 400 and response.json()["code"] == "IMPORT_ROWS_INVALID"
    assert [(row["index"], row["code"]) for row in response.json()["rows"]] == [
        (1, "NOT_A_POINT"),
        (3, "VALUE_NOT_NUMERIC"),
    ]
    assert "feature 1" in response.json()["detail"] and "feature 3" in response.json()["detail"]
    assert "nothing was stored" in response.json()["detail"]
    assert client.get(f"{PROJECTS}{project.pk}/events/{event['id']}/").json()["observation_count"] == 0


@pytest.mark.parametrize(
    ("properties", "code"),
    [
        ({"plus_minus": 0.2}, "VALUE_MISSING"),
        ({"level": None, "plus_minus": 0.2}, "VALUE_MISSING"),
        ({"level": 1.0}, "VALUE_MISSING"),
        ({"level": True, "plus_minus": 0.2}, "VALUE_NOT_NUMERIC"),
        ({"level": "NaN", "plus_minus": 0.2}, "VALUE_NOT_FINITE"),
        ({"level": 1.0, "plus_minus": 0}, "INVALID_TOLERANCE"),
        ({"level": 1.0, "plus_minus": "wide"}, "VALUE_NOT_NUMERIC"),
        ({"level": "1e400", "plus_minus": 0.2}, "VALUE_NOT_FINITE"),
        ({"level": "-Infinity", "plus_minus": 0.2}, "VALUE_NOT_FINITE"),
        ({"level": "9" * 150, "plus_minus": 0.2}, "VALUE_NOT_NUMERIC"),
    ],
)
def test_each_kind_of_bad_value_refuses_the_import_with_its_code(mine, properties, code):
    client, project, event = mine
    execution = upload(
        client, "marks.geojson", points(point(*INSIDE, level=2.0, plus_minus=0.2), point(*INSIDE, **properties))
    )

    response = run_import(client, project.pk, event["id"], execution, tolerance_property="plus_minus")

    assert response.status_code == 400 and response.json()["code"] == "IMPORT_ROWS_INVALID"
    assert [(row["index"], row["code"]) for row in response.json()["rows"]] == [(1, code)]
    assert not Observation.objects.exists()


def test_a_point_whose_value_is_a_400_digit_integer_fails_its_upload_so_the_import_is_refused_not_a_500(mine):
    client, project, event = mine
    execution = upload(client, "marks.geojson", points(point(*INSIDE, level=10**400)))

    response = run_import(client, project.pk, event["id"], execution)

    assert execution["status"] == "failed" and "features[0].properties.level" in execution["log"]
    assert response.status_code == 400 and response.json()["code"] == "UPLOAD_FAILED"
    assert not Observation.objects.exists()


def test_values_stored_before_uploads_bounded_numbers_are_refused_naming_each_row_not_a_500(mine):
    """A dataset imported before the upload refused numbers beyond the float range still holds them."""
    client, project, event = mine
    marks = points(point(*INSIDE, level=1.0, plus_minus=0.1), point(*INSIDE, level=2.0, plus_minus=0.1))
    execution = upload(client, "marks.geojson", marks)
    dataset = Dataset.objects.get(pk=execution["output_params"]["resources"][0]["id"])
    stored = points(point(*INSIDE, level=10**400, plus_minus=0.1), point(*INSIDE, level=2.0, plus_minus=-(10**400)))
    get_storage().save(key=dataset.storage_key, data=json.dumps(stored).encode())

    response = run_import(client, project.pk, event["id"], execution, tolerance_property="plus_minus")

    assert response.status_code == 400 and response.json()["code"] == "IMPORT_ROWS_INVALID"
    assert [(row["index"], row["code"]) for row in response.json()["rows"]] == [
        (0, "VALUE_NOT_FINITE"),
        (1, "VALUE_NOT_FINITE"),
    ]
    assert "integer of 401 digits" in response.json()["rows"][0]["reason"] and len(response.json()["detail"]) < 600
    assert not Observation.objects.exists()


def test_points_outside_the_terrain_refuse_the_import(mine):
    client, project, event = mine
    with_terrain(client, project.pk)
    x, y = INSIDE
    execution = upload(
        client,
        "marks.geojson",
        points(point(x, y, level=1.0), point(x + 5000, y, level=1.0), point(x, y - 300, level=1.0)),
    )

    response = run_import(client, project.pk, event["id"], execution)

    assert response.status_code == 400
    assert [(row["index"], row["code"]) for row in response.json()["rows"]] == [
        (1, "OUTSIDE_TERRAIN"),
        (2, "OUTSIDE_TERRAIN"),
    ]
    assert not Observation.objects.exists()


def test_a_value_property_no_feature_has_is_refused_listing_the_properties_there_are(mine):
    client, project, event = mine
    execution = upload(client, "marks.geojson", points(point(*INSIDE, stage_m=1.0, name="HWM 1")))

    response = run_import(client, project.pk, event["id"], execution)

    assert response.status_code == 400 and response.json()["code"] == "PROPERTY_NOT_FOUND"
    assert "stage_m" in response.json()["detail"] and response.json()["properties"] == ["stage_m", "name"]


def test_a_failed_upload_is_refused_with_its_reason(mine):
    client, project, event = mine
    execution = upload(client, "marks.geojson", b'{"type": "Feature"}')

    response = run_import(client, project.pk, event["id"], execution)

    assert execution["status"] == "failed"
    assert response.status_code == 400 and response.json()["code"] == "UPLOAD_FAILED"
    assert "FeatureCollection" in response.json()["detail"]


def test_another_users_upload_cannot_be_imported(mine):
    client, project, event = mine
    theirs = upload(api_for(make_user()), "marks.geojson", points(point(*INSIDE, level=1.0)))

    response = run_import(client, project.pk, event["id"], theirs)

    assert response.status_code == 404 and response.json()["code"] == "EXECUTION_NOT_FOUND"


def test_more_points_than_the_feature_limit_are_refused(mine, settings):
    client, project, event = mine
    execution = upload(client, "marks.geojson", points(*[point(*INSIDE, level=1.0)] * 3))
    settings.HYDRATA_GEOJSON_MAX_FEATURES = 2

    response = run_import(client, project.pk, event["id"], execution)

    assert response.status_code == 400 and response.json()["code"] == "TOO_MANY_FEATURES"
    assert not Observation.objects.exists()


def test_an_import_into_another_accounts_event_is_404(mine):
    _client, project, event = mine
    stranger = api_for(make_user())
    execution = upload(stranger, "marks.geojson", points(point(*INSIDE, level=1.0)))

    response = run_import(stranger, project.pk, event["id"], execution)

    assert response.status_code == 404 and response.json()["code"] == "PROJECT_NOT_FOUND"
    assert not Observation.objects.exists()
