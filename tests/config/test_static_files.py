"""Static files are served by whitenoise in every process, with content-hashed names in production; and the
Procfile's web line, which collects them and then serves, logs what it serves without signatures."""

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from django.test import Client

from tests.config.test_settings import load_settings
from tests.hydrata.core.test_logging import SIGNED
from tests.model_setup import LONGEST_WAIT_SECONDS, until
from tests.processes import ROOT, free_port, procfile_command, wait_for_port

LEAFLET = "/static/vendor/leaflet/1.9.4/leaflet.js"
PRODUCTION_STORAGE = "config.static_storage.HashedModulesStaticFilesStorage"
HASHED_IMPORT = re.compile(r'^import .* from "(\.{1,2}/[\w/]+\.[0-9a-f]{12}\.js)";$', re.MULTILINE)


@pytest.mark.django_db
def test_static_files_are_served_without_debug_and_without_collectstatic(client, settings):
    settings.DEBUG = False

    response = Client().get(LEAFLET)

    assert response.status_code == 200
    assert b"Leaflet" in b"".join(response.streaming_content)


@dataclass
class ProductionWeb:
    url: str
    static_root: Path
    log: Path

    def get(self, path: str) -> httpx.Response:
        # Each worker process loads the URLconf and every view at its first request: seconds, or a minute on a busy
        # machine.
        return httpx.get(f"{self.url}{path}", timeout=LONGEST_WAIT_SECONDS)


@pytest.fixture(scope="module")
def production_web(tmp_path_factory) -> Iterator[ProductionWeb]:
    """The Procfile's web line as a platform runs it in production: its collectstatic (hashing every file and
    compressing the hashed copies, about 16 CPU seconds), then the server. One for the module."""
    var_dir = tmp_path_factory.mktemp("production-var")
    port = free_port()
    env = dict(
        os.environ,
        PORT=str(port),
        HYDRATA_ENV="production",
        SECRET_KEY="s" * 50,
        HYDRATA_VAR_DIR=str(var_dir),
        PYTHONPATH=str(ROOT),
        HYDRATA_WEB_WORKERS="1",  # the server's processes are tests/production's; static files are the same in each
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",  # the line's `python`
    )
    with (var_dir / "web.log").open("wb") as log:
        web = subprocess.Popen(
            ["bash", "-c", procfile_command("web")],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a group of its own: the line's shell, the server and its worker processes
        )
    try:
        wait_for_port(port, web, name="the Procfile's web line", seconds=LONGEST_WAIT_SECONDS)
        site = ProductionWeb(url=f"http://127.0.0.1:{port}", static_root=var_dir / "static", log=var_dir / "web.log")
        # The port opens before the server's worker processes have loaded Django: the first answer waits for them.
        assert site.get("/static/nothing-here").status_code == 404
        yield site
    finally:
        os.killpg(web.pid, signal.SIGTERM)
        web.wait(timeout=30)


def test_production_serves_static_files_under_hashed_names_cached_for_ever(production_web):
    page = production_web.get("/admin/login/")
    stylesheet = re.search(r'href="(/static/admin/css/base\.[0-9a-f]{12}\.css)"', page.text).group(1)
    served = production_web.get(stylesheet)

    assert served.status_code == 200
    assert "immutable" in served.headers["Cache-Control"]
    assert (production_web.static_root / "vendor/leaflet/1.9.4/leaflet.js").is_file()
    assert (production_web.static_root / "drf_spectacular_sidecar/swagger-ui-dist").is_dir()
    assert not list(production_web.static_root.rglob("redoc*"))  # ReDoc: no page loads it (config/apps.py)


def test_the_production_web_command_logs_requests_without_their_signatures(production_web):
    response = production_web.get(SIGNED)

    assert response.status_code in (403, 404)
    # The access line is written by a worker process, after the answer.
    written = until(
        lambda: {"log": production_web.log.read_text(errors="replace")},
        lambda read: "/storage/download/" in read["log"],
        seconds=10,
    )["log"]
    assert "/storage/download/terrain/1/dem.tif" in written, written  # the request was logged...
    assert "LWk87" not in written  # ...without its signature


def test_production_rewrites_the_maps_module_imports_to_the_hashed_names_it_serves(production_web):
    """A module cached for ever must import the very versions it was built with: main.js, hashed, imports hashed
    names, down to the map core."""
    collected = production_web.static_root
    manifest = json.loads((collected / "staticfiles.json").read_text())["paths"]

    main = (collected / manifest["map/main.js"]).read_text(encoding="utf-8")
    layers = (collected / manifest["map/layers.js"]).read_text(encoding="utf-8")

    imports = HASHED_IMPORT.findall(main)
    assert imports and len(imports) == len([line for line in main.splitlines() if line.startswith("import ")])
    assert f"./{manifest['map/api.js'].removeprefix('map/')}" in imports
    assert f"../{manifest['map_core/dom.js']}" in HASHED_IMPORT.findall(layers)


def test_production_compresses_what_pages_load_but_not_the_source_maps_only_developer_tools_read(production_web):
    collected = production_web.static_root
    manifest = json.loads((collected / "staticfiles.json").read_text())["paths"]
    original = "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js"
    bundle = manifest[original]
    source_maps = list(collected.rglob("*.map"))

    assert (collected / f"{bundle}.gz").is_file() and (collected / f"{bundle}.br").is_file()
    assert source_maps and not list(collected.rglob("*.map.gz")) + list(collected.rglob("*.map.br"))
    # A page asks for the hashed name only: the unhashed copy is kept, and served as it is.
    assert (collected / original).is_file()
    assert not (collected / f"{original}.gz").exists() and not (collected / f"{original}.br").exists()
    compressed = {path.with_suffix("").relative_to(collected).as_posix() for path in collected.rglob("*.br")}
    assert compressed <= set(manifest.values())


def test_production_settings_choose_the_hashed_storage(tmp_path):
    script = "from django.conf import settings; print(settings.STORAGES['staticfiles']['BACKEND'])"
    result = load_settings(tmp_path, HYDRATA_ENV="production", SECRET_KEY="x" * 50, script=script)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == PRODUCTION_STORAGE
