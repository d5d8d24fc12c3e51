"""The background import: a good file becomes a dataset; a bad one fails with a log a person can act on."""

import json

import pytest

from hydrata.uploads import services
from hydrata.uploads.models import Dataset, UploadExecution
from hydrata.uploads.services import dataset_import
from tests.factories import make_user
from tests.hydrata.uploads.helpers import UPLOAD, api_for, feature, feature_collection, geojson_file, sample_bytes

pytestmark = pytest.mark.django_db

SQUARE = {
    "type": "Polygon",
    "coordinates": [[[151.0, -33.9], [151.1, -33.9], [151.1, -33.8], [151.0, -33.8], [151.0, -33.9]]],
}
BOWTIE = {
    "type": "Polygon",
    "coordinates": [
        [
            [251000.0, 6271800.0],
            [251200.0, 6272000.0],
            [251200.0, 6271800.0],
            [251000.0, 6272000.0],
            [251000.0, 6271800.0],
        ]
    ],
}


@pytest.fixture
def imported(django_capture_on_commit_callbacks):
    """Upload a file as a new user and return its execution once the import has run."""
    client = api_for(make_user())

    def run(content, name="layer.geojson") -> UploadExecution:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(UPLOAD, {"base_file": geojson_file(name, content)}, format="multipart")
        assert response.status_code == 201, response.content
        return UploadExecution.objects.get(pk=response.json()["execution_id"])

    return run


def test_invalid_json_fails_with_a_log_naming_the_line_and_column(imported):
    text = b'{\n  "type": "FeatureCollection",\n  "features": [\n    {"type": "Feature",}\n  ]\n}\n'

    execution = imported(text)

    assert execution.status == "failed" and execution.dataset is None
    assert "not valid JSON" in execution.log and "line 4, column" in execution.log


def square_with_property(literal: str) -> bytes:
    """A collection of one square whose `value` property is a raw JSON literal (json.dumps writes none of them)."""
    return (
        b'{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": '
        + json.dumps(SQUARE).encode()
        + b', "properties": {"name": "ok", "value": '
        + literal.encode()
        + b"}}]}"
    )


@pytest.mark.parametrize(
    ("literal", "reason"),
    [
        ("1" + "0" * 400, "an integer of 401 digits is beyond ±1.8e308"),
        ("-" + "9" * 5000, "an integer of 5,000 digits is beyond ±1.8e308"),
        ("1e400", "1e400 is beyond ±1.8e308"),
        ("NaN", "NaN is not a number JSON allows"),
        ("-Infinity", "-Infinity is not a number JSON allows"),
        ('"\\ud800"', "lone surrogate (U+D800)"),
        ('"a\\u0000b"', "NUL character"),
        ('{"\\udfff": 1}', "lone surrogate (U+DFFF)"),
    ],
    ids=["400 digits", "5000 digits", "1e400", "NaN", "-Infinity", "lone surrogate", "NUL", "surrogate key"],
)
def test_a_property_no_number_or_text_can_hold_fails_the_import_naming_where_it_is(imported, literal, reason):
    execution = imported(square_with_property(literal))

    assert execution.status == "failed" and execution.dataset is None, execution.log
    assert "features[0].properties.value" in execution.log and reason in execution.log
    assert not Dataset.objects.exists()


@pytest.mark.parametrize("depth", [65, 100_000])
def test_a_file_nested_too_deep_fails_saying_so(imported, depth):
    execution = imported(b'{"type": "FeatureCollection", "features": ' + b"[" * depth + b"]" * depth + b"}")

    assert execution.status == "failed" and "nest more than 64 deep" in execution.log


def test_a_file_that_is_not_utf8_fails_naming_where(imported):
    text = '{"type": "FeatureCollection",\n "name": "Café"}'

    execution = imported(text.encode("latin-1"))

    column = len(' "name": "Caf') + 1
    assert execution.status == "failed"
    assert "not UTF-8" in execution.log and f"line 2, column {column}" in execution.log


def test_an_empty_file_fails_saying_so(imported):
    execution = imported(b"  \n")

    assert execution.status == "failed" and "The file is empty." in execution.log


def test_a_single_feature_fails_saying_what_it_got_and_how_to_wrap_it(imported):
    execution = imported(feature(SQUARE, name="one"))

    assert execution.status == "failed"
    assert 'Expected a GeoJSON FeatureCollection, but the file has "type": "Feature"' in execution.log
    assert "Wrap the feature" in execution.log


def test_a_json_array_fails_saying_it_is_not_geojson(imported):
    execution = imported([1, 2, 3])

    assert execution.status == "failed" and "its top level is an array" in execution.log


def test_a_self_intersecting_polygon_fails_naming_feature_0_and_the_reason(imported):
    execution = imported(feature_collection(feature(BOWTIE, name="bowtie"), crs="EPSG:28356"))

    assert execution.status == "failed"
    assert "Feature 0 has an invalid Polygon geometry: Self-intersection at (251100, 6271900)" in execution.log


def test_a_ring_crossing_itself_at_every_vertex_fails_naming_it_and_the_limit_and_stores_nothing(imported, settings):
    settings.HYDRATA_GEOJSON_MAX_EDGE_TESTS = 1_000_000
    zigzag = [[151.0 + (i % 2) * 1e-3, -33.0 + (i // 2) * 1e-7 * (1 if i % 4 < 2 else -1)] for i in range(4_000)]
    crossing = {"type": "Polygon", "coordinates": [[*zigzag, zigzag[0]]]}

    execution = imported(feature_collection(feature(SQUARE), {**feature(crossing), "id": "creek"}))

    assert execution.status == "failed" and not Dataset.objects.exists()
    assert 'Feature 1 (id "creek") (' in execution.log and " or more)" in execution.log
    assert "at most 1,000,000 can be made" in execution.log


def test_every_bad_feature_is_listed_with_its_index_and_id(imported):
    good = feature(SQUARE)
    missing = feature(None)
    empty = feature({"type": "LineString", "coordinates": []})
    broken = {
        "type": "Feature",
        "id": "east",
        "properties": {},
        "geometry": {"type": "Point", "coordinates": [151.0, "south"]},
    }

    execution = imported(feature_collection(good, missing, empty, broken))

    assert execution.status == "failed"
    assert "3 of 4 feature(s) cannot be imported" in execution.log
    assert "Feature 1 has no geometry" in execution.log
    assert "Feature 2 has an empty LineString geometry" in execution.log
    assert 'Feature 3 (id "east") has a Point geometry with a position that is not 2 or 3 numbers' in execution.log


def test_an_unknown_crs_fails_naming_it(imported):
    execution = imported(feature_collection(feature(SQUARE), crs="urn:ogc:def:crs:EPSG::999999"))

    assert execution.status == "failed"
    assert "EPSG:999999, which is not a known coordinate reference system" in execution.log


def test_a_crs_that_is_not_an_authority_code_fails_without_reaching_proj(imported):
    execution = imported(feature_collection(feature(SQUARE), crs="+proj=longlat +init=/etc/passwd"))

    assert execution.status == "failed" and "not an authority code" in execution.log


@pytest.mark.parametrize(
    "crs",
    [
        "EPSG:28356",
        "urn:ogc:def:crs:EPSG::28356",
        "urn:ogc:def:crs:EPSG:6.6:28356",
        "http://www.opengis.net/def/crs/EPSG/0/28356",
    ],
)
def test_each_legacy_crs_naming_is_read_as_the_same_crs(imported, crs):
    collection = json.loads(sample_bytes("rainfall.geojson"))
    collection["crs"]["properties"]["name"] = crs

    execution = imported(collection)

    assert execution.status == "finished" and execution.dataset.crs == "EPSG:28356"


def test_without_a_crs_member_coordinates_are_longitude_latitude(imported):
    execution = imported(feature_collection(feature(SQUARE, name="sq")))

    dataset = execution.dataset
    assert execution.status == "finished" and dataset.crs == "EPSG:4326"
    assert dataset.bbox_native == [151.0, -33.9, 151.1, -33.8]
    assert dataset.bbox_wgs84 == pytest.approx([151.0, -33.9, 151.1, -33.8])


def test_projected_coordinates_without_a_crs_member_fail_with_a_hint_to_name_the_crs(imported):
    collection = json.loads(sample_bytes("boundary.geojson"))
    del collection["crs"]

    execution = imported(collection)

    assert execution.status == "failed"
    assert "names no CRS" in execution.log and "urn:ogc:def:crs:EPSG::28356" in execution.log


def test_too_many_features_fails_saying_how_many_and_the_limit(imported, settings):
    settings.HYDRATA_GEOJSON_MAX_FEATURES = 3

    execution = imported(sample_bytes("boundary.geojson"))  # 4 features

    assert execution.status == "failed"
    assert "has 4 features; at most 3 can be imported" in execution.log


def test_a_collection_without_features_fails(imported):
    execution = imported(feature_collection())

    assert execution.status == "failed" and "no features" in execution.log


def test_a_bad_file_leaves_no_dataset_and_no_stored_features(imported, settings):
    execution = imported(feature_collection(feature(BOWTIE), crs="EPSG:28356"))

    assert execution.status == "failed"
    assert not Dataset.objects.exists()
    assert not (settings.MEDIA_ROOT / "datasets").exists() or not any((settings.MEDIA_ROOT / "datasets").rglob("*.*"))


def test_the_import_runs_once_even_if_the_task_is_delivered_again(imported):
    execution = imported(sample_bytes("boundary.geojson"))

    again = dataset_import(execution_id=execution.pk)

    assert again.status == "finished" and Dataset.objects.count() == 1


def test_an_infrastructure_failure_marks_the_execution_failed_and_is_raised(
    monkeypatch, django_capture_on_commit_callbacks
):
    client = api_for(make_user())
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(
            UPLOAD, {"base_file": geojson_file("b.geojson", sample_bytes("boundary.geojson"))}, format="multipart"
        )
    execution_id = response.json()["execution_id"]

    def broken_store(*, execution):
        raise OSError("disk unplugged")

    monkeypatch.setattr(services, "_upload_read", broken_store)
    with pytest.raises(OSError):
        dataset_import(execution_id=execution_id)

    execution = UploadExecution.objects.get(pk=execution_id)
    assert execution.status == "failed" and "internal error" in execution.log
    assert "disk unplugged" not in execution.log
