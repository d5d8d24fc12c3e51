"""The security model cites the code and the test behind each claim; a citation must never dangle."""

import ast
import re
from pathlib import Path

import pytest

from tests.processes import ROOT

CITING_DOCS = ("docs/security-model.md",)
# A citation is a backticked path to a Python file, optionally followed by ::names (class, function, method).
CODE_SPAN = re.compile(r"`([^`\n]+)`")
CITATION = re.compile(r"(?P<path>[\w./-]+\.py)(?P<names>(?:::[\w]+)*)")
FOLDER = re.compile(r"[\w.-]+(?:/[\w.-]+)*/")


def citations(doc: str) -> list[str]:
    """Every backticked span that names a Python file (a bare `services.py` too) or carries ::names."""
    spans = CODE_SPAN.findall((ROOT / doc).read_text(encoding="utf-8"))
    return [
        span
        for span in spans
        if " " not in span and "*" not in span and span != "::" and ("::" in span or span.endswith(".py"))
    ]


def folder_citations(doc: str) -> list[str]:
    """Backticked folders of the tree (`hydrata/oauth/`); URL paths begin with a slash and are not folders."""
    spans = CODE_SPAN.findall((ROOT / doc).read_text(encoding="utf-8"))
    return [span for span in spans if FOLDER.fullmatch(span) and not span.startswith(("/", "."))]


def defined_names(path: Path) -> dict[str, set[str]]:
    """Top-level names of a module, and the names defined in each of its classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    scopes: dict[str, set[str]] = {"": set()}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            scopes[""].add(node.name)
        if isinstance(node, ast.ClassDef):
            scopes[node.name] = {
                item.name
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            }
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            scopes[""].update(target.id for target in targets if isinstance(target, ast.Name))
    return scopes


def citation_problem(span: str) -> str | None:
    match = CITATION.fullmatch(span)
    if match is None or "/" not in match["path"]:
        return "not a full path from the repository root (path/to/file.py::name)"
    path = ROOT / match["path"]
    if not path.is_file():
        return "no such file"
    names = [name for name in match["names"].split("::") if name]
    scopes = defined_names(path)
    if names and names[0] not in scopes[""]:
        return f"{names[0]} is not defined in {match['path']}"
    if len(names) > 1 and names[1] not in scopes.get(names[0], set()):
        return f"{names[1]} is not defined in {names[0]}"
    return None


@pytest.mark.parametrize("doc", CITING_DOCS)
def test_every_citation_names_a_file_and_a_definition_that_exist(doc):
    problems = {span: problem for span in citations(doc) if (problem := citation_problem(span))}
    assert problems == {}


@pytest.mark.parametrize("doc", CITING_DOCS)
def test_every_folder_cited_is_a_full_path_from_the_repository_root(doc):
    assert [span for span in folder_citations(doc) if not (ROOT / span).is_dir()] == []


def test_a_bare_file_name_or_folder_is_not_a_citation():
    assert citation_problem("services.py") == "not a full path from the repository root (path/to/file.py::name)"
    assert citation_problem("services.py::run_start") is not None
    assert not (ROOT / "tools/").is_dir()


def test_the_security_model_cites_tests():
    cited = citations("docs/security-model.md")
    assert sum(span.startswith("tests/") and "::" in span for span in cited) >= 50
