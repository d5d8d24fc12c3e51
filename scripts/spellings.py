"""Where the contract's words are spelt outside the contract: every string literal in the Python and JavaScript
source that equals a run status, run phase, terrain status, result layer, hazard class, boundary type or error
code. Each must be
spelt once, in `hydrata_contract`; anywhere else the code names the enum member (Python) or reads the constant the
page or bundle was given (JavaScript). Run from the repository root:

    python -m scripts.spellings     # one line per second spelling; exit 1 if there is any
"""

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hydrata_contract.errors import ErrorCode
from hydrata_contract.hazard import HazardClass
from hydrata_contract.inputs import BoundaryType
from hydrata_contract.layers import ResultLayer
from hydrata_contract.states import RunPhase, RunStatus, TerrainStatus

ROOT = Path(__file__).resolve().parent.parent
PYTHON_SOURCES = ("hydrata", "hydrata_mcp", "config")
JAVASCRIPT_SOURCES = ("hydrata", "map_core", "hydrata_mcp/ui/view/src")
SKIPPED_DIRECTORIES = {"migrations", "vendor", "dist", "__pycache__"}
WORDS = {
    member.value: f"{enum.__name__}.{member.name}"
    for enum in (BoundaryType, ErrorCode, HazardClass, ResultLayer, RunPhase, RunStatus, TerrainStatus)
    for member in enum
}
# Words English uses for other things too (a JSON field "error", a page state "ready", an upload "created"): these
# count only where they stand for a state, compared with one or given as one.
COMMON_WORDS = {"error", "ready", "created", "complete", "built", "building", "creating", "styling", "ERROR"}
STATE_NAMES = re.compile(r"(^|_)(status|phase|STATUS|PHASE|STATES|TERMINAL|IN_FLIGHT|FAILED)$")
JS_STRING = re.compile(r"""(?<![\w$])(["'])([A-Za-z0-9_-]{2,40})\1""")
JS_STATE_USE = re.compile(r"""(?:[!=]==?\s*(["'])(?P<after>[\w-]+)\1)|(?:(["'])(?P<before>[\w-]+)\3\s*[!=]==?)""")
JS_STATE_LIST = re.compile(r"\b(status|TERMINAL)\b.*\[")


@dataclass(frozen=True)
class Spelling:
    path: str
    line: int
    literal: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.literal!r} is {WORDS[self.literal]}"


def _sources(directories: tuple[str, ...], suffix: str) -> Iterator[Path]:
    for directory in directories:
        for path in sorted((ROOT / directory).rglob(f"*{suffix}")):
            if not SKIPPED_DIRECTORIES & set(path.relative_to(ROOT).parts):
                yield path


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _named_state(node: ast.AST) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return bool(STATE_NAMES.search(name))


def _state_uses(tree: ast.AST) -> set[int]:
    """The constants that stand for a state: compared with something, given to a status or phase, or listed in a
    `Literal[...]`."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found += operand.elts if isinstance(operand, ast.Tuple | ast.List | ast.Set) else [operand]
        elif isinstance(node, ast.keyword) and node.arg and STATE_NAMES.search(node.arg):
            found.append(node.value)
        elif isinstance(node, ast.Dict):
            found += [
                v
                for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and STATE_NAMES.search(k.value)
            ]
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            found += node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        elif isinstance(node, ast.IfExp) and (_named_state(node.body) or _named_state(node.orelse)):
            found += [node.body, node.orelse]
        elif isinstance(node, ast.Assign) and any(_named_state(target) for target in node.targets):
            found.append(node.value)
            found += node.value.elts if isinstance(node.value, ast.Tuple | ast.List | ast.Set) else []
    return {id(node) for node in found}


def python_spellings(path: Path) -> Iterator[Spelling]:
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings, state_uses = _docstrings(tree), _state_uses(tree)
    constants = sorted(
        (node for node in ast.walk(tree) if isinstance(node, ast.Constant)), key=lambda n: (n.lineno, n.col_offset)
    )
    for node in constants:
        literal = node.value if id(node) not in docstrings else None
        if isinstance(literal, str) and literal in WORDS and (literal not in COMMON_WORDS or id(node) in state_uses):
            yield Spelling(str(path.relative_to(ROOT)), node.lineno, literal)


def javascript_spellings(path: Path) -> Iterator[Spelling]:
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        code = line.split("//", 1)[0] if not line.lstrip().startswith("*") else ""
        state_uses = {match.group("after") or match.group("before") for match in JS_STATE_USE.finditer(code)}
        listed_states = bool(JS_STATE_LIST.search(code))
        for match in JS_STRING.finditer(code):
            word = match.group(2)
            if word in WORDS and (word not in COMMON_WORDS or word in state_uses or listed_states):
                yield Spelling(str(path.relative_to(ROOT)), number, word)


def second_spellings() -> list[Spelling]:
    found = [spelling for path in _sources(PYTHON_SOURCES, ".py") for spelling in python_spellings(path)]
    found += [spelling for path in _sources(JAVASCRIPT_SOURCES, ".js") for spelling in javascript_spellings(path)]
    return found


def main() -> int:
    found = second_spellings()
    for spelling in found:
        print(spelling)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
