"""The site's own sign-in: any active account signs in at /accounts/login/ with the site's template; /admin/ stays
for staff."""

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from tests.factories import make_user

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def submit_sign_in(client: Client, username: str, password: str, *, next_url: str = "") -> object:
    """Fill in the page's own form: fetch it, take its CSRF token, post it back (CSRF checks enforced)."""
    page = client.get(LOGIN + (f"?next={next_url}" if next_url else ""))
    token = CSRF_FIELD.search(page.content.decode()).group(1)
    return client.post(
        LOGIN, {"csrfmiddlewaretoken": token, "username": username, "password": password, "next": next_url}
    )


def demo_password() -> str:
    out = StringIO()
    call_command("setup_demo", stdout=out)
    return re.search(r"password:\s+(\S+)", out.getvalue()).group(1)


def test_pages_that_need_an_account_send_visitors_to_the_sites_sign_in_page(client):
    for page in ("/catalogue/", "/agents/"):
        response = client.get(page)

        assert response.status_code == 302
        assert response["Location"] == f"{LOGIN}?next={page}"


def test_the_sign_in_page_is_the_sites_own_not_the_admins(client):
    body = client.get(LOGIN).content.decode()

    assert "<h1>Sign in</h1>" in body and 'name="username"' in body and 'name="password"' in body
    assert 'href="/catalogue/"' in body  # the site's navigation, not the admin's
    assert "Django administration" not in body


def test_the_demo_account_printed_by_setup_demo_signs_in_with_the_form_and_reaches_both_pages():
    password = demo_password()
    client = Client(enforce_csrf_checks=True)

    signed_in = submit_sign_in(client, "demo", password)

    assert signed_in.status_code == 302 and signed_in["Location"] == "/catalogue/"
    for page in ("/agents/", "/catalogue/"):
        response = client.get(page)
        assert response.status_code == 200, page
        assert "demo" in response.content.decode()


def test_signing_in_returns_to_the_page_asked_for_with_its_map_fragment():
    make_user("erin", password="a-long-test-password")
    client = Client(enforce_csrf_checks=True)

    response = submit_sign_in(client, "erin", "a-long-test-password", next_url="/catalogue/#/map/3?panel=run&run=9")

    assert response.status_code == 302 and response["Location"] == "/catalogue/#/map/3?panel=run&run=9"


def test_a_wrong_password_is_refused_on_the_page_with_a_reason():
    make_user("erin", password="a-long-test-password")
    client = Client(enforce_csrf_checks=True)

    response = submit_sign_in(client, "erin", "not-the-password")

    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()
    assert client.get("/catalogue/").status_code == 302


def test_a_sign_in_page_never_sends_people_to_another_site():
    make_user("erin", password="a-long-test-password")
    client = Client(enforce_csrf_checks=True)

    response = submit_sign_in(client, "erin", "a-long-test-password", next_url="https://evil.example/")

    assert response.status_code == 302 and response["Location"] == "/catalogue/"


def test_the_admin_stays_for_staff_only(client):
    make_user("erin", password="a-long-test-password")

    client.login(username="erin", password="a-long-test-password")

    assert client.get("/admin/").status_code == 302
    assert client.get("/catalogue/").status_code == 200


def test_logging_out_is_a_post_that_ends_the_session(client):
    client.force_login(make_user())

    response = client.post("/accounts/logout/")

    assert response.status_code == 302 and response["Location"] == LOGIN
    assert client.get("/catalogue/").status_code == 302


def test_a_signed_in_person_changes_their_password_on_the_site(client):
    user = make_user("erin", password="a-long-test-password")
    client.force_login(user)

    page = client.get("/accounts/password/")
    response = client.post(
        "/accounts/password/",
        {
            "old_password": "a-long-test-password",
            "new_password1": "another-long-password-9",
            "new_password2": "another-long-password-9",
        },
    )

    assert page.status_code == 200 and "Change your password" in page.content.decode()
    assert response.status_code == 302 and response["Location"] == "/accounts/password/done/"
    user.refresh_from_db()
    assert user.check_password("another-long-password-9")
    assert client.get("/catalogue/").status_code == 200  # still signed in
