"""Every REST API v2 route is written once, in hydrata_contract/paths.py: each resolves in the platform's URLconf to
a view of its name, the URLconf serves nothing under /api/v2/ the contract does not name, and neither wing spells an
/api/v2/ path of its own."""

import ast
import re
from collections import Counter
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from hydrata_contract import paths
from hydrata_contract.inputs import InputKind

ROOT = Path(__file__).resolve().parents[2]
PLATFORM_AND_MCP_SOURCES = ("hydrata", "hydrata_mcp", "config")
SKIPPED_DIRECTORIES = {"migrations", "vendor", "dist", "__pycache__"}
API_PATH = re.compile(r"/?api/v2/")


def urlconf_routes(patterns, prefix: str = "") -> list[tuple[str, str | None]]:
    """(route as the URLconf writes it, URL name) of every pattern, in order."""
    found = []
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            found += urlconf_routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            found.append((route, pattern.name))
    return found


def sample_values(route: paths.Route) -> dict[str, int | str]:
    return {name: 7 if kind is int else "a" for name, kind in route.parameters.items()}


def test_every_contract_route_resolves_to_the_view_of_its_name_with_its_parameters_typed():
    for route in paths.routes():
        values = sample_values(route)

        match = resolve(route.url(**values))

        assert (match.url_name, match.route, match.kwargs) == (route.name, paths.API_MOUNT + route.django(), values)


def test_every_urlconf_route_under_api_v2_is_a_contract_route_and_none_is_written_twice():
    served = [(route, name) for route, name in urlconf_routes(get_resolver().url_patterns) if route.startswith("api/")]
    named = [(paths.API_MOUNT + route.django(), route.name) for route in paths.routes()]

    assert [entry for entry, count in Counter(served).items() if count > 1] == []
    assert [entry for entry, count in Counter(named).items() if count > 1] == []
    assert sorted(served) == sorted(named)


def test_a_route_fills_its_parameters_into_the_path_below_api_v2():
    assert paths.RUN_DETAIL.url(run_id=3) == "/api/v2/anuga/runs/3/"
    assert paths.PROJECT_RUNS.url(project_id=3) == "/api/v2/anuga/projects/3/runs/"
    assert paths.PROJECT_RUNS.django() == "anuga/projects/<int:project_id>/runs/"
    assert paths.PROJECTS.url() == "/api/v2/anuga/projects/"
    assert paths.EXECUTION_STATUS.url(execution_id="e1") == "/api/v2/resource-service/execution-status/e1"
    assert paths.INPUT_LAYER_DETAIL[InputKind.MESH_REGION].url(project_id=1, layer_id=2) == (
        "/api/v2/anuga/projects/1/mesh-regions/2/"
    )


def test_a_tile_route_gives_the_map_its_xyz_template_and_prose_names_the_parameters():
    assert paths.RUN_TILE.tiles(run_id=3, layer="max_depth") == "/api/v2/anuga/runs/3/tiles/max_depth/{z}/{x}/{y}.png"
    assert paths.RUN_TILE.django() == "anuga/runs/<int:run_id>/tiles/<str:layer>/<str:z>/<str:x>/<str:y>.png"
    assert paths.DESIGN_INPUTS.shown() == "/api/v2/anuga/projects/<project_id>/design-inputs/"


@pytest.mark.parametrize(
    "values",
    [{}, {"run_id": 3, "project_id": 1}, {"run_id": "3"}, {"run_id": -1}, {"run_id": True}, {"run_id": 3.0}],
    ids=["missing", "one-too-many", "text-for-a-number", "negative", "a-bool", "a-float"],
)
def test_a_route_refuses_parameters_missing_extra_or_of_the_wrong_type(values):
    with pytest.raises(TypeError):
        paths.RUN_DETAIL.url(**values)


def test_a_text_parameter_refuses_a_number():
    with pytest.raises(TypeError):
        paths.EXECUTION_STATUS.url(execution_id=5)


def test_a_route_pattern_matches_its_own_paths_in_full_and_no_longer_one():
    pattern = re.compile(paths.TERRAIN_UPLOAD.pattern())

    assert pattern.fullmatch(paths.TERRAIN_UPLOAD.url(project_id=12))
    assert not pattern.fullmatch(paths.TERRAIN_PRESIGN.url(project_id=12))
    assert not pattern.fullmatch("/api/v2/anuga/projects/x/terrain/upload/")


def api_paths_spelt(path: Path) -> list[tuple[int, str]]:
    """(line, literal) of every string in the module, other than a docstring, that spells a path under /api/v2/."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and API_PATH.search(node.value)
    )


def python_sources() -> list[Path]:
    found = []
    for directory in PLATFORM_AND_MCP_SOURCES:
        for path in sorted((ROOT / directory).rglob("*.py")):
            if not SKIPPED_DIRECTORIES & set(path.relative_to(ROOT).parts):
                found.append(path)
    return found


def test_no_api_v2_path_is_spelt_in_the_platform_or_the_mcp_wing_outside_the_contract():
    spelt = [
        f"{path.relative_to(ROOT)}:{line}: {literal!r}"
        for path in python_sources()
        for line, literal in api_paths_spelt(path)
    ]

    assert spelt == []


def test_the_check_finds_a_path_in_a_literal_or_an_f_string_and_not_in_a_docstring_or_a_comment(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Mounted under /api/v2/anuga/."""\n'
        "# GET /api/v2/anuga/runs/<id>/\n"
        'RUNS = "/api/v2/anuga/runs/"\n'
        'path = f"/api/v2/anuga/projects/{project_id}/"\n'
        'urlpatterns = [path("api/v2/", include("x"))]\n'
        'other = "/reports/runs/"\n'
    )

    assert api_paths_spelt(sample) == [
        (3, "/api/v2/anuga/runs/"),
        (4, "/api/v2/anuga/projects/"),
        (5, "api/v2/"),
    ]
