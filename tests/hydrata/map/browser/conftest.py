"""One real small_test workflow for all the browser tests: a live server, a Celery worker, a non-staff engineer
with a password and a launch key, and the ui_url of every tool result from terrain to a complete run.

The workflow (one ANUGA run) is made once for this folder, not per test; the database is emptied afterwards, as a
transactional test would leave it."""

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from django.core.management import call_command
from django.test import override_settings
from playwright.sync_api import sync_playwright

from config.celery import app as celery_app
from tests.browser import Visit, launch, off_the_browser_thread, visit
from tests.conftest import CeleryWorker, LiveASGIServer, use_celery_queue
from tests.data import BOUNDARY, DEM, RAINFALL
from tests.factories import make_grant, make_user
from tests.mcp_client import mcp_client
from tests.model_setup import SHARED_TLS

PASSWORD = "a-long-test-password"
HYETOGRAPH = [
    {"timestamp": f"2024-01-01T00:{minute:02d}:00Z", "value": value}
    for minute, value in ((0, 0.0), (10, 20.0), (20, 50.0), (30, 35.0), (40, 10.0), (50, 0.0))
]


@dataclass
class Site:
    url: str
    username: str
    key: str
    project_id: int
    base_map: int
    scenario_id: int
    run_id: int
    terrain_id: int
    rows: dict[str, int]
    ui_urls: dict[str, str] = field(default_factory=dict)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django makes the test database only for tests marked to use one; these tests share one workflow
    instead (a per-test transaction or flush would lose it), so when they run alone they make it themselves."""
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    if connection.settings_dict["NAME"] == connection.settings_dict["TEST"]["NAME"]:
        yield
        return
    with django_db_blocker.unblock():
        databases = setup_databases(verbosity=0, interactive=False, aliases={"default"})
    yield
    with django_db_blocker.unblock():
        teardown_databases(databases, verbosity=0)


@pytest.fixture(scope="package")
def site_media(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("browser-media")


@pytest.fixture
def media_root(settings, site_media):
    """Every test of this folder reads the one workflow's files."""
    settings.MEDIA_ROOT = site_media
    return site_media


@pytest.fixture(autouse=True)
def eager_tasks():
    """Background work runs on the folder's real worker, never inside a request."""
    celery_app.conf.task_always_eager = False


@pytest.fixture(scope="package")
def browser_queue_dir(tmp_path_factory) -> Path:
    """One broker folder for the whole package: its tests share the one site and its worker."""
    return tmp_path_factory.mktemp("browser-celery-queue")


@pytest.fixture(autouse=True)
def celery_queue_dir(browser_queue_dir) -> Path:
    """Every test of this package publishes where the site's worker listens (the suite's own gives each test a
    folder of its own)."""
    return use_celery_queue(browser_queue_dir)


@pytest.fixture(scope="package")
def live_site(django_db_setup, django_db_blocker, site_media, browser_queue_dir, tmp_path_factory) -> Iterator[str]:
    """The live server and its Celery worker, shared by the folder; the address of the site."""
    from django.db import connection

    with (
        django_db_blocker.unblock(),
        override_settings(MEDIA_ROOT=site_media, PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]),
    ):
        server = LiveASGIServer()
        worker = None
        with override_settings(HYDRATA_SITE_URL=server.url, HYDRATA_API_ORIGIN=server.url):
            server.start()
            try:
                celery_app.conf.task_always_eager = False
                var_dir = tmp_path_factory.mktemp("browser-worker")
                (var_dir / "celery").mkdir()
                (var_dir / "celery" / "queue").symlink_to(use_celery_queue(browser_queue_dir))
                worker = CeleryWorker(var_dir, site_media, connection.settings_dict["NAME"], "browser-worker")
                yield server.url
            finally:
                if worker is not None:
                    print("browser worker log:\n" + worker.stop())  # shown by pytest on failure
                server.stop()
                call_command("flush", interactive=False, verbosity=0)


@pytest.fixture(scope="package")
def site(live_site) -> Site:
    """The engineer's small_test workflow with its real run. Made beside the browser's event loop, so the browser
    may start before or after it."""

    def workflow() -> Site:
        user = make_user("engineer", password=PASSWORD)
        _, key = make_grant(user, level="launch", name="browser tests")
        return asyncio.run(_workflow(live_site, key, user.get_username()))

    return off_the_browser_thread(workflow)


async def _workflow(url: str, key: str, username: str) -> Site:
    """The small_test model made the way an agent makes it: tools, and REST only to move the bytes."""
    links: dict[str, str] = {}
    async with mcp_client(url, key) as client:

        async def tool(tool_name: str, **arguments):
            result = await client.call_tool(tool_name, arguments)
            assert not result.is_error, (tool_name, result.content[0].text)
            if "ui_url" in (result.structured_content or {}):
                links[tool_name] = result.structured_content["ui_url"]
            return result.structured_content

        project = await tool("create_project", name="Small test creek", projection="EPSG:28356")
        bearer = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=url, headers=bearer, timeout=120, verify=SHARED_TLS) as http:
            staged = await tool("presign_terrain_upload", project_id=project["id"], filename="dem.tif")
            put = http.put(
                staged["upload_url"], content=DEM.read_bytes(), headers={"Content-Type": staged["content_type"]}
            )
            assert put.status_code in (200, 201, 204), put.text
            await tool(
                "finalize_terrain_upload",
                project_id=project["id"],
                staging_key=staged["staging_key"],
                process_id=staged["process_id"],
            )
            terrain = await tool("get_terrain", project_id=project["id"], poll_interval_seconds=2)
            rows = {}
            for kind, path in (("boundary", BOUNDARY), ("rainfall", RAINFALL)):
                upload = http.post(
                    "/api/v2/uploads/upload/",
                    files={"base_file": (path.name, path.read_bytes(), "application/geo+json")},
                )
                attached = await tool(
                    "attach_input_layer",
                    project_id=project["id"],
                    kind=kind,
                    execution_id=upload.json()["execution_id"],
                    poll_interval_seconds=2,
                )
                rows[kind] = attached["row_id"]
                links[f"attach_{kind}"] = attached["ui_url"]
        await tool(
            "create_time_series",
            project_id=project["id"],
            name="Design storm",
            series_type="hyetograph",
            units="mm/hr",
            data={"rowData": HYETOGRAPH},
        )
        scenario = await tool(
            "create_scenario", project_id=project["id"], name="Small test 10 m", resolution=10, duration=900
        )
        await tool("build_scenario", project_id=project["id"], scenario_id=scenario["id"], poll_interval_seconds=2)
        run = await tool("start_simulation", scenario_id=scenario["id"])
        for _ in range(600):
            status = await tool("get_run_status", run_id=run["id"])
            if status["status"] in ("complete", "error", "cancelled"):
                break
            await asyncio.sleep(0.5)
        assert status["status"] == "complete", status
    return Site(
        url=url,
        username=username,
        key=key,
        project_id=project["id"],
        base_map=project["base_map"],
        scenario_id=scenario["id"],
        run_id=run["id"],
        terrain_id=terrain["terrain"]["id"],
        rows=rows,
        ui_urls=links,
    )


@pytest.fixture(scope="package")
def browser(live_site):
    """Playwright runs an event loop on this thread, where Django's ORM and asyncio.run then refuse to work: work
    of theirs runs beside it (tests.browser.off_the_browser_thread)."""
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def tab(browser, site) -> Iterator[Visit]:
    """A tab of its own for each test, which fails it if any page it opened broke the site's CSP."""
    opened = visit(browser, site.url)
    yield opened
    opened.close()
    assert opened.csp_violations == [], opened.csp_violations
