"""Every write's body is parsed through its contract model (hydrata/core/bodies.py), on the real stack: a field the
model does not name, a body that is no JSON object, or a value of the wrong type is a 400 with a machine code that
names the field, never a 500 and never ignored."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.hydrata.core.test_parsers import json_operations, send, world  # noqa: F401  (world is a fixture)

pytestmark = pytest.mark.django_db(transaction=True)
NOT_OBJECTS = {"a list": "[1, 2]", "a string": '"name"', "a number": "12", "null": "null", "true": "true"}


def valid(body: dict) -> dict:
    """The sweep's body with its points as objects (the odd-value sweep sends them as pairs, which are refused)."""
    return (
        {**body, "points": [dict(zip("xy", pair, strict=True)) for pair in body["points"]]}
        if "points" in body
        else body
    )


def test_every_json_write_refuses_a_field_it_does_not_take_with_a_400_naming_it(world):  # noqa: F811
    client, ids, bodies = world
    failures = []
    for method, path, _ in json_operations(client):
        base = valid(bodies.get(path, {"gn_layer": None}))
        response = send(client, method, path, ids, json.dumps({**base, "colour": "blue"}))
        answer = response.json()
        if (response.status_code, answer.get("code"), answer.get("field")) != (400, "VALIDATION_ERROR", "colour"):
            failures.append(f"{method} {path}: {response.status_code} {answer}")
        elif "colour: is not a field this request takes" not in answer["detail"]:
            failures.append(f"{method} {path}: {answer['detail']}")
    assert not failures, "\n".join(failures)


def test_every_json_write_refuses_a_body_that_is_no_object_with_a_400(world):  # noqa: F811
    client, ids, _ = world
    failures = []
    for method, path, _ in json_operations(client):
        for label, text in NOT_OBJECTS.items():
            response = send(client, method, path, ids, text)
            answer = response.json()
            if response.status_code != 400 or answer.get("code") not in ("VALIDATION_ERROR", "PARSE_ERROR"):
                failures.append(f"{method} {path} {label}: {response.status_code} {answer}")
    assert not failures, "\n".join(failures)


def test_a_refusal_lists_every_field_wrong_and_names_the_first_by_its_place_in_the_body(world):  # noqa: F811
    client, ids, _ = world
    path = "/api/v2/anuga/runs/{run_id}/sample/"

    response = send(client, "post", path, ids, json.dumps({"points": [{"x": 1, "y": 2}, {"x": "east"}], "crs": 4}))

    assert response.status_code == 400
    answer = response.json()
    assert answer["code"] == "VALIDATION_ERROR" and answer["field"] == "points[1].x"
    assert answer["detail"].startswith("points[1].x: Input should be a valid number")
    assert set(answer["errors"]) == {"points[1].x", "points[1].y", "crs"}
    assert answer["errors"]["points[1].y"] == ["This field is required."]


def test_a_value_out_of_range_keeps_the_fields_published_code_and_a_value_of_the_wrong_type_does_not(world):  # noqa: F811
    client, ids, _ = world
    path = "/api/v2/anuga/projects/{project_id}/scenarios/"

    too_fine = send(client, "post", path, ids, json.dumps({"name": "s", "resolution": 0.01, "duration": 60}))
    not_a_number = send(client, "post", path, ids, json.dumps({"name": "s", "resolution": "fine", "duration": 60}))
    unknown_backend = send(
        client, "post", "/api/v2/anuga/scenarios/{scenario_id}/run/", ids, '{"compute_backend": "gpu"}'
    )

    assert (too_fine.status_code, too_fine.json()["code"]) == (400, "INVALID_RESOLUTION")
    assert (not_a_number.status_code, not_a_number.json()["code"]) == (400, "VALIDATION_ERROR")
    assert (unknown_backend.status_code, unknown_backend.json()["code"]) == (400, "UNKNOWN_COMPUTE_BACKEND")
    assert "local" in unknown_backend.json()["detail"]


def test_a_form_body_is_read_as_its_json_would_be(world):  # noqa: F811
    client, ids, _ = world

    response = client.post(
        f"/api/v2/anuga/projects/{ids['project_id']}/scenarios/",
        data="name=From+a+form&resolution=10&duration=60",
        content_type="application/x-www-form-urlencoded",
    )

    assert response.status_code == 201, response.content
    assert (response.json()["name"], response.json()["resolution"]) == ("From a form", 10.0)


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        ("/api/v2/anuga/projects/{project_id}/scenarios/", "name=a%00b&resolution=10&duration=60"),
        ("/api/v2/anuga/projects/{project_id}/time-series/", "name=a%00b&series_type=hyetograph&units=mm%2Fhr"),
    ],
)
def test_a_nul_in_a_form_field_is_a_400_naming_the_field_not_a_500(world, path, fields):  # noqa: F811
    """A form's fields reach the model without the JSON parser, which refuses a NUL in a JSON body; PostgreSQL cannot
    hold one (schemathesis found a 500 on the terrain upload's multipart title this way)."""
    client, ids, _ = world

    response = client.post(path.format(**ids), data=fields, content_type="application/x-www-form-urlencoded")

    assert response.status_code == 400, response.content
    # the JSON bodies' code: the form parser holds a form to the same rule (hydrata/core/parsers.py)
    assert (response.json()["code"], response.json()["field"]) == ("INVALID_TEXT", "name")


def test_a_nul_in_the_terrain_uploads_multipart_title_is_a_400_not_a_500(world):  # noqa: F811
    client, ids, _ = world
    upload = SimpleUploadedFile("dem.tif", b"not a tiff")

    response = client.post(
        f"/api/v2/anuga/projects/{ids['project_id']}/terrain/upload/",
        data={"file": upload, "title": "a\x00b"},
        format="multipart",
    )

    assert response.status_code == 400, response.content
    assert (response.json()["code"], response.json()["field"]) == ("INVALID_TEXT", "title")
