"""A database that does not answer in time gives 503 with Retry-After and DATABASE_UNAVAILABLE, never a 500, on
the REST API and on the site's pages, and nothing is stored."""

from django.test import Client

from hydrata.anuga.models import Project
from tests.factories import make_grant, make_user
from tests.locked_database import write_lock_held_elsewhere

PROJECTS = "/api/v2/anuga/projects/"


def test_a_rest_write_while_the_database_is_locked_answers_503_database_unavailable_with_retry_after(
    transactional_db, caplog
):
    user = make_user()
    _, key = make_grant(user)
    client = Client(raise_request_exception=False, headers={"Authorization": f"Bearer {key}"})

    with write_lock_held_elsewhere(), caplog.at_level("WARNING", logger="hydrata.core.unavailable"):
        answer = client.post(
            PROJECTS, {"name": "Locked out", "projection": "EPSG:28356"}, content_type="application/json"
        )

    assert answer.status_code == 503, answer.content
    assert answer["Retry-After"] == "5" and answer["Content-Type"] == "application/json"
    body = answer.json()
    assert body["code"] == "DATABASE_UNAVAILABLE" and body["retry_after_seconds"] == 5
    assert "busy" in body["detail"]
    assert not Project.objects.filter(owner=user).exists()
    # Logged by the error's names alone, not the driver's text; the activity record's own failure keeps the 503.
    logged = [record.getMessage() for record in caplog.records if record.name == "hydrata.core.unavailable"]
    assert logged == [
        "The database did not answer in ProjectListCreateView: OperationalError from OperationalError",
        "The database did not answer in the activity record: OperationalError from OperationalError",
    ]


def test_the_same_write_succeeds_once_the_lock_is_released(transactional_db):
    user = make_user()
    _, key = make_grant(user)
    client = Client(headers={"Authorization": f"Bearer {key}"})
    with write_lock_held_elsewhere():
        client.post(PROJECTS, {"name": "Later", "projection": "EPSG:28356"}, content_type="application/json")

    answer = client.post(PROJECTS, {"name": "Later", "projection": "EPSG:28356"}, content_type="application/json")

    assert answer.status_code == 201
    assert list(Project.objects.filter(owner=user).values_list("name", flat=True)) == ["Later"]


def test_a_site_page_that_writes_while_the_database_is_locked_answers_503_in_plain_text_with_retry_after(
    transactional_db,
):
    make_user("engineer", password="a-long-test-password")
    client = Client(raise_request_exception=False)

    with write_lock_held_elsewhere():
        answer = client.post("/accounts/login/", {"username": "engineer", "password": "a-long-test-password"})

    assert answer.status_code == 503
    assert answer["Retry-After"] == "5" and answer["Content-Type"] == "text/plain; charset=utf-8"
    assert answer.content.decode() == "Hydrata is busy: its database did not answer. Try again in 5 seconds."
