"""The contract stands between the wings, so it may import neither of them, nor Django: the standard library,
pydantic and itself only."""

import sys
from pathlib import Path

import hydrata_contract
from scripts.import_graph import imported_names, package_modules

CONTRACT = Path(hydrata_contract.__file__).parent
ALLOWED_THIRD_PARTY = {"pydantic"}


def outside_imports(package_dir: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for module, path in package_modules(package_dir).items():
        for name, _ in imported_names(path, importer=module):
            top = name.split(".")[0]
            if top != package_dir.name and top not in sys.stdlib_module_names and top not in ALLOWED_THIRD_PARTY:
                found.setdefault(module, []).append(name)
    return {module: sorted(names) for module, names in found.items()}


def test_the_contract_imports_only_the_standard_library_pydantic_and_itself():
    assert outside_imports(CONTRACT) == {}


def test_the_check_would_catch_an_import_of_django_or_of_either_wing(tmp_path):
    package = tmp_path / "hydrata_contract"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "states.py").write_text("from django.db import models\nimport json\n")
    (package / "links.py").write_text("def go():\n    from hydrata.anuga.models import Run\n    import hydrata_mcp\n")

    assert outside_imports(package) == {
        "hydrata_contract.states": ["django.db.models"],
        "hydrata_contract.links": ["hydrata.anuga.models.Run", "hydrata_mcp"],
    }
