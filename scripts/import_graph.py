"""The import graph of the platform: which package imports which, and every cycle, from the source alone.

Imports are read with `ast`, so nothing is executed; imports inside functions count as much as those at the top
(a function-local import hides a cycle, it does not remove it). Run from the repository root:

    python -m scripts.import_graph            # the graph of ./hydrata
    python -m scripts.import_graph --root DIR # the graph of DIR/hydrata (e.g. an older checkout)
"""

import argparse
import ast
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    local: bool  # the import is inside a function


def module_name(path: Path, *, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules(package_dir: Path) -> dict[str, Path]:
    """Every module of the package (and its subpackages) by dotted name."""
    root = package_dir.parent
    return {module_name(path, root=root): path for path in sorted(package_dir.rglob("*.py"))}


def _imports_with_scope(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, local = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, local
        inner = local or isinstance(node, FUNCTION_NODES)
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def _absolute(node: ast.ImportFrom, *, importer: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imported_names(path: Path, *, importer: str) -> Iterator[tuple[str, bool]]:
    """Each dotted name the module imports (`from a import b` gives `a.b`: a submodule, or a name in `a`), with
    whether the import is local."""
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    for node, local in _imports_with_scope(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, local
        else:
            module = _absolute(node, importer=importer, is_package=is_package)
            for alias in node.names:
                yield f"{module}.{alias.name}", local


def _known_prefix(name: str, known: Iterable[str]) -> str | None:
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return None


def module_edges(package_dir: Path) -> set[Edge]:
    """Module-to-module imports inside the package; a module imported both ways counts as top-level."""
    modules = package_modules(package_dir)
    found: dict[tuple[str, str], bool] = {}
    for importer, path in modules.items():
        targets: dict[str, bool] = {}
        for name, local in imported_names(path, importer=importer):
            target = _known_prefix(name, modules)
            if target is None or target == importer or importer.startswith(f"{target}."):
                continue  # outside the package, or the importer's own package (__init__) on the way in
            targets[target] = targets.get(target, True) and local
        for target, local in targets.items():
            key = (importer, target)
            found[key] = found.get(key, True) and local
    return {Edge(source, target, local) for (source, target), local in found.items()}


def package_of(module: str, *, depth: int = 2) -> str:
    return ".".join(module.split(".")[:depth])


def strongly_connected(nodes: Iterable[str], edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """Tarjan's components of more than one node: each is a set of nodes that reach one another."""
    graph: dict[str, set[str]] = {node: set() for node in nodes}
    for source, target in edges:
        graph.setdefault(source, set()).add(target)
        graph.setdefault(target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(components)


def _only_through_task_queueing(cycle: list[str], edges: list[Edge]) -> bool:
    """The cycle is closed only by services importing their tasks inside the function that queues them."""
    queueing = {edge for edge in edges if edge.local and edge.target.endswith(".tasks")}
    rest = {(edge.source, edge.target) for edge in edges if edge not in queueing}
    return bool(queueing) and not strongly_connected(cycle, rest)


def report(package_dir: Path) -> str:
    edges = module_edges(package_dir)
    modules = package_modules(package_dir)
    lines = [
        f"# Import graph of {package_dir.name}/ ({len(modules)} modules, {len(edges)} module imports; "
        "'local' = inside a function)",
        "",
        "## Imports between packages (module imports: all / local)",
    ]
    between = Counter(
        (package_of(e.source), package_of(e.target)) for e in edges if package_of(e.source) != package_of(e.target)
    )
    local = Counter(
        (package_of(e.source), package_of(e.target))
        for e in edges
        if package_of(e.source) != package_of(e.target) and e.local
    )
    for (source, target), count in sorted(between.items()):
        lines.append(f"{source} -> {target}: {count} / {local[(source, target)]}")
    lines += ["", "## Package cycles"]
    package_cycles = strongly_connected({package_of(m) for m in modules}, between)
    lines += [" <-> ".join(cycle) for cycle in package_cycles] or ["none"]
    lines += [
        "",
        "## Module cycles (function-local imports included; [Celery kind]: closed only by a service "
        "importing its task inside the function that queues it)",
    ]
    module_cycles = strongly_connected(modules, {(e.source, e.target) for e in edges})
    for cycle in module_cycles:
        inside = sorted(
            (e for e in edges if e.source in cycle and e.target in cycle), key=lambda e: (e.source, e.target)
        )
        lines.append(", ".join(cycle) + (" [Celery kind]" if _only_through_task_queueing(cycle, inside) else ""))
        lines += [f"    {edge.source} -> {edge.target}{' (local)' if edge.local else ''}" for edge in inside]
    if not module_cycles:
        lines.append("none")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository root (default: here)")
    parser.add_argument("--package", default="hydrata")
    options = parser.parse_args(argv)
    sys.stdout.write(report(options.root / options.package))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
