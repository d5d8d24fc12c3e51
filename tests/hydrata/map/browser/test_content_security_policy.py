"""The site under its Content-Security-Policy in a real browser: every page an engineer opens works and breaks
none of it (the folder's `tab` fixture fails any test whose pages raised a `securitypolicyviolation`), and a
layer's stored markup shows as text in the map's tooltips, popups and layer switcher."""

import asyncio
import http.server
import json
import re
from collections.abc import Iterator

import httpx
import pytest

from tests.browser import http_server, off_the_browser_thread, sign_in, wait_for_panel
from tests.factories import make_grant, make_project, make_ready_terrain, make_user
from tests.hydrata.map.browser.conftest import PASSWORD
from tests.hydrata.oauth.flow import Pkce, authorize_url
from tests.mcp_client import mcp_client

PAYLOAD = '<img src=x onerror="window.__ran=1">'
SQUARE = [[251060.0, 6271860.0], [251140.0, 6271860.0], [251140.0, 6271940.0], [251060.0, 6271940.0]]
SQUARE.append(SQUARE[0])  # in the middle of the small_test DEM
STRUCTURE = {
    "type": "FeatureCollection",
    "crs": {"type": "name", "properties": {"name": "EPSG:28356"}},
    "features": [
        {
            "type": "Feature",
            "geometry": {
                "type": "Polygon",
                "coordinates": [SQUARE],
            },
            "properties": {"method": "Raised", "note": PAYLOAD, "comment": PAYLOAD},  # method: one of three names
        }
    ],
}


def policy_of(tab, path_pattern: str) -> dict[str, str]:
    """The CSP of the last page shown from a path (not of a redirect away from it), by directive."""
    documents = [r for r in tab.responses_to(path_pattern) if r.request.resource_type == "document" and r.status == 200]
    assert documents, path_pattern
    header = documents[-1].headers.get("content-security-policy", "")
    return {name: sources.strip() for name, _, sources in (part.strip().partition(" ") for part in header.split(";"))}


def test_signing_in_through_a_map_link_and_opening_every_panel_breaks_no_policy(tab, site):
    link = site.ui_urls["build_scenario"]

    sign_in(tab, link, username=site.username, password=PASSWORD)  # the fragment rides through sign_in.js
    wait_for_panel(tab, "scenario")
    arrived_at = tab.page.url
    tab.page.wait_for_selector('#map[data-mesh-view="triangles"]')
    for name in ("Terrain", "Inputs", "Hydrology", "Run"):
        tab.page.click(f"#panel-tabs a:has-text('{name}')")
        wait_for_panel(tab, name.lower())
    tab.page.click(".leaflet-control-zoom-in")
    tab.page.wait_for_timeout(500)

    assert arrived_at.endswith(link.split("/", 3)[-1])
    assert policy_of(tab, r"/catalogue/$")["script-src"] == "'self'"
    assert policy_of(tab, r"/accounts/login/")["script-src"] == "'self'"
    assert tab.console_errors == []


def test_the_agents_password_api_docs_and_admin_pages_work_under_the_policy(tab, site):
    staff = off_the_browser_thread(lambda: make_user("csp-staff", is_staff=True, is_superuser=True).get_username())

    sign_in(tab, f"{site.url}/agents/", username=site.username, password=PASSWORD)
    tab.page.fill("#id_name", "CSP check")
    tab.page.check("input[name=level][value=read]")
    tab.page.click("button:has-text('Create grant')")
    tab.page.wait_for_selector("#new-key")
    tab.page.goto(f"{site.url}/accounts/password/")
    tab.page.wait_for_selector("input[name=new_password1]")
    tab.page.goto(f"{site.url}/api/v2/schema/docs/")
    tab.page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)
    docs_title = tab.page.inner_text(".swagger-ui .info .title")
    before_the_admin = list(tab.console_errors)
    tab.context.clear_cookies()
    tab.page.goto(f"{site.url}/admin/auth/user/")
    tab.page.fill("input[name=username]", staff)
    tab.page.fill("input[name=password]", PASSWORD)
    tab.page.click("input[type=submit]")
    tab.page.click(f"#result_list a:text-is('{site.username}')")
    tab.page.wait_for_selector("#user_form")

    assert "Hydrata REST API" in docs_title
    assert tab.foreign_requests() == []  # Swagger UI from this site, not a CDN
    for page in (r"/agents/", r"/api/v2/schema/docs/$", r"/admin/auth/user/\d+/change/"):
        assert policy_of(tab, page)["script-src"] == "'self'", page
    assert before_the_admin == []
    # The admin's pages name no icon, so the browser asks for /favicon.ico (a 404 it shows Playwright no response
    # for): the only thing that may fail there, and no CSP's doing.
    assert [response.url for response in tab.responses if response.status >= 400] == []
    assert set(tab.console_errors) <= {"Failed to load resource: the server responded with a status of 404 (Not Found)"}


class LoopbackCallback(http.server.BaseHTTPRequestHandler):
    """The MCP client's side of the connect flow: a listener on a loopback port that takes the code (RFC 8252)."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args) -> None:
        pass


@pytest.fixture
def callback() -> Iterator[str]:
    """The client's redirect URI, on a port of this machine's loopback that a real listener answers."""
    with http_server(LoopbackCallback) as url:
        yield url.replace("127.0.0.1", "localhost") + "/callback"


def test_the_consent_form_leads_to_the_clients_loopback_callback_under_the_policy(tab, site, callback):
    registered = httpx.post(
        f"{site.url}/oauth/register/",
        json={
            "client_name": "CSP test client",
            "redirect_uris": ["http://localhost/callback"],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code"],
            "response_types": ["code"],
        },
    )
    assert registered.status_code == 201, registered.text
    url = site.url + authorize_url(registered.json()["client_id"], Pkce(), redirect_uri=callback, scope="read")

    sign_in(tab, url, username=site.username, password=PASSWORD)
    tab.page.click("button[name=allow]")
    tab.page.wait_for_url(re.compile(rf"^{re.escape(callback)}\?"))

    assert "code=" in tab.page.url
    assert policy_of(tab, r"/oauth/authorize/")["form-action"] == "'self' http://localhost:*"


def test_markup_stored_in_a_layer_shows_as_text_in_its_tooltip_popup_and_the_layer_switcher(tab, site):
    project_id, base_map, row_id = off_the_browser_thread(attach_structure_with_markup, site)

    sign_in(
        tab,
        f"{site.url}/catalogue/#/map/{base_map}?panel=inputs&layer={row_id}",
        username=site.username,
        password=PASSWORD,
    )
    wait_for_panel(tab, "inputs")
    tooltip = tab.page.locator(".leaflet-tooltip.feature-label")
    tooltip.wait_for()
    box = tab.page.locator("#map").bounding_box()
    tab.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    popup = tab.page.locator(".leaflet-popup-content")
    popup.wait_for()

    assert tooltip.inner_text() == "Structure · Raised"
    assert PAYLOAD in popup.inner_text() and popup.locator("td", has_text=PAYLOAD).count() == 2
    assert "Structures: Structure 01" in tab.page.inner_text(".leaflet-control-layers-overlays")
    assert tab.page.locator(".leaflet-map-pane img:not(.leaflet-tile), .leaflet-control-layers img").count() == 0
    assert tab.page.evaluate("() => window.__ran") is None
    assert PAYLOAD in tab.page.inner_text("#panel")  # the properties table of the panel, as text too
    assert project_id and tab.console_errors == []


def attach_structure_with_markup(site) -> tuple[int, int, int]:
    """A project of the engineer's with a structure layer whose properties hold markup, attached with a draft
    key the way an agent attaches one (REST upload, then attach_input_layer)."""
    from django.contrib.auth import get_user_model

    engineer = get_user_model().objects.get(username=site.username)
    project = make_project(engineer, name="Markup in a layer")
    make_ready_terrain(project)
    _, key = make_grant(engineer, level="draft", name="draft agent")
    upload = httpx.post(
        f"{site.url}/api/v2/uploads/upload/",
        headers={"Authorization": f"Bearer {key}"},
        files={"base_file": ("structure.geojson", json.dumps(STRUCTURE).encode(), "application/geo+json")},
        timeout=60,
    )
    assert upload.status_code in (200, 201), upload.text

    async def attach():
        async with mcp_client(site.url, key) as client:
            result = await client.call_tool(
                "attach_input_layer",
                {
                    "project_id": project.pk,
                    "kind": "structure",
                    "execution_id": upload.json()["execution_id"],
                    "poll_interval_seconds": 2,
                },
            )
            assert not result.is_error, result.content[0].text
            return result.structured_content

    attached = asyncio.run(attach())
    assert attached["outcome"] == "attached", attached
    return project.pk, project.base_map_id, attached["row_id"]
