"""The compute package runs in child processes with no database and no secrets: it imports no Django."""

import ast
from pathlib import Path

import hydrata.compute

COMPUTE = Path(hydrata.compute.__file__).parent
FORBIDDEN = (
    "django",
    "rest_framework",
    "hydrata.anuga",
    "hydrata.agents",
    "hydrata.uploads",
    "hydrata.storage",
    "hydrata_mcp",
    "config",
)


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_the_compute_package_imports_nothing_of_django_or_the_platform():
    offenders = {
        path.name: sorted(name for name in imports(path) if name == "config" or name.startswith(FORBIDDEN))
        for path in COMPUTE.rglob("*.py")
    }
    assert {name: found for name, found in offenders.items() if found} == {}
