"""The grant-level matrix, generated from the URLconf: every route and method of the REST API, asked without a
credential, and with an agent key and a connect-flow token of each level.

Below the declared level the answer is 403 GRANT_LEVEL_TOO_LOW naming that level; at it or above, the request is
past the level check (whatever the view then says of the made-up ids, never a 5xx); without a credential it is
401. The declared levels are the ones docs/grant-levels.md states, so a level changed in code (or in the doc)
alone fails here. The system check (tests/hydrata/agents/test_permissions.py) proves only that a level is
declared, not which."""

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from django.test import Client
from django.urls import get_resolver

from hydrata.agents.checks import _drf_views, _served
from tests.factories import make_grant, make_user
from tests.hydrata.oauth.flow import connect

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
LEVELS_DOC = ROOT / "docs" / "grant-levels.md"
LEVELS = ("read", "draft", "launch")
METHODS = ("GET", "POST", "PATCH", "PUT", "DELETE")
IMPLICIT_METHODS = ("HEAD", "OPTIONS")
CONVERTER = re.compile(r"<(?:(?P<kind>\w+):)?\w+>")
# Routes anyone may ask without a credential, and what they answer then: the rest is 401.
PUBLIC = {
    "/api/v2/schema/": 200,  # the API's description holds no data (hydrata/core/schema.py::SchemaView)
    "/api/v2/schema/docs/": 302,  # the browsable page sends people to sign in first
}
PUBLIC_IMPLICIT = {
    ("/api/v2/schema/", "HEAD"): 200,
    ("/api/v2/schema/", "OPTIONS"): 405,  # OPTIONS describes nothing on any route: the schema does
    ("/api/v2/schema/docs/", "HEAD"): 302,
    ("/api/v2/schema/docs/", "OPTIONS"): 302,
}
MADE_UP = {"int": "987654", "str": "made-up", "slug": "made-up", "uuid": "00000000-0000-4000-8000-000000000000"}


def declared() -> dict[tuple[str, str], str]:
    """(route as a URL pattern with its leading slash, method) -> the level the view declares."""
    matrix = {}
    for route, view_class, actions in _drf_views(get_resolver().url_patterns):
        levels = getattr(view_class, "grant_levels", {})
        for method in _served(view_class, actions):
            matrix[("/" + route, method)] = levels.get(method)
    return matrix


def url_of(route: str) -> str:
    return CONVERTER.sub(lambda match: MADE_UP[match["kind"] or "str"], route)


def ask(method: str, url: str, credential: str | None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {credential}"} if credential else {}
    body = {"data": "{}", "content_type": "application/json"} if method in ("POST", "PATCH", "PUT") else {}
    return getattr(Client(), method.lower())(url, **body, **headers)


def implicit() -> dict[tuple[str, str], str]:
    """(route, HEAD or OPTIONS) -> the level it needs: no view declares these two, which Django and DRF answer on
    every view; they take the level of the route's GET, and where it has no GET the highest (fail closed)."""
    matrix = declared()
    routes = dict.fromkeys(route for route, _ in matrix)
    return {(route, method): matrix.get((route, "GET"), "launch") for route in routes for method in IMPLICIT_METHODS}


def agent_keys() -> dict[str, str]:
    owner = make_user("matrix-keys")
    return {level: make_grant(owner, level=level, name=f"{level} key")[1] for level in LEVELS}


def connect_tokens() -> dict[str, str]:
    return {level: connect(make_user(f"matrix-{level}"), level=level).access_token for level in LEVELS}


def refusals(credentials: dict[str, str], matrix: dict[tuple[str, str], str]) -> list[str]:
    """Each route and method where a credential was answered other than its level says it should be."""
    wrong = []
    for (route, method), needed in matrix.items():
        url = url_of(route)
        for level, credential in credentials.items():
            response = ask(method, url, credential)
            body = json_of(response)
            headless = method == "HEAD"  # its refusal is the 403 alone
            refused = response.status_code == 403 and (headless or body.get("code") == "GRANT_LEVEL_TOO_LOW")
            if LEVELS.index(level) < LEVELS.index(needed):
                if not (refused and (headless or body.get("required_level") == needed)):
                    wrong.append(f"{method} {route} with {level}: {response.status_code} {body.get('code')}")
            elif refused or response.status_code >= 500:
                wrong.append(f"{method} {route} with {level}: {response.status_code} {body.get('code')}")
    return wrong


def json_of(response) -> dict:
    """The answer's JSON; a HEAD answer has the GET's headers and no body."""
    is_json = response.get("Content-Type", "").startswith("application/json")
    return response.json() if is_json and response.content else {}


def documented() -> dict[tuple[str, str], str]:
    """The doc's table: | `route` | GET | POST | PATCH | PUT | DELETE | with a level or nothing in each."""
    matrix = {}
    for line in LEVELS_DOC.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 1 + len(METHODS) or not cells[0].startswith("`/"):
            continue
        for method, level in zip(METHODS, cells[1:], strict=True):
            if level:
                matrix[(cells[0].strip("`"), method)] = level
    return matrix


def table(matrix: dict[tuple[str, str], str]) -> str:
    routes = list(dict.fromkeys(route for route, _ in matrix))
    head = "| route | " + " | ".join(METHODS) + " |\n|---|" + "---|" * len(METHODS)
    rows = [
        f"| `{route}` | " + " | ".join(matrix.get((route, method), "") for method in METHODS) + " |" for route in routes
    ]
    return "\n".join([head, *rows])


def test_the_matrix_covers_every_route_of_the_api_and_only_known_methods_and_levels():
    matrix = declared()

    assert len({route for route, _ in matrix}) >= 70  # the walk reaches the whole API, not one app
    assert {method for _, method in matrix} <= set(METHODS)
    assert set(matrix.values()) <= set(LEVELS), "the system check refuses an undeclared level"


def test_every_route_and_method_asked_without_a_credential_is_401_but_the_apis_public_description():
    wrong = []
    for route, method in declared():
        response = ask(method, url_of(route), None)
        if response.status_code != PUBLIC.get(route, 401):
            wrong.append(f"{method} {route}: {response.status_code}")

    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("credentials", [agent_keys, connect_tokens], ids=["agent key", "connect-flow token"])
def test_every_route_and_method_refuses_each_level_below_the_declared_one_and_lets_the_others_past(
    credentials: Callable[[], dict[str, str]],
):
    wrong = refusals(credentials(), declared())

    assert not wrong, "\n".join(wrong)


def test_head_and_options_on_every_route_need_the_level_of_its_get_or_the_highest_where_it_has_none():
    # Agent keys only: the level check is the same for both credentials, which the test above holds.
    wrong = refusals(agent_keys(), implicit())

    assert not wrong, "\n".join(wrong)


def test_head_and_options_on_every_route_asked_without_a_credential_are_401_but_the_apis_public_description():
    wrong = []
    for route, method in implicit():
        response = ask(method, url_of(route), None)
        if response.status_code != PUBLIC_IMPLICIT.get((route, method), 401):
            wrong.append(f"{method} {route}: {response.status_code}")

    assert not wrong, "\n".join(wrong)


def test_the_declared_levels_are_the_ones_the_documentation_states():
    code, doc = declared(), documented()

    assert doc == code, (
        f"{LEVELS_DOC.relative_to(ROOT)} and the views disagree on "
        + ", ".join(f"{method} {route}" for (route, method), _ in sorted(set(code.items()) ^ set(doc.items())))
        + f". The views declare:\n{table(code)}"
    )
