"""hydrata/compute is one room per trade (issue 51): each subpackage's docstring says which of compute's trades it
may import (`May import: errors, inputs.`), and its modules, function-local imports included, import no other."""

import ast
import re
from pathlib import Path

import hydrata
from scripts.import_graph import imported_names, module_edges, package_modules, strongly_connected

PLATFORM = Path(hydrata.__file__).parent
COMPUTE = PLATFORM / "compute"
MODULES = {module: path for module, path in package_modules(PLATFORM).items() if module.startswith("hydrata.compute.")}
MAY_IMPORT = re.compile(r"may import:(?P<names>[^:]*)$", re.IGNORECASE | re.DOTALL)


def trades() -> dict[str, set[str]]:
    """Each trade (a subpackage of compute) and the trades its docstring says it may import."""
    found = {}
    for init in sorted(COMPUTE.glob("*/__init__.py")):
        docstring = ast.get_docstring(ast.parse(init.read_text())) or ""
        rule = MAY_IMPORT.search(docstring)
        assert rule, f"{init} does not say what it may import"
        found[init.parent.name] = {name.strip(" .") for name in rule["names"].replace("\n", " ").split(",")}
    return found


def trade_of(module: str) -> str | None:
    """`hydrata.compute.inputs.numbers.finite_number` -> `inputs`; a module at the root (errors) is its own trade."""
    parts = module.split(".")
    return parts[2] if module.startswith("hydrata.compute.") and len(parts) > 2 else None


def test_every_trade_says_what_it_may_import_and_names_only_trades_there_are():
    rules = trades()
    rooms = set(rules) | {path.stem for path in COMPUTE.glob("*.py") if path.stem != "__init__"}

    assert {trade: names - rooms for trade, names in rules.items() if names - rooms} == {}


def test_each_trade_imports_only_the_trades_its_docstring_names():
    rules = trades()
    assert any(trade_of(module) in rules for module in MODULES)  # the modules are read: arr's, for one
    offenders = {}
    for module, path in MODULES.items():
        trade = trade_of(module)
        if trade not in rules:
            continue
        # Of compute's root only errors is a room of its own; another module there waits for its room (the script
        # of issue 51 moves them) and is not held here.
        imported = {trade_of(name) for name, _ in imported_names(path, importer=module)} & (set(rules) | {"errors"})
        imported -= {trade}
        if imported - rules[trade]:
            offenders[module] = sorted(imported - rules[trade])

    assert offenders == {}


def test_the_trades_import_one_another_without_a_cycle():
    rules = trades()
    pairs = {(trade_of(edge.source) or "", trade_of(edge.target) or "") for edge in module_edges(PLATFORM)}
    edges = {(source, target) for source, target in pairs if source in rules and target in rules and source != target}

    assert strongly_connected(set(rules), edges) == []
