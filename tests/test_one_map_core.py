"""One map core: the site's map and the MCP App's view load the same modules of map_core/ (the contract's words, the
DOM helpers, the colour table, the legend, the one reviewed Leaflet helper), the site as ES modules from its page and
the App from the bundle build.py joins from the very same files, so the two cannot drift apart again."""

import re
from pathlib import Path

from django.contrib.staticfiles import finders

from hydrata_mcp.ui.view.build import SOURCE, built, file_of, joined_module, module_order

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "map_core"
SITE_SCRIPTS = ROOT / "hydrata" / "map" / "static"
TEMPLATE = ROOT / "hydrata" / "map" / "templates" / "map" / "catalogue.html"
MODULE_SCRIPT = re.compile(r"""<script type="module" src="\{% static '([^']+)' %\}"></script>""")


def served_file(module: str) -> Path:
    found = finders.find(module)
    if not isinstance(found, str):
        raise ValueError(f"The site serves no {module}")
    return Path(found)


def site_modules() -> list[str]:
    """The modules the map page loads, by their paths under /static/: its one module script and every module that
    imports, each after what it imports, found where the site serves them from."""
    entries = MODULE_SCRIPT.findall(TEMPLATE.read_text(encoding="utf-8"))
    assert len(entries) == 1, entries
    return module_order(entries[0], file_of=served_file)


def core_of(modules: list[str]) -> list[str]:
    return sorted(module for module in modules if module.startswith("map_core/"))


def test_the_site_and_the_app_load_every_module_of_the_map_core_and_no_other_copy_of_it():
    every = sorted(f"map_core/{path.name}" for path in CORE.glob("*.js"))

    assert core_of(site_modules()) == every
    assert core_of(module_order()) == every


def test_the_site_serves_the_map_core_from_the_files_the_app_bundle_is_built_from():
    bundle = built()

    for module in core_of(module_order()):
        assert served_file(module).resolve() == file_of(module).resolve()
        assert joined_module(module) in bundle


def test_every_script_of_each_map_is_a_module_its_page_or_bundle_loads():
    site_scripts = sorted(str(path.relative_to(SITE_SCRIPTS)) for path in SITE_SCRIPTS.rglob("*.js"))
    app_scripts = sorted(f"view/{path.relative_to(SOURCE)}" for path in SOURCE.rglob("*.js"))

    assert sorted(module for module in site_modules() if not module.startswith("map_core/")) == site_scripts
    assert sorted(module for module in module_order() if not module.startswith("map_core/")) == app_scripts
