"""The OpenAPI schema at /api/v2/schema/: valid, complete over the URLconf, with the house's security and errors."""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from openapi_spec_validator import validate
from rest_framework.test import APIClient

from tests.factories import make_user

pytestmark = pytest.mark.django_db


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
