"""On PostgreSQL, through the Procfile's web command: a database that drops and then refuses the web processes'
connections (a restart or a failover) answers 503 DATABASE_UNAVAILABLE with Retry-After on the REST API and on
the site's pages, never 500; nothing is stored, and the same requests succeed once it is back."""

import contextlib
import re
import time
from collections.abc import Iterator

import httpx
import psycopg
import pytest
from django.db import connection

from hydrata.anuga.models import Project
from tests.factories import make_grant, make_user
from tests.production.conftest import WebServer

pytestmark = pytest.mark.django_db(transaction=True)

# How the web processes name themselves to PostgreSQL here (libpq reads it), so that only their connections go.
WEB_APPLICATION_NAME = "hydrata-web-unavailable-test"
PASSWORD = "a-long-test-password"
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture
def web_with_a_short_pool_wait(test_database_url, tmp_path, monkeypatch) -> Iterator[WebServer]:
    monkeypatch.setenv("PGAPPNAME", WEB_APPLICATION_NAME)
    monkeypatch.setenv("DATABASE_POOL_TIMEOUT_SECONDS", "1")
    server = WebServer(tmp_path / "web", test_database_url)
    monkeypatch.delenv("PGAPPNAME")  # the web processes have it; this process's own connections do not
    try:
        server.wait_until_serving()
        yield server
    finally:
        print("web log:\n" + server.stop())


@contextlib.contextmanager
def database_refusing_the_web() -> Iterator[None]:
    """The test database takes no new connection and the web processes' open ones are ended, as in a failover."""
    settings = connection.settings_dict
    name = settings["NAME"]
    with psycopg.connect(
        host=settings["HOST"], port=settings["PORT"], user=settings["USER"], dbname="postgres", autocommit=True
    ) as admin:
        admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
        try:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
                [WEB_APPLICATION_NAME],
            )
            yield
        finally:
            admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true')


def until_answered(send, *, seconds: float = 60) -> httpx.Response:
    deadline = time.monotonic() + seconds
    while (answer := send()).status_code == 503 and time.monotonic() < deadline:
        time.sleep(0.5)  # the pool connects again with a backoff
    return answer


def test_a_database_that_refuses_the_web_commands_connections_gives_503_with_retry_after_and_then_recovers(
    web_with_a_short_pool_wait,
):
    web = web_with_a_short_pool_wait
    user = make_user("engineer", password=PASSWORD)
    _, key = make_grant(user)
    api = httpx.Client(base_url=web.url, headers={"Authorization": f"Bearer {key}"}, timeout=30)
    site = httpx.Client(base_url=web.url, timeout=30)
    assert api.get("/api/v2/agents/me/").status_code == 200
    token = CSRF_FIELD.search(site.get("/accounts/login/").text).group(1)
    sign_in = {"username": "engineer", "password": PASSWORD, "csrfmiddlewaretoken": token}
    project = {"name": "During the failover", "projection": "EPSG:28356"}

    with database_refusing_the_web():
        # Connections the database ended, then pools that cannot open one (logged: AdminShutdown, then PoolTimeout).
        answers = [api.get("/api/v2/agents/me/") for _ in range(3)] + [
            api.post("/api/v2/anuga/projects/", json=project)
        ]
        page = site.post("/accounts/login/", data=sign_in)

    for answer in answers:
        assert answer.status_code == 503, answer.text
        assert answer.headers["Retry-After"] == "5"
        assert answer.json()["code"] == "DATABASE_UNAVAILABLE"
    assert page.status_code == 503 and page.headers["Retry-After"] == "5"
    assert page.text == "Hydrata is busy: its database did not answer. Try again in 5 seconds."
    assert not Project.objects.filter(owner=user).exists()

    assert until_answered(lambda: api.get("/api/v2/agents/me/")).status_code == 200
    assert until_answered(lambda: api.post("/api/v2/anuga/projects/", json=project)).status_code == 201
    assert Project.objects.filter(owner=user).count() == 1
