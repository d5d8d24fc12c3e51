"""The OpenAPI schema at /api/v2/schema/: valid, complete over the URLconf, with the house's security and errors,
and describing what each operation takes and answers."""

import inspect
import pkgutil
import re
from collections import Counter
from importlib import import_module

import pytest
from django.core.management import call_command
from django.test import RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.views import SpectacularAPIView
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate
from rest_framework.serializers import BaseSerializer
from rest_framework.test import APIClient

import hydrata_contract.requests
from hydrata.core.schema import RENDERED_SCHEMAS, RenderedSchemas
from hydrata_contract.requests.base import Body
from tests.factories import make_finished_run, make_grant, make_project, make_user

pytestmark = pytest.mark.django_db
# The POSTs whose view reads no body: the route says it all.
BODILESS = {
    "anuga_comparisons_recompute_create",
    "anuga_projects_calibration_studies_approve_create",
    "anuga_projects_calibration_studies_cancel_create",
    "anuga_projects_calibration_studies_start_create",
    "anuga_projects_design_studies_approve_create",
    "anuga_projects_design_studies_cancel_create",
    "anuga_projects_design_studies_start_create",
    "anuga_projects_scenarios_approve_create",
    "anuga_projects_scenarios_build_create",
    "anuga_runs_cancel_create",
    "anuga_runs_retry_create",
}


def api_routes(patterns, prefix: str = "") -> set[str]:
    """Every route of the URLconf, in the schema's spelling (/api/v2/runs/{run_id}/)."""
    routes = set()
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            routes |= api_routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            routes.add("/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route))
    return routes


def schema() -> dict:
    response = APIClient().get("/api/v2/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def test_the_schema_is_valid_openapi_and_describes_every_api_route():
    document = schema()

    validate(document)
    routes = {r for r in api_routes(get_resolver().url_patterns) if r.startswith("/api/v2/")}
    routes -= {"/api/v2/schema/", "/api/v2/schema/docs/"}
    assert routes and routes <= set(document["paths"]), sorted(routes - set(document["paths"]))


def operations(document: dict) -> list[tuple[str, str, dict]]:
    return [(path, method, op) for path, methods in document["paths"].items() for method, op in methods.items()]


def test_generating_the_schema_gives_no_error_and_no_warning(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))


def test_every_operation_has_an_operation_id_of_its_own():
    counts = Counter(op["operationId"] for _, _, op in operations(schema()))

    assert [name for name, count in counts.items() if count > 1] == []


def test_every_success_but_a_204_declares_the_body_it_answers():
    missing = [
        f"{method} {path} {status}"
        for path, method, op in operations(schema())
        for status, response in op["responses"].items()
        if status.startswith("2") and status != "204" and not response.get("content")
    ]

    assert missing == []


def test_every_post_and_patch_that_reads_a_body_declares_it_and_the_others_declare_none():
    document = schema()
    writes = [(op["operationId"], op) for _, method, op in operations(document) if method in ("post", "patch")]

    assert sorted(name for name, op in writes if "requestBody" not in op) == sorted(BODILESS)


def request_models() -> set[str]:
    """The names of the contract's request models (hydrata_contract/requests)."""
    names = set()
    for module in pkgutil.iter_modules(hydrata_contract.requests.__path__):
        found = import_module(f"hydrata_contract.requests.{module.name}")
        names |= {name for name, model in inspect.getmembers(found, inspect.isclass) if issubclass(model, Body)}
    return names


def test_every_write_with_a_body_describes_it_from_a_request_model_of_the_contract():
    document, models = schema(), request_models()
    writes = [(method, path, op) for path, method, op in operations(document) if method in ("post", "put", "patch")]
    # drf-spectacular names a request body's component after its model: Request after it, Patched before a PATCH's.
    bodies = {
        f"{method} {path}": {ref["$ref"].rsplit("/", 1)[-1] for ref in _schemas(op["requestBody"])}
        for method, path, op in writes
        if op["operationId"] not in BODILESS
    }

    assert len(bodies) == len(writes) - len(BODILESS) == 37
    not_from_a_model = {
        write: names
        for write, names in bodies.items()
        if not all(re.sub(r"^Patched|Request$", "", name) in models for name in names)
    }
    assert not_from_a_model == {}


def _schemas(body: dict) -> list[dict]:
    return [content["schema"] for content in body["content"].values()]


def test_no_component_of_the_schema_comes_from_a_serializer():
    generator = SchemaGenerator()
    generator.get_schema(request=None, public=True)

    sources = {component.name: component.object for component in generator.registry._components.values()}
    from_serializers = [
        name
        for name, source in sources.items()
        if isinstance(source, BaseSerializer) or (inspect.isclass(source) and issubclass(source, BaseSerializer))
    ]
    assert sources and from_serializers == []


def test_a_tile_is_declared_a_png_and_a_list_a_page_of_results():
    paths = schema()["paths"]

    tile = paths["/api/v2/anuga/runs/{run_id}/tiles/{layer}/{z}/{x}/{y}.png"]["get"]["responses"]["200"]
    assert list(tile["content"]) == ["image/png"]
    for route, model in [
        ("/api/v2/anuga/projects/", "ProjectPage"),
        ("/api/v2/anuga/projects/{project_id}/runs/", "RunPage"),
        ("/api/v2/anuga/projects/{project_id}/scenarios/", "ScenarioPage"),
        ("/api/v2/anuga/projects/{project_id}/terrain/", "TerrainPage"),
        ("/api/v2/anuga/projects/{project_id}/gauges/", "InputLayerPage"),
        ("/api/v2/anuga/projects/{project_id}/time-series/", "TimeSeriesPage"),
    ]:
        listed = paths[route]["get"]
        page = listed["responses"]["200"]["content"]["application/json"]["schema"]
        assert page == {"$ref": f"#/components/schemas/{model}"}, route  # the contract's page
        assert listed["operationId"].endswith("_list"), route


def assert_answers_as_documented(document: dict, route: str, response) -> None:
    assert response.status_code == 200, response.content
    declared = document["paths"][route]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    OAS31Validator({**declared, "components": document["components"]}).validate(response.json())


def test_what_a_stranger_reads_of_a_public_projects_runs_and_scenarios_is_as_documented():
    """The draft-key fuzz reads every answer in full; the reduced answers (withheld fields null) are checked here."""
    document, project = schema(), make_project(is_public=True)
    run = make_finished_run(project)
    stranger = APIClient(HTTP_AUTHORIZATION=f"Bearer {make_grant(level='read')[1]}")
    runs, scenarios = "/api/v2/anuga/runs/", f"/api/v2/anuga/projects/{project.pk}/scenarios/"

    for route, url in [
        ("/api/v2/anuga/runs/{run_id}/", f"{runs}{run.pk}/"),
        ("/api/v2/anuga/runs/{run_id}/status/", f"{runs}{run.pk}/status/"),
        ("/api/v2/anuga/runs/{run_id}/results/", f"{runs}{run.pk}/results/"),
        ("/api/v2/anuga/projects/{project_id}/runs/", f"/api/v2/anuga/projects/{project.pk}/runs/"),
        ("/api/v2/anuga/projects/{project_id}/scenarios/", scenarios),
        ("/api/v2/anuga/projects/{project_id}/scenarios/{scenario_id}/", f"{scenarios}{run.scenario_id}/"),
    ]:
        answer = stranger.get(url)
        assert_answers_as_documented(document, route, answer)
    assert answer.json()["reduced"] is True


def test_what_a_members_browser_reads_without_signed_links_is_as_documented():
    document, project = schema(), make_project()
    run = make_finished_run(project)
    browser = APIClient()
    browser.force_login(project.owner)
    terrain = f"/api/v2/anuga/projects/{project.pk}/terrain/{run.scenario.terrain_id}/"

    assert_answers_as_documented(document, "/api/v2/anuga/runs/{run_id}/", browser.get(f"/api/v2/anuga/runs/{run.pk}/"))
    answer = browser.get(terrain)
    assert_answers_as_documented(document, "/api/v2/anuga/projects/{project_id}/terrain/{terrain_id}/", answer)
    assert "s3_hillshade_url" not in answer.json()


def test_the_schema_names_the_agent_key_and_the_connect_flow_and_every_error_carries_a_code():
    document = schema()

    schemes = document["components"]["securitySchemes"]
    assert schemes["agentKey"]["scheme"] == "bearer"
    assert set(schemes["connectFlow"]["flows"]["authorizationCode"]["scopes"]) >= {"read", "draft", "launch"}
    assert document["components"]["schemas"]["Error"]["required"] == ["code", "detail"]
    run = document["paths"]["/api/v2/anuga/scenarios/{scenario_id}/run/"]["post"]
    assert {"agentKey": []} in run["security"] and {"connectFlow": []} in run["security"]
    assert run["responses"]["403"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}


def test_the_docs_page_is_behind_the_sites_login(client):
    assert client.get("/api/v2/schema/docs/").status_code == 302
    client.force_login(make_user())
    assert client.get("/api/v2/schema/docs/").status_code == 200


def test_a_path_no_api_route_matches_answers_the_json_error_body_not_a_page(client):
    response = client.get("/api/v2/anuga/runs/-1/")

    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert response.json()["code"] == "NOT_FOUND"
    assert client.get("/no-such-page/")["Content-Type"].startswith("text/html")


def test_every_page_of_results_is_a_list_operation_that_takes_the_page_and_its_size():
    document = schema()
    components = document["components"]["schemas"]

    def is_page(answer: dict) -> bool:
        ref = answer.get("$ref", "")
        target = components.get(ref.rsplit("/", 1)[-1], {}) if ref else answer
        return {"count", "results"} <= set(target.get("properties", {}))

    pages = [
        (path, op)
        for path, method, op in operations(document)
        if method == "get"
        and is_page(op["responses"]["200"].get("content", {}).get("application/json", {}).get("schema", {}))
    ]
    assert len(pages) >= 6
    wrong = [
        path
        for path, op in pages
        if not op["operationId"].endswith("_list")
        or not {"page", "page_size"} <= {p["name"] for p in op.get("parameters", [])}
    ]
    assert wrong == []


@pytest.fixture
def builds(monkeypatch) -> list[int]:
    """How many times drf-spectacular builds a schema."""
    built: list[int] = []
    build = SchemaGenerator.get_schema

    def counted(self, *args, **kwargs):
        built.append(1)
        return build(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counted)
    RENDERED_SCHEMAS.forget()
    return built


@pytest.mark.parametrize(
    "accept", ["application/vnd.oai.openapi", "application/vnd.oai.openapi+json", "application/json; indent=2"]
)
def test_the_schema_is_built_once_per_process_and_answered_byte_for_byte_as_drf_spectacular_answers_it(builds, accept):
    theirs = SpectacularAPIView.as_view()(RequestFactory().get("/api/v2/schema/", HTTP_ACCEPT=accept)).render()
    assert len(builds) == 1

    answers = [APIClient().get("/api/v2/schema/", HTTP_ACCEPT=accept) for _ in range(3)]

    assert len(builds) == 2
    for ours in answers:
        assert ours.status_code == 200
        assert ours.content == theirs.content
        assert ours["Content-Type"] == theirs["Content-Type"]
        assert ours["Content-Disposition"] == theirs["Content-Disposition"]


def test_a_head_request_reads_the_kept_schema_and_each_format_is_kept_apart(builds):
    client = APIClient()
    yaml = client.get("/api/v2/schema/")
    json = client.get("/api/v2/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    head = client.head("/api/v2/schema/")

    assert len(builds) == 2
    assert yaml.content.startswith(b"openapi:") and json.json()["openapi"] == "3.1.0"
    assert head.status_code == 200 and head["Content-Type"] == yaml["Content-Type"]


def test_a_changed_setting_builds_the_schema_again(builds, settings):
    """A test's override may change what the schema reads (its URLconf): what was kept is not answered after it."""
    first = schema()

    settings.ROOT_URLCONF = "config.urls"

    assert schema() == first
    assert len(builds) == 2


def test_values_that_change_nothing_share_the_kept_schema_and_each_real_variant_is_its_own(builds):
    client = APIClient()
    plain = client.get("/api/v2/schema/", HTTP_ACCEPT="application/json")
    for query, accept in (
        ({"lang": "zz-unknown"}, "application/json"),
        ({}, "application/json; charset=utf-8; foo=bar"),
    ):
        assert client.get("/api/v2/schema/", query, HTTP_ACCEPT=accept).content == plain.content
    assert len(builds) == 1

    german = client.get("/api/v2/schema/", {"lang": "de"}, HTTP_ACCEPT="application/json")
    indented = client.get("/api/v2/schema/", HTTP_ACCEPT="application/json; indent=2")

    assert len(builds) == 3
    assert indented.content != plain.content and indented.json() == plain.json()
    assert german.status_code == 200


# Eleven answers that differ: both YAML media types, the OpenAPI JSON one, and JSON at each indent.
VARIANTS = [
    "application/vnd.oai.openapi",
    "application/yaml",
    "application/vnd.oai.openapi+json",
    *(f"application/json; indent={indent}" for indent in range(1, 9)),
]


def test_however_many_variants_a_client_asks_for_the_process_keeps_a_few(builds):
    client = APIClient()
    for accept in VARIANTS:
        assert client.get("/api/v2/schema/", HTTP_ACCEPT=accept).status_code == 200

    assert len(builds) == len(VARIANTS) > RenderedSchemas.LIMIT
    assert len(RENDERED_SCHEMAS.answers) == RenderedSchemas.LIMIT
    assert client.get("/api/v2/schema/", HTTP_ACCEPT=VARIANTS[0]).status_code == 200
    assert len(builds) == len(VARIANTS) + 1  # the first variant had been let go, so it is built again
