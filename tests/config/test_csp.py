"""Every HTML page carries the site's Content-Security-Policy: the URLconf is walked and every route fetched as a
visitor, a signed-in engineer and a staff member, and each answer that is HTML must carry every directive. No
template holds an inline script or style, which that policy would refuse."""

import json
import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.config.test_settings import load_settings
from tests.factories import make_user
from tests.hydrata.oauth.flow import Pkce, authorize_url, register
from tests.processes import ROOT

pytestmark = pytest.mark.django_db

POLICY = {
    "default-src": {"'self'"},
    "script-src": {"'self'"},
    "style-src": {"'self'"},
    "img-src": {"'self'", "data:"},
    "font-src": {"'self'"},
    "connect-src": {"'self'"},
    "object-src": {"'none'"},
    "base-uri": {"'none'"},
    "frame-ancestors": {"'none'"},
    "form-action": {"'self'"},
}
# Values for the URLconf's converters: an object that does not exist is a 404 page, which must carry it too.
CONVERTER_VALUES = {
    "IntConverter": "1",
    "StringConverter": "x",
    "PathConverter": "x",
    "SlugConverter": "x",
    "UUIDConverter": "00000000-0000-0000-0000-000000000000",
}
INLINE_HANDLER = re.compile(r"\son[a-z]+\s*=")  # onclick=, onload=... (read from our templates, not user data)
# Pages that must be among the HTML answers, so the walk cannot pass by reaching none of them.
MUST_BE_HTML = {
    "/catalogue/",
    "/agents/",
    "/accounts/login/",
    "/accounts/password/",
    "/accounts/password/done/",
    "/admin/login/",
    "/admin/",
    "/api/v2/schema/docs/",
    "/a/page/that/does/not/exist/",
}


def directives(header: str) -> dict[str, set[str]]:
    parsed = {}
    for directive in header.split(";"):
        name, *sources = directive.split()
        assert name not in parsed, f"{name} twice"
        parsed[name] = set(sources)
    return parsed


def routes(resolver: URLResolver | None = None, prefix: str = "") -> list[str]:
    """A concrete path for every route of the URLconf, each converter given a value."""
    found = []
    for entry in (resolver or get_resolver()).url_patterns:
        route = prefix + concrete(entry)
        if isinstance(entry, URLResolver):
            found += routes(entry, route)
        elif isinstance(entry, URLPattern):
            found.append("/" + route)
    return found


def concrete(entry: URLPattern | URLResolver) -> str:
    """The route with each `<converter:name>` replaced by a value; of a regular expression route (the admin's
    few), its literal beginning."""
    pattern = entry.pattern
    text = str(pattern)
    converters = getattr(pattern, "converters", None)
    if converters is None:
        return text.lstrip("^").split("(", 1)[0].rstrip("$")
    for converter in converters.values():  # in the order of their placeholders
        start = text.index("<")
        text = text[:start] + CONVERTER_VALUES[type(converter).__name__] + text[text.index(">", start) + 1 :]
    return text


def html_answers(client: Client, paths: list[str]) -> dict[str, object]:
    answers = {}
    for path in paths:
        response = client.get(path)
        if response.get("Content-Type", "").startswith("text/html"):
            answers[path] = response
    return answers


def assert_policy(path: str, response, *, form_action: set[str] | None = None) -> None:
    assert "Content-Security-Policy" in response, f"{path} ({response.status_code}) has no CSP"
    policy = directives(response["Content-Security-Policy"])
    expected = {**POLICY, "form-action": POLICY["form-action"] | (form_action or set())}
    assert policy == expected, (path, response.status_code, policy)


@pytest.fixture
def walk() -> list[str]:
    """/mcp/ is left out: JSON-RPC over its own handler (config/asgi.py), whose refusals have no body."""
    return [path for path in routes() if path.rstrip("/") != "/mcp"] + ["/a/page/that/does/not/exist/"]


def test_every_html_page_a_visitor_gets_carries_the_policy(walk):
    answers = html_answers(Client(), walk)

    assert {"/accounts/login/", "/admin/login/", "/a/page/that/does/not/exist/"} <= set(answers)
    for path, response in answers.items():
        assert_policy(path, response)


def test_every_html_page_a_signed_in_engineer_or_staff_member_gets_carries_the_policy(walk):
    engineer, staff = Client(), Client()
    engineer.force_login(make_user("engineer"))
    staff.force_login(make_user("staff", is_staff=True, is_superuser=True))

    answers = {**html_answers(engineer, walk), **html_answers(staff, walk)}

    assert set(answers) >= MUST_BE_HTML, MUST_BE_HTML - set(answers)
    assert len([path for path in answers if path.startswith("/admin/")]) > 20  # every model's admin pages
    for path, response in answers.items():
        assert_policy(path, response)


def test_the_consent_page_also_lets_its_form_lead_to_the_clients_redirect_origin_alone(client):
    client_id = register(Client(), redirect_uris=["http://localhost/callback", "https://app.example/cb"])["client_id"]
    client.force_login(make_user())

    page = client.get(authorize_url(client_id, Pkce()))

    assert page.status_code == 200 and b'id="consent"' in page.content
    # A loopback client listens on a port of its choosing at each sign-in (RFC 8252).
    assert_policy("/oauth/authorize/", page, form_action={"http://localhost:*", "https://app.example"})


def test_the_consent_pages_error_page_allows_no_other_form_target(client):
    client.force_login(make_user())

    page = client.get(authorize_url("no-such-client", Pkce()))

    assert page.status_code in (200, 400)
    assert_policy("/oauth/authorize/", page)


def test_no_template_holds_an_inline_script_style_or_event_handler():
    """Scripts and styles come from files (script-src and style-src 'self'); a JSON data block is not a script."""
    templates = sorted({*ROOT.glob("templates/**/*.html"), *ROOT.glob("hydrata*/**/templates/**/*.html")})
    found = []
    for path in templates:
        text = path.read_text(encoding="utf-8").lower()
        for number, line in enumerate(text.splitlines(), start=1):
            inline_script = "<script" in line and " src=" not in line
            if inline_script or "<style" in line or " style=" in line or INLINE_HANDLER.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")

    assert len(templates) >= 8
    assert found == []


def test_the_background_maps_tile_servers_are_the_only_other_image_sources(tmp_path):
    script = "import json; from django.conf import settings; print(json.dumps(settings.CONTENT_SECURITY_POLICY))"
    result = load_settings(
        tmp_path,
        script=script,
        HYDRATA_BASEMAP_URL="https://{s}.tile.example/{z}/{x}/{y}.png",
        HYDRATA_CSP_EXTRA_IMG_HOSTS="https://imagery.example:8443",
    )

    assert result.returncode == 0, result.stderr
    sources = json.loads(result.stdout)["DIRECTIVES"]["img-src"]
    assert sources == ["'self'", "data:", "https://*.tile.example", "https://imagery.example:8443"]


@pytest.mark.parametrize(
    "basemap",
    [
        "tile.example/{z}/{x}/{y}.png",
        "javascript:alert(1)",
        "https://tile.example;script-src *",
        "https://t{s}.example/",
    ],
)
def test_a_tile_server_setting_that_is_not_one_source_is_refused_at_start(tmp_path, basemap):
    result = load_settings(tmp_path, HYDRATA_BASEMAP_URL=basemap)

    assert result.returncode != 0
    assert "HYDRATA_BASEMAP_URL" in result.stderr
