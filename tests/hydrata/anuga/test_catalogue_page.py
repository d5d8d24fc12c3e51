"""The /catalogue/ page: lists the projects a person can see and reads map links from the URL fragment."""

import shutil
from urllib.parse import urlsplit

import pytest
from django.test import Client
from playwright.sync_api import sync_playwright

from tests.factories import make_project, make_user

pytestmark = pytest.mark.django_db

PAGE = "/catalogue/"
# The map view has answered: its details are shown, or its status says something other than loading.
SETTLED = ("() => !document.getElementById('map-details').hidden"
           " || document.getElementById('map-status').textContent !== 'Loading…'")


def test_anonymous_visitors_are_sent_to_sign_in(client):
    response = client.get(PAGE)

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/?next=/catalogue/")


def test_the_home_page_goes_to_the_catalogue(client):
    response = client.get("/")

    assert response.status_code == 302 and response["Location"] == PAGE


def test_the_catalogue_lists_the_users_projects_with_map_links(client):
    alice = make_user("alice")
    mine = make_project(alice, name="Alice creek")
    shared = make_project(make_user("bob"), name="Shared with Alice", members={alice: "viewer"})
    public = make_project(make_user("carol"), name="Everyone's river", is_public=True)
    make_project(make_user("dave"), name="Dave private study")
    client.force_login(alice)

    response = client.get(PAGE)

    assert response.status_code == 200
    body = response.content.decode()
    for project in (mine, shared, public):
        assert f'href="#/map/{project.base_map_id}"' in body
    assert "Alice creek" in body and "Shared with Alice" in body and "Everyone&#x27;s river" in body
    assert "Dave private study" not in body
    assert "you: owner" in body and "you: viewer" in body and "you: public" in body


def test_a_user_with_no_projects_is_told_so(client):
    client.force_login(make_user())

    body = client.get(PAGE).content.decode()

    assert "You have no projects yet" in body


def signed_in_cookie(user) -> dict:
    """The session cookie of `user`, made by the test client's login and valid on the live server."""
    browser = Client()
    browser.force_login(user)
    return {"name": "sessionid", "value": browser.cookies["sessionid"].value}


def read_in_a_browser(url: str, cookie: dict, links: list[str]) -> tuple[list[dict], list[str]]:
    """Open the page at each link (a hash change after the first) in chromium; what it shows, and the API paths
    it fetched. Nothing touches the database in here: Playwright's loop runs on this thread."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "this test drives the page in chromium: apt-get install chromium"
    shown, fetched = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        context = browser.new_context()
        context.add_cookies([{**cookie, "url": url}])
        page = context.new_page()
        page.on("request", lambda request: fetched.append(urlsplit(request.url).path)
                if "/api/" in request.url else None)
        for index, link in enumerate(links):
            with page.expect_response(lambda response: "/api/" in response.url):
                if index == 0:
                    page.goto(f"{url}{PAGE}{link}")
                else:
                    page.evaluate("hash => { window.location.hash = hash; }", link)
            page.wait_for_function(SETTLED)
            shown.append({"status": page.text_content("#map-status"), "project": page.text_content("#map-project"),
                          "role": page.text_content("#map-role"),
                          "frames": page.locator("#map-frames li").all_text_contents(),
                          "details": page.is_visible("#map-details")})
        browser.close()
    return shown, fetched


def test_the_page_reads_map_links_through_the_maps_api(live_asgi):
    alice = make_user()
    mine = make_project(alice, name="Alice creek")
    hidden = make_project(make_user(), name="Bob's secret")
    cookie = signed_in_cookie(alice)

    shown, fetched = read_in_a_browser(live_asgi.url, cookie, [f"#/map/{mine.base_map_id}?panel=inputs&run=7",
                                                               f"#/map/{hidden.base_map_id}"])

    opened, refused = shown
    assert opened["details"] and opened["project"] == "Alice creek" and opened["role"] == "owner"
    assert opened["frames"] == ["Panel: inputs", "Run: 7"]
    assert not refused["details"] and refused["status"] == "This map does not exist or you cannot see it."
    assert fetched == [f"/api/v2/anuga/maps/{mine.base_map_id}/", f"/api/v2/anuga/maps/{hidden.base_map_id}/"]


def test_the_page_script_writes_text_never_markup(client):
    client.force_login(make_user())

    body = client.get(PAGE).content.decode()

    assert "innerHTML" not in body and "later release" in body


def test_project_names_are_escaped(client):
    alice = make_user()
    make_project(alice, name="<img src=x onerror=alert(1)>")
    client.force_login(alice)

    body = client.get(PAGE).content.decode()

    assert "<img src=x" not in body
    assert "&lt;img src=x onerror=alert(1)&gt;" in body


def test_the_maps_api_answers_the_pages_session_fetch(client):
    alice = make_user()
    project = make_project(alice, name="Creek")
    client.force_login(alice)

    found = client.get(f"/api/v2/anuga/maps/{project.base_map_id}/")
    hidden = client.get(f"/api/v2/anuga/maps/{make_project(make_user()).base_map_id}/")

    assert found.status_code == 200
    assert found.json()["project"]["name"] == "Creek" and found.json()["project"]["role"] == "owner"
    assert hidden.status_code == 404


def test_the_shared_navigation_links_both_pages_and_logs_out_by_post(client):
    client.force_login(make_user())

    body = client.get(PAGE).content.decode()

    assert 'href="/catalogue/"' in body and 'href="/agents/"' in body
    assert 'action="/admin/logout/"' in body and 'method="post"' in body
