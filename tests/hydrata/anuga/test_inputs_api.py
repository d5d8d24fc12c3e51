"""Input rows through the REST API: uploaded GeoJSON attached to a project's default rows, checked per kind."""

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from hydrata.anuga.models import InputLayer
from hydrata.anuga.services.inputs import default_inputs_seed
from hydrata.storage import get_storage
from hydrata.uploads.models import Dataset
from hydrata_contract.inputs import InputKind
from tests.data import BOUNDARY, DEM, RAINFALL
from tests.factories import make_grant, make_project, make_user

pytestmark = pytest.mark.django_db(transaction=True)

PROJECTS = "/api/v2/anuga/projects/"
UPLOAD = "/api/v2/uploads/upload/"
STATUS = "/api/v2/resource-service/execution-status/"
MGA56 = "EPSG:28356"
KINDS = [
    "boundary",
    "friction",
    "inflow",
    "rainfall",
    "structure",
    "breakline",
    "culvert",
    "weir",
    "mesh_region",
    "gauge",
    "flow_line",
    "initial_condition",
    "soil",
]


# --- arrange helpers -------------------------------------------------------------------------------------------


def api_for(user, *, level: str = "draft") -> APIClient:
    _, key = make_grant(user, level=level)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def upload_dataset(client: APIClient, name: str, content: bytes | dict[str, Any]) -> int:
    """Upload GeoJSON; the import runs (eagerly) when the upload commits. Returns the dataset's id."""
    data = content if isinstance(content, bytes) else json.dumps(content).encode()
    created = client.post(
        UPLOAD, {"base_file": SimpleUploadedFile(name, data, content_type="application/geo+json")}, format="multipart"
    )
    assert created.status_code == 201, created.content
    status = client.get(f"{STATUS}{created.json()['execution_id']}").json()
    assert status["status"] == "finished", status["log"]
    return status["output_params"]["resources"][0]["id"]


def collection(*features: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": MGA56}},
        "features": list(features),
    }


def line(**properties: Any) -> dict[str, Any]:
    return {
        "type": "Feature",
        "properties": properties,
        "geometry": {"type": "LineString", "coordinates": [[251001.0, 6271802.0], [251198.0, 6271802.0]]},
    }


def square(**properties: Any) -> dict[str, Any]:
    ring = [
        [251000.0, 6271800.0],
        [251100.0, 6271800.0],
        [251100.0, 6271900.0],
        [251000.0, 6271900.0],
        [251000.0, 6271800.0],
    ]
    return {"type": "Feature", "properties": properties, "geometry": {"type": "Polygon", "coordinates": [ring]}}


def point(**properties: Any) -> dict[str, Any]:
    return {
        "type": "Feature",
        "properties": properties,
        "geometry": {"type": "Point", "coordinates": [251050.0, 6271850.0]},
    }


def seeded_project(owner):
    project = make_project(owner)
    default_inputs_seed(project=project)
    return project


def default_row(project, kind: str) -> InputLayer:
    return InputLayer.objects.get(project=project, kind=kind, is_default=True)


def attach(client: APIClient, project_id: int, segment: str, row_id: int, dataset_id: int | None):
    return client.patch(f"{PROJECTS}{project_id}/{segment}/{row_id}/", {"gn_layer": dataset_id}, format="json")


# --- the rows appear with the terrain --------------------------------------------------------------------------


def test_a_ready_terrain_gives_the_project_one_default_row_of_each_kind_grouped_by_kind():
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    before = client.get(f"{PROJECTS}{project.pk}/inputs/")

    with DEM.open("rb") as dem:
        uploaded = client.post(f"{PROJECTS}{project.pk}/terrain/upload/", {"file": dem}, format="multipart")
    grouped = client.get(f"{PROJECTS}{project.pk}/inputs/")

    assert before.status_code == 200 and before.json() == {kind: [] for kind in KINDS}
    assert uploaded.status_code == 202
    assert grouped.status_code == 200
    body = grouped.json()
    assert set(body) == set(KINDS)
    assert {kind: [row["title"] for row in rows] for kind, rows in body.items()} == {
        "boundary": ["Boundary 01"],
        "friction": ["Friction 01"],
        "inflow": ["Inflow 01"],
        "rainfall": ["Rainfall 01"],
        "structure": ["Structure 01"],
        "breakline": ["Breaklines 01"],
        "culvert": ["Culverts 01"],
        "weir": ["Weirs 01"],
        "mesh_region": ["MeshRegion 01"],
        "gauge": ["Gauges 01"],
        "flow_line": ["Flow lines 01"],
        "initial_condition": ["Initial conditions 01"],
        "soil": ["Soils 01"],
    }
    for kind, rows in body.items():
        row = rows[0]
        assert row["kind"] == kind and row["is_default"] is True
        assert row["gn_layer"] is None and row["has_features"] is False and row["feature_count"] == 0


def test_seeding_the_default_rows_twice_makes_no_duplicates():
    project = make_project(make_user())

    first = default_inputs_seed(project=project)
    second = default_inputs_seed(project=project)

    assert len(first) == len(KINDS) and second == []
    assert InputLayer.objects.filter(project=project).count() == len(KINDS)


# --- attaching -------------------------------------------------------------------------------------------------


def test_the_small_test_boundary_attaches_to_the_default_boundary_row():
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    dataset_id = upload_dataset(client, "boundary.geojson", BOUNDARY.read_bytes())
    row = default_row(project, InputKind.BOUNDARY)

    response = attach(client, project.pk, "boundaries", row.pk, dataset_id)

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["id"] == row.pk and body["kind"] == "boundary" and body["gn_layer"] == dataset_id
    assert body["feature_count"] == 4 and body["has_features"] is True
    west, south, east, north = body["bbox_wgs84"]
    assert 150.0 < west < east < 151.5 and -34.0 < south < north < -33.5
    row.refresh_from_db()
    assert row.dataset_id == dataset_id and row.feature_count == 4


def test_the_small_test_rainfall_attaches_to_the_default_rainfall_row():
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    dataset_id = upload_dataset(client, "rainfall.geojson", RAINFALL.read_bytes())

    response = attach(client, project.pk, "rainfalls", default_row(project, InputKind.RAINFALL).pk, dataset_id)
    listed = client.get(f"{PROJECTS}{project.pk}/rainfalls/")

    assert response.status_code == 200, response.content
    assert response.json()["feature_count"] == 1 and response.json()["has_features"] is True
    assert response.json()["bbox_wgs84"] is not None
    assert listed.status_code == 200 and [r["gn_layer"] for r in listed.json()["results"]] == [dataset_id]


@pytest.mark.parametrize(
    "segment, kind, feature",
    [
        ("frictions", InputKind.FRICTION, square(mannings=0.035)),
        ("inflows", InputKind.INFLOW, line(type="Surface", data="Creek hydrograph")),
        ("structures", InputKind.STRUCTURE, square(method="Mannings", mannings=0.5)),
        ("breaklines", InputKind.BREAKLINE, line()),
        ("culverts", InputKind.CULVERT, line(name="C1", shape="box", width=1.2, height=0.6)),
        ("weirs", InputKind.WEIR, line(crest_elevation=12.0)),
        ("mesh-regions", InputKind.MESH_REGION, square(resolution="2.5")),
        ("initial-conditions", InputKind.INITIAL_CONDITION, square(stage=12.5)),
        ("initial-conditions", InputKind.INITIAL_CONDITION, square(depth=0)),
        ("soils", InputKind.SOIL, square(initial_loss_mm=15, continuing_loss_mm_h=2.5)),
        ("soils", InputKind.SOIL, square(initial_loss_mm=0, continuing_loss_mm_h=0, impervious_fraction=1)),
    ],
)
def test_features_that_fit_each_other_kind_attach(segment, kind, feature):
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    dataset_id = upload_dataset(client, f"{kind}.geojson", collection(feature))

    response = attach(client, project.pk, segment, default_row(project, kind).pk, dataset_id)

    assert response.status_code == 200, response.content
    assert response.json()["feature_count"] == 1


def test_a_boundary_without_the_boundary_property_is_refused_and_the_row_keeps_its_dataset():
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    row = default_row(project, InputKind.BOUNDARY)
    good = upload_dataset(client, "boundary.geojson", BOUNDARY.read_bytes())
    assert attach(client, project.pk, "boundaries", row.pk, good).status_code == 200
    bad = upload_dataset(client, "walls.geojson", collection(line(location="External")))

    response = attach(client, project.pk, "boundaries", row.pk, bad)
    after = client.get(f"{PROJECTS}{project.pk}/boundaries/{row.pk}/")

    assert response.status_code == 400
    assert response.json()["code"] == "FEATURES_DO_NOT_FIT_KIND"
    assert "'boundary'" in response.json()["detail"]
    assert response.json()["kind"] == "boundary" and response.json()["dataset"] == bad
    assert after.status_code == 200
    assert after.json()["gn_layer"] == good and after.json()["feature_count"] == 4
    row.refresh_from_db()
    assert row.dataset_id == good and row.feature_count == 4 and row.bbox_wgs84 is not None


def test_a_refused_first_attach_leaves_the_row_empty():
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    row = default_row(project, InputKind.BOUNDARY)
    bad = upload_dataset(client, "walls.geojson", collection(line()))

    response = attach(client, project.pk, "boundaries", row.pk, bad)

    assert response.status_code == 400 and response.json()["code"] == "FEATURES_DO_NOT_FIT_KIND"
    row.refresh_from_db()
    assert row.dataset_id is None and row.feature_count == 0 and row.bbox_wgs84 is None


def test_a_boundary_with_a_value_outside_its_choices_is_refused_naming_the_choices():
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    bad = upload_dataset(client, "walls.geojson", collection(line(boundary="Wall", location="External")))

    response = attach(client, project.pk, "boundaries", default_row(project, InputKind.BOUNDARY).pk, bad)

    assert response.status_code == 400 and response.json()["code"] == "FEATURES_DO_NOT_FIT_KIND"
    assert "'Wall'" in response.json()["detail"] and "Reflective" in response.json()["detail"]


def test_a_rainfall_layer_of_points_is_refused_naming_point():
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    points = upload_dataset(client, "gauges.geojson", collection(point(data="10")))

    response = attach(client, project.pk, "rainfalls", default_row(project, InputKind.RAINFALL).pk, points)

    assert response.status_code == 400
    assert response.json()["code"] == "FEATURES_DO_NOT_FIT_KIND"
    assert "Point" in response.json()["detail"] and "polygons" in response.json()["detail"]


@pytest.mark.parametrize(
    "segment, kind, feature, field",
    [
        ("initial-conditions", InputKind.INITIAL_CONDITION, square(depth=-0.5), "depth=-0.5"),
        ("initial-conditions", InputKind.INITIAL_CONDITION, square(stage="high"), "stage='high'"),
        ("initial-conditions", InputKind.INITIAL_CONDITION, square(stage=1, depth=1), "both a stage and a depth"),
        ("initial-conditions", InputKind.INITIAL_CONDITION, square(note="lake"), "neither a stage nor a depth"),
        ("soils", InputKind.SOIL, square(initial_loss_mm=-1, continuing_loss_mm_h=2), "initial_loss_mm=-1"),
        ("soils", InputKind.SOIL, square(initial_loss_mm=10, continuing_loss_mm_h=-2), "continuing_loss_mm_h=-2"),
        ("soils", InputKind.SOIL, square(initial_loss_mm=1, continuing_loss_mm_h=1, impervious_fraction=1.2), "1.2"),
        ("soils", InputKind.SOIL, square(initial_loss_mm=10), "'continuing_loss_mm_h'"),
        ("boundaries", InputKind.BOUNDARY, line(boundary="Dirichlet", location="External"), "without a 'stage'"),
    ],
)
def test_an_initial_condition_soil_or_stage_edge_out_of_range_is_refused_naming_the_feature_and_field(
    segment, kind, feature, field
):
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    bad = upload_dataset(client, f"{kind}.geojson", collection(feature))

    response = attach(client, project.pk, segment, default_row(project, kind).pk, bad)

    assert response.status_code == 400 and response.json()["code"] == "FEATURES_DO_NOT_FIT_KIND"
    assert "Feature 0" in response.json()["detail"] and field in response.json()["detail"]
    assert default_row(project, kind).dataset_id is None


@pytest.mark.parametrize("mannings", ["abc", 0, -0.03, "nan", "inf", "1e400", "9" * 150, True, [0.03]])
def test_a_friction_polygon_whose_mannings_is_not_a_positive_number_is_refused(mannings):
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    bad = upload_dataset(client, "friction.geojson", collection(square(mannings=mannings)))

    response = attach(client, project.pk, "frictions", default_row(project, InputKind.FRICTION).pk, bad)

    assert response.status_code == 400
    assert response.json()["code"] == "FEATURES_DO_NOT_FIT_KIND"
    assert "mannings" in response.json()["detail"] and "positive number" in response.json()["detail"]


def test_a_layer_holding_a_400_digit_integer_never_becomes_a_dataset_to_attach():
    client = api_for(make_user())
    data = json.dumps(collection(square(mannings=10**400))).encode()
    created = client.post(
        UPLOAD, {"base_file": SimpleUploadedFile("friction.geojson", data, "application/geo+json")}, format="multipart"
    )

    status = client.get(f"{STATUS}{created.json()['execution_id']}").json()

    assert status["status"] == "failed", status
    assert "features[0].properties.mannings" in status["log"] and "an integer of 401 digits" in status["log"]


@pytest.mark.parametrize(
    ("segment", "kind", "feature"),
    [
        ("frictions", InputKind.FRICTION, square(mannings=10**400)),
        ("mesh-regions", InputKind.MESH_REGION, square(resolution=-(10**400), resolution_units="m")),
        ("boundaries", InputKind.BOUNDARY, line(boundary="NormalDepth", location="External", slope=10**400)),
    ],
    ids=["mannings", "resolution", "slope"],
)
def test_a_layer_stored_before_uploads_bounded_numbers_is_refused_when_attached_not_a_500(segment, kind, feature):
    """A dataset imported before the upload refused numbers beyond the float range still holds them."""
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    dataset = Dataset.objects.get(pk=upload_dataset(client, "layer.geojson", collection(feature | {"properties": {}})))
    get_storage().save(key=dataset.storage_key, data=json.dumps(collection(feature)).encode())

    response = attach(client, project.pk, segment, default_row(project, kind).pk, dataset.pk)

    assert response.status_code == 400, response.content
    assert response.json()["code"] == "FEATURES_DO_NOT_FIT_KIND"
    assert "integer of 401 digits" in response.json()["detail"] and len(response.json()["detail"]) < 400
    assert default_row(project, kind).dataset_id is None


def test_a_dataset_of_another_user_is_dataset_not_found():
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    theirs = upload_dataset(api_for(make_user()), "boundary.geojson", BOUNDARY.read_bytes())
    row = default_row(project, InputKind.BOUNDARY)

    response = attach(client, project.pk, "boundaries", row.pk, theirs)

    assert response.status_code == 404
    assert response.json()["code"] == "DATASET_NOT_FOUND"
    row.refresh_from_db()
    assert row.dataset_id is None


def test_a_dataset_that_does_not_exist_is_dataset_not_found():
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)

    response = attach(client, project.pk, "boundaries", default_row(project, InputKind.BOUNDARY).pk, 999999)

    assert response.status_code == 404
    assert response.json()["code"] == "DATASET_NOT_FOUND"


def test_a_row_that_does_not_exist_or_is_of_another_kind_is_input_not_found():
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    dataset_id = upload_dataset(client, "boundary.geojson", BOUNDARY.read_bytes())
    friction_row = default_row(project, InputKind.FRICTION)

    missing = attach(client, project.pk, "boundaries", 999999, dataset_id)
    wrong_kind = attach(client, project.pk, "boundaries", friction_row.pk, dataset_id)

    assert missing.status_code == wrong_kind.status_code == 404
    assert missing.json()["code"] == wrong_kind.json()["code"] == "INPUT_NOT_FOUND"
    friction_row.refresh_from_db()
    assert friction_row.dataset_id is None


def test_a_row_of_another_project_is_input_not_found():
    user = make_user()
    client = api_for(user)
    mine, other = seeded_project(user), seeded_project(user)
    dataset_id = upload_dataset(client, "boundary.geojson", BOUNDARY.read_bytes())
    their_row = default_row(other, InputKind.BOUNDARY)

    response = attach(client, mine.pk, "boundaries", their_row.pk, dataset_id)

    assert response.status_code == 404 and response.json()["code"] == "INPUT_NOT_FOUND"
    their_row.refresh_from_db()
    assert their_row.dataset_id is None


def test_patching_gn_layer_null_detaches_the_dataset():
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    row = default_row(project, InputKind.BOUNDARY)
    attach(client, project.pk, "boundaries", row.pk, upload_dataset(client, "boundary.geojson", BOUNDARY.read_bytes()))

    response = attach(client, project.pk, "boundaries", row.pk, None)

    assert response.status_code == 200
    body = response.json()
    assert body["gn_layer"] is None and body["has_features"] is False and body["feature_count"] == 0
    assert body["bbox_wgs84"] is None
    row.refresh_from_db()
    assert row.dataset_id is None and row.feature_count == 0


def test_a_patch_without_gn_layer_is_a_validation_error():
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)

    response = client.patch(
        f"{PROJECTS}{project.pk}/boundaries/{default_row(project, 'boundary').pk}/", {}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_ERROR" and response.json()["detail"].startswith("gn_layer:")


def test_attaching_needs_a_draft_key_and_a_writable_project():
    owner, viewer = make_user(), make_user()
    project = make_project(owner, members={viewer: "viewer"})
    default_inputs_seed(project=project)
    row = default_row(project, InputKind.BOUNDARY)
    dataset_id = upload_dataset(api_for(owner), "boundary.geojson", BOUNDARY.read_bytes())

    read_key = attach(api_for(owner, level="read"), project.pk, "boundaries", row.pk, dataset_id)
    as_viewer = attach(api_for(viewer), project.pk, "boundaries", row.pk, dataset_id)
    as_stranger = attach(api_for(make_user()), project.pk, "boundaries", row.pk, dataset_id)

    assert read_key.status_code == 403 and read_key.json()["code"] == "GRANT_LEVEL_TOO_LOW"
    assert as_viewer.status_code == 403 and as_viewer.json()["code"] == "PROJECT_READ_ONLY"
    assert as_stranger.status_code == 404 and as_stranger.json()["code"] == "PROJECT_NOT_FOUND"
    row.refresh_from_db()
    assert row.dataset_id is None


def test_the_grouped_inputs_show_what_was_attached_and_a_viewer_may_read_them():
    owner, viewer = make_user(), make_user()
    client = api_for(owner)
    project = make_project(owner, members={viewer: "viewer"})
    default_inputs_seed(project=project)
    dataset_id = upload_dataset(client, "rainfall.geojson", RAINFALL.read_bytes())
    attach(client, project.pk, "rainfalls", default_row(project, InputKind.RAINFALL).pk, dataset_id)

    grouped = api_for(viewer, level="read").get(f"{PROJECTS}{project.pk}/inputs/")

    assert grouped.status_code == 200
    body = grouped.json()
    assert set(body) == set(KINDS) and all(len(rows) == 1 for rows in body.values())
    assert body["rainfall"][0]["gn_layer"] == dataset_id and body["rainfall"][0]["feature_count"] == 1
    assert body["boundary"][0]["gn_layer"] is None


# --- what a forcing layer applies ------------------------------------------------------------------------------


def test_an_inflow_row_says_the_volume_and_peak_its_hydrographs_bring_and_other_kinds_say_nothing_of_forcing():
    user = make_user()
    client = api_for(user)
    project = seeded_project(user)
    rows = [{"timestamp": f"2024-01-01T00:{minute:02d}:00Z", "value": value} for minute, value in ((0, 0), (10, 6))]
    created = client.post(
        f"{PROJECTS}{project.pk}/time-series/",
        {"name": "creek", "series_type": "hydrograph", "units": "cumecs", "data": {"rowData": rows}},
        format="json",
    )
    assert created.status_code == 201, created.content
    dataset = upload_dataset(client, "inflow.geojson", collection(line(type="Surface", data="creek")))

    attached = attach(client, project.pk, "inflows", default_row(project, "inflow").pk, dataset)
    boundary = attach(client, project.pk, "boundaries", default_row(project, "boundary").pk, None)

    assert attached.status_code == 200, attached.content
    forcing = attached.json()["forcing"]
    assert forcing["inflow_volume_m3"] == pytest.approx(1800) and forcing["inflow_peak_m3_per_s"] == pytest.approx(6)
    assert forcing["features"][0]["data"] == "creek" and forcing["problems"] == []
    assert client.get(f"{PROJECTS}{project.pk}/inflows/{attached.json()['id']}/").json()["forcing"] == forcing
    assert boundary.status_code == 200 and "forcing" not in boundary.json()
