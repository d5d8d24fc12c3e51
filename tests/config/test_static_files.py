"""Static files are served by whitenoise in every process, with content-hashed names in production."""

import json
import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.test import Client, override_settings

from tests.config.test_settings import load_settings

LEAFLET = "/static/vendor/leaflet/1.9.4/leaflet.js"
PRODUCTION_STORAGE = "config.static_storage.HashedModulesStaticFilesStorage"
HASHED_IMPORT = re.compile(r'^import .* from "(\.{1,2}/[\w/]+\.[0-9a-f]{12}\.js)";$', re.MULTILINE)


@pytest.mark.django_db
def test_static_files_are_served_without_debug_and_without_collectstatic(client, settings):
    settings.DEBUG = False

    response = Client().get(LEAFLET)

    assert response.status_code == 200
    assert b"Leaflet" in b"".join(response.streaming_content)


@pytest.fixture(scope="module")
def collected(tmp_path_factory) -> Path:
    """One production collectstatic (hashing and compressing every file takes most of a minute) for the module."""
    static_root = tmp_path_factory.mktemp("static")
    with override_settings(**production_static(static_root)):
        call_command("collectstatic", interactive=False, verbosity=0)
    return static_root


def production_static(static_root: Path) -> dict:
    """The production storage over a collected folder, with nothing found beside it."""
    return {
        "STORAGES": {**django_settings.STORAGES, "staticfiles": {"BACKEND": PRODUCTION_STORAGE}},
        "STATIC_ROOT": static_root,
        "WHITENOISE_USE_FINDERS": False,
    }


def test_production_serves_static_files_under_hashed_names_cached_for_ever(collected, settings):
    for name, value in production_static(collected).items():
        setattr(settings, name, value)
    settings.DEBUG = False

    page = Client().get("/admin/login/")
    stylesheet = re.search(r'href="(/static/admin/css/base\.[0-9a-f]{12}\.css)"', page.content.decode()).group(1)
    served = Client().get(stylesheet)

    assert served.status_code == 200
    assert "immutable" in served["Cache-Control"]
    assert (settings.STATIC_ROOT / "vendor/leaflet/1.9.4/leaflet.js").is_file()


def test_production_rewrites_the_maps_module_imports_to_the_hashed_names_it_serves(collected):
    """A module cached for ever must import the very versions it was built with: main.js, hashed, imports hashed
    names, down to the map core."""
    manifest = json.loads((collected / "staticfiles.json").read_text())["paths"]

    main = (collected / manifest["map/main.js"]).read_text(encoding="utf-8")
    layers = (collected / manifest["map/layers.js"]).read_text(encoding="utf-8")

    imports = HASHED_IMPORT.findall(main)
    assert imports and len(imports) == len([line for line in main.splitlines() if line.startswith("import ")])
    assert f"./{manifest['map/api.js'].removeprefix('map/')}" in imports
    assert f"../{manifest['map_core/dom.js']}" in HASHED_IMPORT.findall(layers)


def test_production_compresses_what_pages_load_but_not_the_source_maps_only_developer_tools_read(collected):
    manifest = json.loads((collected / "staticfiles.json").read_text())["paths"]
    bundle = manifest["drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js"]
    source_maps = list(collected.rglob("*.map"))

    assert (collected / f"{bundle}.gz").is_file() and (collected / f"{bundle}.br").is_file()
    assert source_maps and not list(collected.rglob("*.map.gz")) + list(collected.rglob("*.map.br"))


def test_production_settings_choose_the_hashed_storage(tmp_path):
    script = "from django.conf import settings; print(settings.STORAGES['staticfiles']['BACKEND'])"
    result = load_settings(tmp_path, HYDRATA_ENV="production", SECRET_KEY="x" * 50, script=script)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == PRODUCTION_STORAGE
