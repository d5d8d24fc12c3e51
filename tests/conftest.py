import contextlib
import fcntl
import gc
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from config.celery import app as celery_app
from tests.model_setup import LONGEST_WAIT_SECONDS
from tests.processes import celery_worker_command

ROOT = Path(__file__).resolve().parent.parent


class LiveASGIServer:
    """The real ASGI application (config.asgi) on a real loopback socket, in a thread of the test process."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        from config.asgi import application

        config = uvicorn.Config(application, log_level="warning", lifespan="off", timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the test ASGI server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


@pytest.fixture
def live_asgi(transactional_db, settings) -> Iterator[LiveASGIServer]:
    """The whole stack over loopback: /mcp/ and the REST API the tools call, as in production."""
    server = LiveASGIServer()
    settings.HYDRATA_SITE_URL = server.url
    settings.HYDRATA_API_ORIGIN = server.url
    # What config/settings.py derives from the site URL for the connect flow: its issuer and its MCP resource.
    settings.OAUTH2_PROVIDER = {
        **settings.OAUTH2_PROVIDER,
        "OIDC_ISS_ENDPOINT": server.url,
        "OAUTH2_PROTECTED_RESOURCE_IDENTIFIER": f"{server.url}/mcp/",
    }
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # PBKDF2's deliberate slowness protects real passwords and costs ~0.5 s per test user.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture(autouse=True)
def eager_tasks(settings):
    """Unit tests run Celery tasks in-process when their transaction commits; `celery_worker` turns this off.

    A request then does its background work before it answers (a build, or a whole simulation), so the tools'
    read timeout is held to the work's length, as a worker's wait is, and not to a busy machine's 30 s."""
    celery_app.conf.task_always_eager = True
    settings.HYDRATA_API_TIMEOUT_SECONDS = LONGEST_WAIT_SECONDS
    yield
    celery_app.conf.task_always_eager = False


class CeleryWorker:
    """A real `celery worker` process on the filesystem broker, sharing the test database and media folder."""

    def __init__(
        self,
        var_dir: Path,
        media_root: Path,
        database: str,
        name: str,
        *,
        beat: bool = False,
        queues: str = "interactive,studies",
    ) -> None:
        self.var_dir = var_dir
        self.nodename = f"{name}@{socket.gethostname()}"
        self.log = var_dir / "worker.log"
        from django.conf import settings

        env = dict(
            os.environ,
            HYDRATA_VAR_DIR=str(var_dir),
            MEDIA_ROOT=str(media_root),
            DATABASE_URL=f"sqlite:///{database}",
            CELERY_BROKER_URL="filesystem://",
            HYDRATA_RUN_REAP_INTERVAL_SECONDS="1",  # for a worker with --beat: the stale-run sweep every second
            # Celery runs Django's system checks at a worker's start, importing every view (MCP, WeasyPrint,
            # rio-tiler): 2.5 of its 4.5 CPU seconds. The suite runs them itself (tests/hydrata/agents/test_checks.py).
            CELERY_SKIP_CHECKS="1",
            # The test's own heartbeat timeout, so a test that shortens it shortens the sweep's (beat's) too.
            HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS=str(settings.HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS),
        )
        with self.log.open("wb") as log:  # a file, not a pipe: a full pipe would stall the worker
            self.process = subprocess.Popen(
                celery_worker_command(
                    self.nodename, "--without-heartbeat", *(["--beat"] if beat else []), queues=queues
                ),
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a process group of its own: stop() ends the worker and its children
            )

    def stop(self) -> str:
        """Kill the worker's process group. Not a warm shutdown: Celery waits out its broker poll and more (about
        6 s a worker), and nothing after a test reads what a shutdown would do. A simulation child still computing
        goes with it (it is in the group, and dies with its parent in any case)."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        return self.log.read_text(errors="replace")[-20000:]


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory) -> None:
    """The test database lives in a temporary folder, never in a developer's var/."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        database.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("database") / "test.sqlite3")


class DatabaseTemplate:
    """Under pytest-xdist, the first worker to get here migrates its test database and leaves a copy; the others
    start from the copy (Django's keepdb then finds every migration applied) instead of migrating again."""

    def __init__(self, folder: Path, database: Path) -> None:
        self.path = folder / "test-database-template.sqlite3"
        self.database = database
        self.lock = (folder / "test-database-template.lock").open("w")
        fcntl.flock(self.lock, fcntl.LOCK_EX)  # held by the migrating worker until it has saved the copy
        self.copied = self.path.exists()
        if self.copied:
            shutil.copyfile(self.path, database)
            self.release()

    def save(self) -> None:
        if not self.copied:
            partial = self.path.with_suffix(".partial")
            with (
                contextlib.closing(sqlite3.connect(self.database)) as source,
                contextlib.closing(sqlite3.connect(partial)) as copy,
            ):
                source.backup(copy)  # consistent under WAL, which a file copy would not be
            partial.rename(self.path)
        self.release()

    def release(self) -> None:
        if not self.lock.closed:
            fcntl.flock(self.lock, fcntl.LOCK_UN)
            self.lock.close()


@pytest.fixture(scope="session")
def database_template(django_db_modify_db_settings, tmp_path_factory) -> Iterator[DatabaseTemplate | None]:
    from django.conf import settings

    database = settings.DATABASES["default"]
    if not os.environ.get("PYTEST_XDIST_WORKER") or database["ENGINE"] != "django.db.backends.sqlite3":
        yield None
        return
    # Every worker's base temporary folder sits in the run's own one.
    template = DatabaseTemplate(tmp_path_factory.getbasetemp().parent, Path(database["TEST"]["NAME"]))
    yield template
    template.release()


@pytest.fixture(scope="session")
def django_db_keepdb(request, database_template: DatabaseTemplate | None) -> bool:
    return bool(request.config.getvalue("reuse_db") or (database_template and database_template.copied))


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, database_template: DatabaseTemplate | None) -> None:
    if database_template:
        database_template.save()


# What Django's post_migrate receivers make: the content types, then the permissions. They are its only ones here.
POST_MIGRATE_RECEIVERS = 2


@pytest.fixture(scope="session", autouse=True)
def flush_restores_what_post_migrate_made() -> Iterator[None]:
    """After every transactional test (691 of them) Django empties every table, then sends post_migrate, whose two
    receivers make the same 180 content-type and permission rows again through about 40 queries: 30 ms of CPU a
    test. The session's first flush runs them and keeps what they made; a later flush puts those rows back in two
    inserts. Should another receiver appear, every flush sends the signal as Django does."""
    from django.core.management.commands import flush

    original = flush.emit_post_migrate_signal
    made: dict[str, tuple[list[dict], list[dict]]] = {}

    def emit(verbosity: int, interactive: bool, db: str, **kwargs) -> None:
        from django.contrib.auth.models import Permission
        from django.contrib.contenttypes.models import ContentType
        from django.db.models.signals import post_migrate

        types, permissions = ContentType.objects.using(db), Permission.objects.using(db)
        only_djangos = len(post_migrate.receivers) == POST_MIGRATE_RECEIVERS
        if only_djangos and db in made and not types.exists() and not permissions.exists():
            types.bulk_create([ContentType(**row) for row in made[db][0]])
            permissions.bulk_create([Permission(**row) for row in made[db][1]])
            ContentType.objects.clear_cache()  # what create_contenttypes does first: ids cached before the flush
            return
        original(verbosity, interactive, db, **kwargs)
        if only_djangos:
            made[db] = (list(types.values()), list(permissions.values()))

    flush.emit_post_migrate_signal = emit
    yield
    flush.emit_post_migrate_signal = original


@pytest.fixture(autouse=True)
def celery_queue_dir(tmp_path_factory) -> Path:
    """A broker folder of this test's own, so a task one test leaves queued is never consumed by a later test's
    worker, and no test touches a developer's var/ queue. (Not under tmp_path, which is the test's to list.)"""
    return use_celery_queue(tmp_path_factory.mktemp("celery-queue"))


def use_celery_queue(queue: Path) -> Path:
    """Publish to and consume from `queue`. The connection and producer pools keep the options they were opened
    with (even eager calls open them), so both are dropped before anything publishes."""
    celery_app.conf.broker_transport_options = {
        "data_folder_in": str(queue),
        "data_folder_out": str(queue),
        "store_processed": False,
        "control_folder": str(queue.parent / f"{queue.name}-control"),
    }
    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    return queue


@pytest.fixture
def start_worker(transactional_db, tmp_path, media_root, celery_queue_dir):
    """Start real workers on demand (a test may kill one and start another); all are stopped afterwards."""
    from django.db import connection

    celery_app.conf.task_always_eager = False
    workers: list[CeleryWorker] = []

    def start(name: str | None = None, *, beat: bool = False, queues: str = "interactive,studies") -> CeleryWorker:
        var_dir = tmp_path / f"worker-var-{len(workers)}"
        (var_dir / "celery").mkdir(parents=True)
        (var_dir / "celery" / "queue").symlink_to(celery_queue_dir)
        name = name or f"test-worker-{len(workers)}"
        workers.append(
            CeleryWorker(var_dir, media_root, connection.settings_dict["NAME"], name, beat=beat, queues=queues)
        )
        return workers[-1]

    yield start
    for worker in workers:
        print("celery worker stderr:\n" + worker.stop())  # shown by pytest when the test fails


@pytest.fixture
def celery_worker(start_worker) -> CeleryWorker:
    return start_worker()


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups off the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`make test` runs `--dist loadgroup`), the tests sharing a module- or package-scoped
    fixture (a finished simulation, the browser site) go to one worker as a block, so it is built once; every
    other test goes wherever a worker is free."""
    for item in items:
        module = item.nodeid.partition("::")[0]
        widest = _widest_shared_scope(item)
        if widest == "package":
            item.add_marker(pytest.mark.xdist_group(module.rpartition("/")[0]))
        elif widest == "module":
            item.add_marker(pytest.mark.xdist_group(module))


# After pytest-django's sort (database tests first), which would undo this one.
@pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")
def pytest_collection_modifyitems_long_first(items: list[pytest.Item]) -> None:
    """xdist hands out the groups first (the largest first), then every other test in the session's order. A long
    test left to the end runs alone while the other workers stand idle: those go first, the short ones fill gaps."""
    items.sort(key=lambda item: item.get_closest_marker("xdist_group") is None and not _long_running(item))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Python's full garbage collections walk every object alive, and a worker holds several hundred thousand that
    live to its end (the collected suite, every module of the stack): each took about 0.3 CPU s, about 9 of 137
    over the anuga and agents folders. Frozen after collection, they are never walked again; and a collection waits
    for 50,000 new objects instead of 700. Together: 4.4 CPU s of collecting in those folders instead of 11.1. No
    test depends on when a cycle is collected; reference counting still frees everything else at once."""
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


def _long_running(item: pytest.Item) -> bool:
    return "start_worker" in getattr(item, "fixturenames", ()) or item.get_closest_marker("long_running") is not None


def _widest_shared_scope(item: pytest.Item) -> str | None:
    info = getattr(item, "_fixtureinfo", None)
    scopes = {
        definition.scope
        for definitions in (info.name2fixturedefs.values() if info else ())
        for definition in definitions
    }
    return next((scope for scope in ("package", "module") if scope in scopes), None)
