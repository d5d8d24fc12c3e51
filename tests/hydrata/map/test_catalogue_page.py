"""The /catalogue/ page: lists the projects a person can see and reads map links from the URL fragment."""

import re

import pytest

from tests.factories import make_project, make_user

pytestmark = pytest.mark.django_db

PAGE = "/catalogue/"


def test_anonymous_visitors_are_sent_to_sign_in(client):
    response = client.get(PAGE)

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/catalogue/")


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


def test_the_map_page_loads_its_vendored_library_and_scripts_from_this_site_only(client):
    client.force_login(make_user())

    body = client.get(PAGE).content.decode()

    assert '<script src="/static/vendor/leaflet/1.9.4/leaflet.js">' in body
    assert '<script type="module" src="/static/map/main.js">' in body
    assert not re.search(r'(src|href)="(https?:)?//', body), re.search(r'(src|href)="(https?:)?//', body)


def test_without_a_background_map_setting_the_page_names_none(client, settings):
    settings.HYDRATA_BASEMAP_URL = ""
    client.force_login(make_user())

    body = client.get(PAGE).content.decode()

    assert '<script id="map-config" type="application/json">{"basemap": "", "attribution": ""}</script>' in body


def test_a_background_map_setting_reaches_the_page(client, settings):
    settings.HYDRATA_BASEMAP_URL = "https://tiles.example/{z}/{x}/{y}.png"
    client.force_login(make_user())

    body = client.get(PAGE).content.decode()

    assert '"basemap": "https://tiles.example/{z}/{x}/{y}.png"' in body


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
    assert 'action="/accounts/logout/"' in body and 'method="post"' in body
