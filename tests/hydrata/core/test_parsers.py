"""The one JSON parser (hydrata/core/parsers.py) on the real stack: odd values in any JSON body of any endpoint are
a 400 with a machine code in the error body, never a 500 (an HTML 500 when DRF echoed a lone surrogate)."""

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from hydrata.anuga.api.inputs import KIND_PATHS
from hydrata.anuga.services.time_series import time_series_create
from hydrata.observations.services.observations import flood_event_create, observation_create
from hydrata.studies.models import DesignInput, DesignStudy
from hydrata_contract.studies import DesignInputKind, RainBinding
from tests.data import ARR
from tests.factories import make_finished_run, make_grant, make_project

pytestmark = pytest.mark.django_db(transaction=True)
ROWS = [{"timestamp": "2026-01-01T00:00:00Z", "value": 1.0}, {"timestamp": "2026-01-01T01:00:00Z", "value": 2.0}]

# JSON literals Python's json reads and the platform refuses, with the code each gets, wherever it stands.
REFUSED_LITERALS = {
    "a 400-digit integer": ("1" + "0" * 400, "NUMBER_OUT_OF_RANGE"),
    "a negative 400-digit integer": ("-1" + "0" * 400, "NUMBER_OUT_OF_RANGE"),
    "a 5000-digit integer": ("9" * 5000, "NUMBER_OUT_OF_RANGE"),
    "1e400": ("1e400", "NUMBER_OUT_OF_RANGE"),
    "NaN": ("NaN", "NUMBER_NOT_FINITE"),
    "Infinity": ("Infinity", "NUMBER_NOT_FINITE"),
    "-Infinity": ("-Infinity", "NUMBER_NOT_FINITE"),
    "a lone surrogate": ('"\\ud800"', "INVALID_TEXT"),
    "a lone low surrogate in a list": ('["ok", "\\udc00"]', "INVALID_TEXT"),
    "a lone surrogate as a key": ('{"\\ud800": 1}', "INVALID_TEXT"),
    "a NUL": ('"a\\u0000b"', "INVALID_TEXT"),
    "100,000 brackets": ("[" * 100_000, "JSON_TOO_DEEP"),
    "65 nested lists": ("[" * 65 + "]" * 65, "JSON_TOO_DEEP"),
}
# Valid JSON each field must answer with a 2xx or a 4xx carrying a code: strings of digits, the 64-bit edge, the
# largest float, numbers as text that float() reads as inf or nan.
FIELD_VALUES = {
    "500 digits as text": '"' + "9" * 500 + '"',
    "100,000 digits as text": '"' + "9" * 100_000 + '"',
    "2**63": str(2**63),
    "-2**63 - 1": str(-(2**63) - 1),
    "the largest float": "1.7976931348623157e308",
    "1e400 as text": '"1e400"',
    "NaN as text": '"NaN"',
    "a valid surrogate pair": '"\\ud83d\\ude00"',
}


@pytest.fixture
def world(settings) -> tuple[APIClient, dict[str, Any], dict[str, dict[str, Any]]]:
    """A launch key, objects of every kind a route names, and a body each JSON operation accepts."""
    settings.HYDRATA_AGENT_RATE_LIMIT = 0  # a thousand requests in a minute
    grant, key = make_grant(level="launch")
    user, project = grant.user, make_project(grant.user)
    run = make_finished_run(project)
    west, south, east, north = run.scenario.terrain.bbox_native
    middle = [(west + east) / 2, (south + north) / 2]
    started = datetime(2026, 3, 1, tzinfo=UTC)
    event = flood_event_create(project=project, user=user, name="March flood", started_at=started)
    observation = observation_create(event=event, user=user, x=middle[0], y=middle[1], quantity="peak_depth", value_m=1)
    time_series_create(
        project=project, user=user, name="Rain", series_type="hyetograph", units="mm/hr", data={"rowData": ROWS}
    )
    ifd, patterns = (
        DesignInput.objects.create(project=project, kind=kind, name=kind.value, content={}, digest=kind.value)
        for kind in (DesignInputKind.IFD, DesignInputKind.TEMPORAL_PATTERNS)
    )
    study = DesignStudy.objects.create(  # a draft: its sample reads the body, then answers 409 (nothing to sample)
        project=project,
        base_scenario=run.scenario,
        name="d",
        ifd=ifd,
        temporal_patterns=patterns,
        aeps=["1%"],
        durations_min=[60],
        initial_loss_mm=10,
        continuing_loss_mm_h=2,
        rain_binding=RainBinding.WHOLE_MODEL,
        estimate={},
    )
    ids = {
        "project_id": project.pk,
        "study_id": study.pk,
        "run_id": run.pk,
        "scenario_id": run.scenario_id,
        "event_id": event.pk,
        "observation_id": observation.pk,
        **{f"layer_id of {segment}": project.input_layers.get(kind=kind).pk for segment, kind in KIND_PATHS.items()},
    }
    bodies = {
        "/api/v2/anuga/projects/": {"name": "p", "projection": "EPSG:28356"},
        "/api/v2/anuga/projects/{project_id}/events/": {"name": "e", "started_at": "2022-03-01T00:00:00Z"},
        "/api/v2/anuga/projects/{project_id}/events/{event_id}/observations/import/": {
            "execution_id": "00000000-0000-0000-0000-000000000000",
            "quantity": "peak_depth",
            "value_property": "level",
        },
        "/api/v2/anuga/projects/{project_id}/observations/": {
            "event": event.pk,
            "x": middle[0],
            "y": middle[1],
            "quantity": "peak_depth",
            "value_m": 1.0,
        },
        "/api/v2/anuga/projects/{project_id}/observations/{observation_id}/": {"value_m": 1.0},
        "/api/v2/anuga/projects/{project_id}/rankings/": {"event": event.pk, "runs": [run.pk]},
        "/api/v2/anuga/projects/{project_id}/scenarios/": {"name": "s", "resolution": 10, "duration": 60},
        "/api/v2/anuga/projects/{project_id}/scenarios/{scenario_id}/": {"name": "renamed"},
        "/api/v2/anuga/projects/{project_id}/scenarios/{scenario_id}/clone/": {"name": "copy", "overrides": {}},
        "/api/v2/anuga/projects/{project_id}/terrain/upload/presign/": {"filename": "dem.tif", "size": 100},
        "/api/v2/anuga/projects/{project_id}/terrain/upload/finalize/": {"staging_key": "staging/none.tif"},
        "/api/v2/anuga/projects/{project_id}/time-series/": {
            "name": "t",
            "series_type": "hyetograph",
            "units": "mm/hr",
            "data": {"rowData": ROWS},
        },
        "/api/v2/anuga/projects/{project_id}/design-inputs/": {"kind": "ifd", "content": "Duration,1%"},
        "/api/v2/anuga/projects/{project_id}/design-studies/": {
            "name": "d",
            "base_scenario": run.scenario_id,
            "ifd": 1,
            "temporal_patterns": 1,
            "aeps": ["1%"],
            "durations_min": [60],
        },
        "/api/v2/anuga/projects/{project_id}/calibration-studies/": {
            "name": "c",
            "base_scenario": run.scenario_id,
            "event": event.pk,
            "parameters": [{"target": "rain", "low": 0.5, "high": 2.0}],
            "budget": 4,
        },
        "/api/v2/anuga/runs/{run_id}/compare/": {"event": event.pk},
        "/api/v2/anuga/runs/{run_id}/sample/": {"points": [middle]},
        "/api/v2/anuga/projects/{project_id}/design-studies/{study_id}/sample/": {"points": [middle]},
        "/api/v2/anuga/runs/{run_id}/time-series/": {"points": [middle]},
        "/api/v2/anuga/scenarios/{scenario_id}/run/": {},
        "/api/v2/capability-suggestions/": {"summary": "s"},
    }
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client, ids, bodies


def json_operations(client: APIClient) -> list[tuple[str, str, list[str]]]:
    """(method, path, properties) of every operation of the schema that takes a JSON body."""
    schema = client.get("/api/v2/schema/?format=json").json()
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body:
                component = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]
                found.append((method, path, list(component.get("properties", {}))))
    return found


def send(client: APIClient, method: str, path: str, ids: dict[str, Any], text: str):
    segment = path.split("/")[-3]  # /projects/{project_id}/<segment>/{layer_id}/
    route = path.format(
        **{name: ids[name] for name in ids if f"{{{name}}}" in path}, layer_id=ids.get(f"layer_id of {segment}")
    )
    return getattr(client, method)(route, data=text, content_type="application/json")


def body_with(base: dict[str, Any], field: str, literal: str) -> str:
    """The base body as JSON text with `field` set to a raw JSON literal (which json.dumps could not write)."""
    rest = json.dumps({name: value for name, value in base.items() if name != field})[1:-1]
    return "{" + rest + (", " if rest else "") + json.dumps(field) + ": " + literal + "}"


def assert_refused_with_a_code(response, code: str | None = None) -> dict[str, Any]:
    assert response.status_code < 500, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response.content[:300]
    answer = response.json()
    assert answer["code"] and answer["detail"], answer
    if code:
        assert response.status_code == 400 and answer["code"] == code, answer
    return answer


def test_every_json_operation_has_a_body_here_so_a_new_one_is_swept_too(world):
    client, _, bodies = world
    assert {path for _, path, _ in json_operations(client) if "{layer_id}" not in path} == set(bodies)


def test_every_refused_literal_in_the_body_of_every_json_operation_is_400_with_its_code(world):
    client, ids, bodies = world
    failures = []
    for method, path, properties in json_operations(client):
        base = bodies.get(path, {"gn_layer": None})
        field = properties[0]
        for label, (literal, code) in REFUSED_LITERALS.items():
            response = send(client, method, path, ids, body_with(base, field, literal))
            answer = response.json() if response["Content-Type"].startswith("application/json") else {}
            if response.status_code != 400 or answer.get("code") != code:
                failures.append(f"{method} {path} {field}={label}: {response.status_code} {response.content[:120]!r}")
    assert not failures, "\n".join(failures)


def test_every_field_of_every_json_operation_answers_odd_values_with_a_2xx_or_a_coded_4xx(world):
    client, ids, bodies = world
    failures = []
    for method, path, properties in json_operations(client):
        base = bodies.get(path, {"gn_layer": None})
        for field in properties:
            for label, literal in FIELD_VALUES.items():
                response = send(client, method, path, ids, body_with(base, field, literal))
                fine = response.status_code < 300 or (
                    response.status_code < 500 and response["Content-Type"].startswith("application/json")
                )
                if not fine or (response.status_code >= 400 and not response.json().get("code")):
                    failures.append(
                        f"{method} {path} {field}={label}: {response.status_code} {response.content[:120]!r}"
                    )
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/api/v2/anuga/projects/{project_id}/observations/", "quantity"),
        ("/api/v2/anuga/projects/{project_id}/time-series/", "series_type"),
        ("/api/v2/anuga/projects/{project_id}/events/{event_id}/observations/import/", "quantity"),
    ],
)
def test_a_lone_surrogate_in_a_choice_field_is_a_json_400_invalid_text_not_an_html_500(world, path, field):
    client, ids, bodies = world

    response = send(client, "post", path, ids, body_with(bodies[path], field, '"\\ud800"'))

    answer = assert_refused_with_a_code(response, "INVALID_TEXT")
    assert answer["field"] == field and field in answer["detail"] and "lone surrogate (U+D800)" in answer["detail"]


def test_a_refusal_inside_the_body_names_where_the_value_is(world):
    client, ids, bodies = world
    path = "/api/v2/anuga/projects/{project_id}/time-series/"
    rows = '{"rowData": [{"timestamp": "2026-01-01T00:00:00Z", "value": 1}, {"timestamp": "2026-01-01T01:00:00Z", '
    series = rows + '"value": ' + "1" * 400 + "}]}"
    overrides = '{"resolution": NaN}'

    too_large = send(client, "post", path, ids, body_with(bodies[path], "data", series))
    not_finite = send(
        client,
        "post",
        "/api/v2/anuga/projects/{project_id}/scenarios/{scenario_id}/clone/",
        ids,
        body_with({"name": "copy"}, "overrides", overrides),
    )

    assert assert_refused_with_a_code(too_large, "NUMBER_OUT_OF_RANGE")["field"] == "data.rowData[1].value"
    assert "an integer of 400 digits" in too_large.json()["detail"]
    assert assert_refused_with_a_code(not_finite, "NUMBER_NOT_FINITE")["field"] == "overrides.resolution"


def test_a_body_of_100000_brackets_is_400_json_too_deep_and_quick_to_refuse(world):
    client, ids, _ = world

    response = send(client, "post", "/api/v2/anuga/projects/", ids, "[" * 100_000)

    answer = assert_refused_with_a_code(response, "JSON_TOO_DEEP")
    assert "64 deep" in answer["detail"]


def test_a_body_within_the_limits_still_parses_to_the_same_data(world):
    client, ids, bodies = world
    path = "/api/v2/anuga/projects/{project_id}/time-series/"
    body = dict(bodies[path], name="Regen 😀 \u00e9t\u00e9", description="[" * 40 + "]" * 40)

    response = send(client, "post", path, ids, json.dumps(body))

    assert response.status_code == 201, response.content
    assert response.json()["name"] == "Regen 😀 été" and response.json()["description"] == body["description"]


# --- forms and files: the same rule on text ---------------------------------------------------------------------

# What a form can carry that JSON's parser refuses: each must be 400 INVALID_TEXT in any form of any operation.
UNSTORABLE_IN_FORMS = {
    "a NUL in a field's value": ({"name": "a\x00b"}, "name"),
    "a NUL in a field's name": ({"na\x00me": "x"}, "'na\\x00me'"),
}


def body_operations(client: APIClient) -> list[tuple[str, str]]:
    """(method, path) of every operation of the schema that takes a body, JSON or multipart."""
    schema = client.get("/api/v2/schema/?format=json").json()
    return [
        (method, path)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if operation.get("requestBody")
    ]


def route_of(path: str, ids: dict[str, Any]) -> str:
    segment = path.split("/")[-3]
    return path.format(
        **{name: ids[name] for name in ids if f"{{{name}}}" in path}, layer_id=ids.get(f"layer_id of {segment}")
    )


@pytest.mark.parametrize("form", ["multipart", "urlencoded"])
def test_text_no_database_holds_in_any_form_of_any_operation_is_400_invalid_text(world, form):
    client, ids, _ = world
    failures = []
    for method, path in body_operations(client):
        for label, (fields, field) in UNSTORABLE_IN_FORMS.items():
            if form == "multipart":
                response = getattr(client, method)(route_of(path, ids), fields, format="multipart")
            else:
                body = "&".join(f"{key}={value}".replace("\x00", "%00") for key, value in fields.items())
                response = getattr(client, method)(
                    route_of(path, ids), data=body, content_type="application/x-www-form-urlencoded"
                )
            answer = response.json() if response["Content-Type"].startswith("application/json") else {}
            if form == "urlencoded" and answer.get("code") == "UNSUPPORTED_MEDIA_TYPE":
                continue  # a route that takes only multipart (the terrain's file) reads no form at all
            if (response.status_code, answer.get("code"), answer.get("field")) != (400, "INVALID_TEXT", field):
                failures.append(f"{method} {path} {label}: {response.status_code} {response.content[:160]!r}")
    assert not failures, "\n".join(failures)


def test_a_file_name_keeps_no_character_a_database_cannot_hold(world):
    client, ids, _ = world
    path = route_of("/api/v2/anuga/projects/{project_id}/design-inputs/", ids)
    ifd = (ARR / "Synthetic_IFD_Depths.csv").read_bytes()

    response = client.post(
        path, {"kind": "ifd", "base_file": SimpleUploadedFile("IF\x00D.csv", ifd)}, format="multipart"
    )

    assert response.status_code == 201, response.content
    assert response.json()["name"] == "IFD.csv"
