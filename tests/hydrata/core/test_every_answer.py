"""Every answer of every route of the REST API, held to the contract model its view declares (issue 51).

The walk of the URLconf is the source: each route under /api/v2/ and each HTTP method its DRF view handles. For each
(route, method) the responses the handler declares to drf-spectacular (`@extend_schema(responses=...)`) name the
contract model of each success status (hydrata_contract/answers). Each is then asked once, through Django's test
client, against one arranged world: a project with a built scenario and finished runs (result rasters, a preview,
recorded time series), a flood event with an observation and a comparison, time series, a complete design study (its
envelopes computed by the study's own service) and a draft one, a calibration study, design inputs, an upload and its
dataset. Path arguments are filled by name from that world; writes send a valid body. The owner's agent key asks
everything; each read is asked too by a stranger's key (the project is public: the reduced answers, withheld fields
empty) and by the owner's browser (no signed links).

The platform builds each answer as its model (hydrata/core/answers.py); this test validates what went over the wire
itself, strictly (a number sent as text fails), so it holds whatever builds the answer, in DEBUG or not. A success
status must be one the handler declares, with the body it declares; a refusal must be the house's error body with a
code of the contract (hydrata_contract/errors.py), and only where listed below. A route added without a declared
model, or one this world cannot reach, fails here."""

import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any

import morecantile
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.settings import spectacular_settings
from openapi_schema_validator import OAS31Validator
from PIL import Image
from pydantic import BaseModel, ValidationError
from rest_framework.test import APIClient
from rest_framework.views import APIView

from hydrata.anuga.api.inputs import KIND_PATHS
from hydrata.anuga.models import Project, Run, Scenario
from hydrata.core.schema import ERROR_BODY
from hydrata.storage import get_storage
from hydrata.studies.models import DesignMember, DesignStudy
from hydrata.studies.services.envelopes import design_study_envelopes
from hydrata_contract.errors import ErrorCode
from hydrata_contract.studies import StudyStatus
from tests.data import ARR, BOUNDARY, DEM, RAINFALL
from tests.factories import make_computing_run, make_finished_run, make_grant, make_ready_terrain
from tests.hydrata.observations.helpers import INSIDE, point, points
from tests.hydrata.studies.test_study_tiles_api import DEPTHS, member_depth

pytestmark = pytest.mark.django_db

API = "/api/v2/"
CONVERTER = re.compile(r"<(?:(?P<kind>\w+):)?(?P<name>\w+)>")
HANDLERS = ("get", "post", "put", "patch", "delete")
WEB_MERCATOR = morecantile.tms.get("WebMercatorQuad")

# The (method, route) pairs of the walk not called here, and why. Keep it short: every other one is called.
NOT_CALLED = {
    # The API's own description, not an answer of the contract: test_schema.py validates it as OpenAPI 3.1.
    ("GET", "/api/v2/schema/"): "the OpenAPI document (tests/hydrata/core/test_schema.py)",
    # Swagger UI, an HTML page for people.
    ("GET", "/api/v2/schema/docs/"): "an HTML page",
}
# Refusals the owner's agent key is expected to get in this world, (method, route) -> (status, code): where success
# would need what a unit test does not have (a worker). None today: every route answers its success.
EXPECTED_REFUSALS: dict[tuple[str, str], tuple[int, str]] = {}
# The reads refused to the other faces, by design: a stranger is not shown a design input, a calibration study or
# another account's uploads; a browser has no agent grant to describe.
PROJECT = "/api/v2/anuga/projects/<int:project_id>/"
REFUSED_TO: dict[str, dict[tuple[str, str], tuple[int, str]]] = {
    "stranger": {
        ("GET", f"{PROJECT}design-inputs/<int:input_id>/"): (404, "DESIGN_INPUT_NOT_FOUND"),
        ("GET", f"{PROJECT}calibration-studies/<int:study_id>/"): (404, "CALIBRATION_STUDY_NOT_FOUND"),
        ("GET", "/api/v2/resource-service/execution-status/<str:execution_id>"): (404, "EXECUTION_NOT_FOUND"),
        ("GET", "/api/v2/resource-service/execution-status/<str:execution_id>/"): (404, "EXECUTION_NOT_FOUND"),
        ("GET", "/api/v2/datasets/<int:dataset_id>/"): (404, "DATASET_NOT_FOUND"),
    },
    "browser": {("GET", "/api/v2/agents/me/"): (400, "NO_AGENT_GRANT")},
}

# Reads the other faces do not ask: the report lays out its PDF to count its pages (seconds each time), and its
# summary has no field a face withholds.
ASKED_ONCE = {"/api/v2/anuga/runs/<int:run_id>/report/"}

# The JSON routes outside /api/v2/: none answers a contract model, and none is called here. The /mcp/ wing speaks
# MCP (tests/hydrata_mcp); the OAuth routes answer the shapes of their RFCs (tests/hydrata/oauth); storage moves
# files for signed links (tests/hydrata/storage).
OUTSIDE_THE_API = {
    "/.well-known/oauth-authorization-server": "RFC 8414 metadata (tests/hydrata/oauth)",
    "/.well-known/oauth-protected-resource": "RFC 9728 metadata (tests/hydrata/oauth)",
    "/.well-known/oauth-protected-resource/mcp": "RFC 9728 metadata (tests/hydrata/oauth)",
    "/.well-known/oauth-protected-resource/mcp/": "RFC 9728 metadata (tests/hydrata/oauth)",
    "/.well-known/jwks.json": "RFC 7517 key set (tests/hydrata/oauth)",
    "/oauth/authorize/": "the consent page, HTML (tests/hydrata/oauth)",
    "/oauth/token/": "RFC 6749 token answers (tests/hydrata/oauth)",
    "/oauth/revoke/": "RFC 7009 revocation (tests/hydrata/oauth)",
    "/oauth/register/": "RFC 7591 registration (tests/hydrata/oauth)",
    "/oauth/register/<str:client_id>/": "RFC 7592 registration management (tests/hydrata/oauth)",
    "/storage/upload/<path:key>": "a signed upload of a file's bytes (tests/hydrata/storage)",
    "/storage/download/<path:key>": "a signed download of a file's bytes (tests/hydrata/storage)",
    "/mcp/": "the MCP wing (tests/hydrata_mcp)",
    "/mcp": "the MCP wing (tests/hydrata_mcp)",
    "/.well-known/mcp/server-card.json": "the MCP wing's server card (tests/hydrata_mcp)",
}
# Routes outside /api/v2/ that answer pages (HTML, PDF) for people, not JSON.
PAGES = re.compile(r"^/(admin/|accounts/|agents/|reports/|catalogue/$|$)")


@dataclass(frozen=True)
class Operation:
    method: str
    route: str  # as the URLconf spells it, with its leading slash
    pattern: URLPattern

    def __str__(self) -> str:
        return f"{self.method} {self.route}"


def url_patterns(patterns: list, prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    """Every route of the URLconf, through its includes, with the pattern that serves it."""
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from url_patterns(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield "/" + route, pattern


def api_operations() -> list[Operation]:
    """(method, route) of every route under /api/v2/, each method its DRF view handles."""
    found = []
    for route, pattern in url_patterns(get_resolver().url_patterns):
        view = getattr(pattern.callback, "cls", None)
        if not route.startswith(API):
            continue
        assert view is not None and issubclass(view, APIView), f"{route} is not served by a DRF view"
        found += [Operation(method.upper(), route, pattern) for method in HANDLERS if hasattr(view, method)]
    return found


@cache
def declared_responses(operation: Operation) -> dict[int, Any]:
    """status -> what the handler declares it answers (a contract model, None for no body, or a media type's
    schema), read as drf-spectacular reads it for the schema."""
    generator = SchemaGenerator()  # the view's schema holds it by a weak reference: kept until it has answered
    view = generator.create_view(operation.pattern.callback, operation.method)
    view.request = spectacular_settings.GET_MOCK_REQUEST(operation.method, operation.route, view, None)
    responses = view.schema.get_response_serializers()
    if not isinstance(responses, dict):
        return {} if responses is None else {200: responses, 201: responses}
    declared = {}
    for status, model in responses.items():
        if isinstance(status, tuple):  # (status, media type): a body that is not JSON
            status, media = status
            declared[int(status)] = media
        else:
            declared[int(status)] = model
    return declared


def is_contract_model(declared: Any) -> bool:
    return isinstance(declared, type) and issubclass(declared, BaseModel)


def test_every_json_success_of_every_api_route_declares_a_contract_model():
    """The walk's list is the source: a (route, method) whose success answers JSON names its contract model."""
    missing = []
    for operation in api_operations():
        if (operation.method, operation.route) in NOT_CALLED:
            continue
        declared = declared_responses(operation)
        successes = {status: model for status, model in declared.items() if 200 <= status < 300}
        if not successes:
            missing.append(f"{operation}: declares no success")
        for status, model in successes.items():
            if status != 204 and not is_contract_model(model) and not isinstance(model, str):
                missing.append(f"{operation} {status}: {model!r} is not a contract model")
            if status == 204 and model is not None:
                missing.append(f"{operation} 204 declares a body")
    assert not missing, "\n".join(missing)


def test_the_routes_left_out_of_the_walk_are_still_routes_and_every_json_route_outside_the_api_is_listed():
    operations = {(operation.method, operation.route) for operation in api_operations()}
    routes = {route for route, _ in url_patterns(get_resolver().url_patterns)}

    listed = set(NOT_CALLED) | set(EXPECTED_REFUSALS) | {("GET", route) for route in ASKED_ONCE}
    listed |= {pair for refused in REFUSED_TO.values() for pair in refused}
    assert listed <= operations, sorted(listed - operations)
    outside = {route for route in routes if not route.startswith(API) and not PAGES.match(route)}
    assert outside == set(OUTSIDE_THE_API), sorted(outside ^ set(OUTSIDE_THE_API))


# --- the world ---------------------------------------------------------------------------------------------------


ROWS = [
    {"timestamp": "2024-01-01T00:00:00Z", "value": 0.0},
    {"timestamp": "2024-01-01T00:00:30Z", "value": 40.0},
    {"timestamp": "2024-01-01T00:01:00Z", "value": 10.0},
]
SCENARIO = {"resolution": 20, "duration": 60}
SERIES = ("stage", "depth", "speed", "xvel", "yvel")
STUDY_FILES = {"ifd": "Synthetic_IFD_Depths_Short.csv", "temporal_patterns": "Synthetic_Increments_Two_Patterns.csv"}


def a_png() -> bytes:
    picture = io.BytesIO()
    Image.new("RGBA", (4, 4), (0, 0, 255, 255)).save(picture, format="PNG")
    return picture.getvalue()


@dataclass
class World:
    agent: APIClient  # the owner's launch key
    person: APIClient  # the owner signed in: only a person approves; a browser's answers carry no signed link
    stranger: APIClient  # another account's read key: the project is public, so it reads the reduced answers
    ids: dict[str, Any]  # a path argument's name -> its value (some by the route's own segment, see path_value)
    bodies: dict[tuple[str, str], Any]  # (method, route) -> its body


def ok(response, *statuses: int) -> dict[str, Any]:
    assert response.status_code in (statuses or (200, 201, 202)), response.content[:400]
    return response.json()


def json_post(client: APIClient, url: str, body: dict[str, Any]) -> dict[str, Any]:
    return ok(client.post(url, json.dumps(body), content_type="application/json"))


@pytest.fixture
def world(settings, django_capture_on_commit_callbacks) -> World:
    def upload(client: APIClient, name: str, content: bytes) -> dict[str, Any]:
        """An upload imported before it answers (the world's only background work: the walk's writes run none)."""
        file = SimpleUploadedFile(name, content, content_type="application/geo+json")
        with django_capture_on_commit_callbacks(execute=True):
            started = ok(client.post(f"{API}uploads/upload/", {"base_file": file}, format="multipart"))
        return ok(client.get(f"{API}resource-service/execution-status/{started['execution_id']}"))

    settings.HYDRATA_AGENT_RATE_LIMIT = 0
    grant, key = make_grant(level="launch")
    owner = grant.user
    agent = APIClient(raise_request_exception=False)
    agent.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    person = APIClient(raise_request_exception=False)
    person.force_login(owner)
    project = ok(agent.post(f"{API}anuga/projects/", {"name": "world", "projection": "EPSG:28356"}, format="json"))
    projects = f"{API}anuga/projects/{project['id']}/"

    # A ready terrain, and the model's inputs: a boundary, rain and a gauge attached to the project's layers.
    record = Project.objects.get(pk=project["id"])
    terrain = make_ready_terrain(record)
    layers = ok(agent.get(f"{projects}inputs/"))
    gauge = points(point(*INSIDE, name="middle"))
    attached = {}
    for kind, segment, content in (
        ("boundary", "boundaries", BOUNDARY.read_bytes()),
        ("rainfall", "rainfalls", RAINFALL.read_bytes()),
        ("gauge", "gauges", json.dumps(gauge).encode()),
    ):
        attached[segment] = upload(agent, f"{kind}.geojson", content)["output_params"]["resources"][0]["id"]
        ok(agent.patch(f"{projects}{segment}/{layers[kind][0]['id']}/", {"gn_layer": attached[segment]}, format="json"))
    series = json_post(
        agent,
        f"{projects}time-series/",
        {"name": "rain", "series_type": "hyetograph", "units": "mm/hr", "data": {"rowData": ROWS}},
    )

    # The base scenario of them, and a second one for the walk's writes that change a scenario (the base must stay
    # built as it is now: a calibration starts from its build).
    scenario = Scenario.objects.get(pk=json_post(agent, f"{projects}scenarios/", {"name": "base", **SCENARIO})["id"])
    assert scenario.terrain_id == terrain.pk and scenario.boundary_id, scenario
    spare = json_post(agent, f"{projects}scenarios/", {"name": "spare", **SCENARIO})
    computing = make_computing_run(record, silent_for=timedelta(seconds=1))
    broken = json_post(agent, f"{projects}scenarios/", {"name": "broken", **SCENARIO})
    failed = Run.objects.create(scenario_id=broken["id"], status="error", resolution=20, duration=60, statistics={})

    # A flood event with an observation; points to import as observations.
    event = json_post(agent, f"{projects}events/", {"name": "March", "started_at": "2024-01-01T00:00:00Z"})
    observation = json_post(
        agent,
        f"{projects}observations/",
        {"event": event["id"], "x": INSIDE[0], "y": INSIDE[1], "quantity": "peak_depth", "value_m": 1.0},
    )
    levels = upload(agent, "levels.geojson", json.dumps(points(point(*INSIDE, level=1.2))).encode())

    # Design inputs, a complete design study (its members' runs finished, its envelopes computed) and a draft one.
    inputs = {
        kind: json_post(agent, f"{projects}design-inputs/", {"kind": kind, "content": (ARR / name).read_text()})["id"]
        for kind, name in STUDY_FILES.items()
    }
    spare_input = json_post(
        agent, f"{projects}design-inputs/", {"kind": "ifd", "content": (ARR / STUDY_FILES["ifd"]).read_text()}
    )
    study_body = {"base_scenario": scenario.pk, **inputs, "aeps": ["1%"], "durations_min": [5, 10]}
    study_body |= {"initial_loss_mm": 5, "continuing_loss_mm_h": 1}
    complete = json_post(agent, f"{projects}design-studies/", {"name": "complete", **study_body})
    for member in DesignMember.objects.filter(study_id=complete["id"]):
        depth = member_depth(*DEPTHS[member.duration_min, member.pattern])
        member.run = make_finished_run(record, scenario=scenario, depth=depth, hazard=True)
        member.save()
    DesignStudy.objects.filter(pk=complete["id"]).update(status=StudyStatus.POST_PROCESSING, started_at=timezone.now())
    assert design_study_envelopes(study_id=complete["id"]).status == StudyStatus.COMPLETE
    draft = json_post(agent, f"{projects}design-studies/", {"name": "draft", **study_body})

    # A finished run of the base, then its build (the latest run), completed with results and its recorded time series.
    other = make_finished_run(record, scenario=scenario, hazard=True)
    with django_capture_on_commit_callbacks(execute=True):
        build = ok(agent.post(f"{projects}scenarios/{scenario.pk}/build/"))
    run = Run.objects.get(pk=build["run"]["id"])
    assert run.status == "built", run.error_message
    run = make_finished_run(record, run=run, hazard=True)
    recorded = {
        "t": [0.0, 30.0, 60.0],
        "gauges": [{"name": "middle", "x": INSIDE[0], "y": INSIDE[1], **{key: [0.0, 0.5, 0.2] for key in SERIES}}],
        "flow_lines": [],
    }
    storage = get_storage()
    storage.save(key=f"{run.results_prefix}/time_series.json", data=json.dumps(recorded).encode())
    storage.save(key=f"{run.results_prefix}/preview.png", data=a_png())
    Run.objects.filter(pk=other.pk).update(package_prefix=run.package_prefix)  # a second run of the same build
    comparison = json_post(agent, f"{API}anuga/runs/{run.pk}/compare/", {"event": event["id"]})
    calibration = json_post(
        agent,
        f"{projects}calibration-studies/",
        {
            "name": "fit",
            "base_scenario": scenario.pk,
            "event": event["id"],
            "parameters": [{"target": "rain", "low": 0.5, "high": 2.0}],
            "budget": 4,
        },
    )

    staged = ok(agent.post(f"{projects}terrain/upload/presign/", {"filename": "dem.tif", "size": DEM.stat().st_size}))
    storage.save(key=staged["staging_key"], data=DEM.read_bytes())
    tile = next(iter(WEB_MERCATOR.tiles(*scenario.terrain.bbox_wgs84, zooms=[16])))
    dataset = upload(agent, "gauge.geojson", json.dumps(gauge).encode())
    ids = {
        "project_id": project["id"],
        "map_id": record.base_map_id,
        "terrain_id": terrain.pk,
        "series_id": series["id"],
        "scenario_id": scenario.pk,
        "run_id": run.pk,
        "other_run_id": other.pk,
        "event_id": event["id"],
        "observation_id": observation["id"],
        "comparison_id": comparison["id"],
        "input_id": spare_input["id"],
        "design study_id": complete["id"],
        "calibration study_id": calibration["id"],
        "execution_id": dataset["exec_id"],
        "dataset_id": dataset["output_params"]["resources"][0]["id"],
        "style": "hillshade",
        "aep": "1pct",
        "z": tile.z,
        "x": tile.x,
        "y": tile.y,
        **{f"{segment} layer_id": layers[kind.value][0]["id"] for segment, kind in KIND_PATHS.items()},
        # Writes that need an object in another state than the one the reads use.
        "cancel run_id": computing.pk,
        "retry run_id": failed.pk,
        "draft study_id": draft["id"],
        "spare scenario_id": spare["id"],
    }
    middle = {"x": INSIDE[0], "y": INSIDE[1]}
    projects_route = PROJECT
    bodies: dict[tuple[str, str], Any] = {
        ("POST", "/api/v2/anuga/projects/"): {"name": "p", "projection": "EPSG:28356"},
        ("POST", f"{projects_route}events/"): {"name": "e", "started_at": "2022-03-01T00:00:00Z"},
        ("POST", f"{projects_route}events/<int:event_id>/observations/import/"): {
            "execution_id": levels["exec_id"],
            "quantity": "peak_depth",
            "value_property": "level",
        },
        ("POST", f"{projects_route}observations/"): {
            "event": event["id"],
            **middle,
            "quantity": "peak_depth",
            "value_m": 1,
        },
        ("PATCH", f"{projects_route}observations/<int:observation_id>/"): {"value_m": 1.5},
        ("POST", f"{projects_route}rankings/"): {"event": event["id"], "runs": [run.pk, other.pk]},
        ("POST", f"{projects_route}scenarios/"): {"name": "s", **SCENARIO},
        ("PATCH", f"{projects_route}scenarios/<int:scenario_id>/"): {"description": "renamed"},
        ("POST", f"{projects_route}scenarios/<int:scenario_id>/clone/"): {"name": "copy", "overrides": {}},
        ("POST", f"{projects_route}terrain/upload/presign/"): {"filename": "dem.tif", "size": 100},
        ("POST", f"{projects_route}terrain/upload/finalize/"): {"staging_key": staged["staging_key"]},
        ("POST", f"{projects_route}terrain/upload/"): {"file": DEM},
        ("POST", f"{projects_route}time-series/"): {
            "name": "t",
            "series_type": "hyetograph",
            "units": "mm/hr",
            "data": {"rowData": ROWS},
        },
        ("POST", f"{projects_route}design-inputs/"): {"kind": "ifd", "content": (ARR / STUDY_FILES["ifd"]).read_text()},
        ("POST", f"{projects_route}design-studies/"): {"name": "another", **study_body},
        ("POST", f"{projects_route}design-studies/<int:study_id>/sample/"): {"points": [middle]},
        ("POST", f"{projects_route}calibration-studies/"): {
            "name": "c",
            "base_scenario": scenario.pk,
            "event": event["id"],
            "parameters": [{"target": "rain", "low": 0.5, "high": 2.0}],
            "budget": 4,
        },
        ("POST", "/api/v2/anuga/runs/<int:run_id>/compare/"): {"event": event["id"]},
        ("POST", "/api/v2/anuga/runs/<int:run_id>/sample/"): {"points": [middle]},
        ("POST", "/api/v2/anuga/runs/<int:run_id>/time-series/"): {"gauges": ["middle"]},
        ("POST", "/api/v2/anuga/scenarios/<int:scenario_id>/run/"): {},
        ("POST", "/api/v2/capability-suggestions/"): {"summary": "s"},
        ("POST", "/api/v2/uploads/upload/"): {"base_file": ("gauge.geojson", json.dumps(gauge).encode())},
        ("POST", "/api/v2/uploads/upload"): {"base_file": ("gauge.geojson", json.dumps(gauge).encode())},
        **{
            # The layer's own dataset again: the base scenario stays built as it is.
            ("PATCH", f"{projects_route}{segment}/<int:layer_id>/"): {"gn_layer": attached.get(segment)}
            for segment in KIND_PATHS
        },
    }
    Project.objects.filter(pk=record.pk).update(is_public=True)
    stranger = APIClient(raise_request_exception=False)
    stranger.credentials(HTTP_AUTHORIZATION=f"Bearer {make_grant(level='read')[1]}")
    return World(agent=agent, person=person, stranger=stranger, ids=ids, bodies=bodies)


def path_value(route: str, method: str, name: str, ids: dict[str, Any]) -> Any:
    """A path argument's value in the world: by its name, or for the names two kinds of object share (a layer's
    id, a study's id, a tile's layer) by the route's own segment."""
    if name == "layer_id":
        return ids[next(f"{segment} layer_id" for segment in KIND_PATHS if f"/{segment}/" in route)]
    if name == "layer":
        return "impact_depth" if "/impact/" in route else "max_depth"
    if name == "study_id":
        if "/calibration-studies/" in route:
            return ids["calibration study_id"]
        if re.search(r"/(approve|start|cancel)/$", route) or method == "DELETE":
            return ids["draft study_id"]
        return ids["design study_id"]
    if name == "scenario_id" and method != "GET" and not route.endswith("/run/"):
        return ids["spare scenario_id"]
    if name == "run_id" and route.endswith(("/cancel/", "/retry/")):
        return ids[f"{route.rstrip('/').rsplit('/', 1)[-1]} run_id"]
    return ids[name]


def ask(world: World, operation: Operation, client: APIClient | None = None):
    """The operation asked once, by `client` (default: the owner's agent key, or the owner for an approval)."""
    route, method = operation.route, operation.method
    url = CONVERTER.sub(lambda match: str(path_value(route, method, match["name"], world.ids)), route)
    if client is None:
        client = world.person if route.endswith("/approve/") else world.agent  # an agent key never approves
    body = world.bodies.get((method, route))
    if method in ("GET", "DELETE"):
        return getattr(client, method.lower())(url)
    if isinstance(body, dict) and any(isinstance(value, tuple) or hasattr(value, "open") for value in body.values()):
        files = {
            name: SimpleUploadedFile(*value) if isinstance(value, tuple) else value.open("rb")
            for name, value in body.items()
        }
        return getattr(client, method.lower())(url, files, format="multipart")
    text = json.dumps(body) if body is not None else ""
    return getattr(client, method.lower())(url, text, content_type="application/json")


def walk_order(operation: Operation) -> int:
    """Reads first, then writes, then deletes: a write or a delete changes only what comes after it."""
    return {"GET": 0, "DELETE": 2}.get(operation.method, 1)


def wrong_answer(
    operation: Operation, response, *, refusals: dict[tuple[str, str], tuple[int, str]] = EXPECTED_REFUSALS
) -> str | None:
    """What is wrong with the answer, held to what the handler declares; None when it is right. A refusal is right
    only as the house's error body with a code of the contract, and only where `refusals` expects it."""
    declared = declared_responses(operation)
    status = response.status_code
    content_type = response.get("Content-Type", "")
    if status >= 400:
        if not content_type.startswith("application/json"):
            return f"{status} {content_type}: {response.content[:200]!r}"
        body = response.json()
        errors = [error.message for error in OAS31Validator(ERROR_BODY).iter_errors(body)]
        if errors or body.get("code") not in ErrorCode.__members__:
            return f"{status} is not the error body with a contract code: {body}"
        expected = refusals.get((operation.method, operation.route))
        if expected != (status, body["code"]):
            return f"an unexpected refusal {status} {body['code']}: {body['detail']}"
        return None
    if status not in declared:
        return f"{status} is not a status it declares ({sorted(declared)})"
    model = declared[status]
    if model is None:
        return None if not response.content else f"{status} declares no body, answered {response.content[:200]!r}"
    if isinstance(model, str):
        return None if content_type == model else f"{status} answered {content_type}, declares {model}"
    if not content_type.startswith("application/json"):
        return f"{status} answered {content_type}, declares JSON"
    try:
        model.model_validate_json(response.content, strict=True)
    except ValidationError as error:
        return f"{status} does not validate against {model.__name__}: {error}"
    return None


def test_every_answer_of_every_api_route_validates_against_its_declared_contract_model(world):
    operations = [op for op in api_operations() if (op.method, op.route) not in NOT_CALLED]
    wrong = []

    # The other faces of each read first (a write changes what a read answers): a stranger's reduced answers and
    # the owner's browser's.
    for face, client in (("stranger", world.stranger), ("browser", world.person)):
        for operation in operations:
            if operation.method == "GET" and operation.route not in ASKED_ONCE:
                response = ask(world, operation, client)
                problem = wrong_answer(operation, response, refusals=REFUSED_TO[face])
                if problem:
                    wrong.append(f"{operation} ({face}): {problem}")
    for operation in sorted(operations, key=walk_order):
        response = ask(world, operation)
        problem = wrong_answer(operation, response)
        if problem:
            wrong.append(f"{operation}: {problem}")

    assert len(operations) > 100
    assert not wrong, "\n".join(wrong)
