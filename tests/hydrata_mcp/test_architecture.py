"""The hard line: the MCP wing knows the platform only through HTTP."""

import ast
from pathlib import Path

import hydrata_mcp

MCP_ROOT = Path(hydrata_mcp.__file__).parent


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in {
            "import_module",
            "__import__",
            "import_string",
        }:
            modules.update(
                arg.value for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            )
    return modules


def test_hydrata_mcp_never_imports_the_platform():
    offenders = {
        str(path.relative_to(MCP_ROOT)): sorted(m for m in imported_modules(path) if m.split(".")[0] == "hydrata")
        for path in MCP_ROOT.rglob("*.py")
    }
    assert {path: mods for path, mods in offenders.items() if mods} == {}


def test_only_the_client_makes_http_calls():
    callers = sorted(
        str(path.relative_to(MCP_ROOT))
        for path in MCP_ROOT.rglob("*.py")
        if any(m.split(".")[0] in {"urllib3", "requests", "httpx"} for m in imported_modules(path))
    )
    assert callers == ["client.py"]


def test_the_boundary_check_would_catch_an_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from hydrata.agents.models import AgentGrant\nimport importlib\nimportlib.import_module('hydrata.core')\n"
    )

    assert {"hydrata.agents.models", "hydrata.core"} <= imported_modules(sample)
