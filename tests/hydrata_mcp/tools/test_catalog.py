"""The catalog as a client lists it through /mcp/: lean (bytes per tool within budget), yet every tool keeps what
clients need: annotations, a described argument for each argument, and an output schema naming the keys of
TOOLS.md "Names in results"."""

import json
from typing import Any

import pytest
from mcp.client.extension import advertise

from hydrata_mcp.tools.projects import CreatedProject
from tests.factories import make_grant
from tests.mcp_client import call, mcp_client, run

pytestmark = pytest.mark.django_db(transaction=True)

BUDGET_BYTES_PER_TOOL = 1200
APPS_HOST = {
    "mode": "2026-07-28",
    "extensions": [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})],
}
HAND_BACK = ("ui_url", "summary", "say_to_user")
# TOOLS.md: the tools marked HB carry the hand-back keys.
HAND_BACK_TOOLS = {
    "start_simulation",
    "cancel_run",
    "retry_run",
    "create_project",
    "finalize_terrain_upload",
    "get_terrain",
    "create_time_series",
    "attach_input_layer",
    "create_scenario",
    "build_scenario",
    "create_flood_event",
    "create_observation",
    "import_observations",
    "update_observation",
    "delete_observation",
    "compare_run_with_observations",
    "recompute_comparison",
    "rank_runs_against_observations",
    "update_scenario",
    "clone_scenario",
    "create_design_study",
    "get_design_study",
    "get_run_report",
    "start_design_study",
    "cancel_design_study",
}
ESTIMATE = ("mesh_triangle_count_estimate", "compute_cost_estimate", "vcpu_hours_estimate", "computed_status")
RUN_RESULTS = (
    *(
        f"result_layers.gn_layer_{name}"
        for name in (
            "max_depth",
            "max_speed",
            "max_stage",
            "max_hazard",
            "time_of_inundation",
            "duration_of_inundation",
        )
    ),
    "statistics.hazard_area_m2_by_class",
    "statistics.mass_balance_error_pct",
)
COMPARISON = (
    "id",
    *(f"points.{key}" for key in ("observation_id", "observed", "modelled", "error", "within_tolerance")),
    *(f"metrics.{key}" for key in ("n", "bias", "mae", "rmse", "max_abs_error", "within_tolerance")),
)
# TOOLS.md "Names in results", a dot stepping into a record (or each record of a list).
NAMES_IN_RESULTS: dict[str, tuple[str, ...]] = {
    "create_project": ("id",),
    "create_scenario": ("id", *ESTIMATE),
    "clone_scenario": ("id",),
    "create_time_series": ("id",),
    "create_flood_event": ("id",),
    "create_observation": ("id",),
    "presign_terrain_upload": ("upload_url", "staging_key", "process_id", "expires_in"),
    "finalize_terrain_upload": ("id", "status"),
    "get_terrain": ("outcome", "status", "terrain", "terrain.id", "polls", "elapsed_seconds"),
    "attach_input_layer": ("outcome", "kind", "row_id", "dataset_pk", "feature_count"),
    "get_scenario": ESTIMATE,
    "build_scenario": (
        "outcome",
        "computed_status",
        "run_id",
        "mesh_triangle_count",
        "mesh_triangle_count_estimate",
        "posted",
    ),
    "start_simulation": ("id", "status"),
    "retry_run": ("id", "status"),
    "get_run_status": ("id", "status", "phase", "progress_pct", "eta_seconds", "error_message", "compute_backend"),
    "sample_run_results": tuple(f"points.{key}" for key in ("x", "y", "peak_depth", "peak_stage", "peak_speed")),
    "get_run_time_series": tuple(
        f"series.{key}" for key in ("name", "kind", "x", "y", "t", "stage", "depth", "speed", "discharge")
    ),
    "compare_runs": tuple(
        f"statistics.{key}"
        for key in (
            "max_increase_m",
            "max_decrease_m",
            "area_wetter_m2",
            "area_drier_m2",
            "area_newly_wet_m2",
            "area_no_longer_wet_m2",
        )
    ),
    "get_run": RUN_RESULTS,
    "get_run_results": RUN_RESULTS,
    "compare_run_with_observations": COMPARISON,
    "get_comparison": COMPARISON,
    "create_design_study": ("id", "estimate"),
    "get_design_study": ("id", "estimate"),
    "get_run_report": ("id", "summary.pages", "summary.figures", "summary.pdf_url"),
    "start_design_study": ("id", "status"),
    "cancel_design_study": ("id", "status"),
}


def listed(url: str, key: str, **client_kwargs: Any) -> dict:
    async def session():
        async with mcp_client(url, key, **client_kwargs) as client:
            return (await client.list_tools()).tools

    return {tool.name: tool for tool in run(session)}


@pytest.fixture
def catalog(live_asgi) -> dict:
    """Every tool, app-only ones included: the catalog of a host that negotiated MCP Apps."""
    return listed(live_asgi.url, make_grant(level="read")[1], **APPS_HOST)


def wire_bytes(tool) -> int:
    """As benchmarks/catalog.py measures a tool: its compact JSON under the protocol's names."""
    wire = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    return len(json.dumps(wire, separators=(",", ":"), ensure_ascii=False).encode())


def names_in(schema: dict, path: str) -> bool:
    """Whether `schema` names the dotted `path`: each step a property, stepping through a list to its records."""
    for step in path.split("."):
        while schema.get("items"):
            schema = schema["items"]
        properties = schema.get("properties", {})
        if step not in properties:
            return False
        schema = properties[step]
    return True


def test_the_catalog_a_model_sees_costs_at_most_1_2_kb_per_tool(live_asgi):
    tools = listed(live_asgi.url, make_grant(level="read")[1])

    sizes = {name: wire_bytes(tool) for name, tool in tools.items()}

    assert len(sizes) >= 38  # every tool of TOOLS.md is in it
    assert sum(sizes.values()) / len(sizes) <= BUDGET_BYTES_PER_TOOL, sorted(sizes.items(), key=lambda s: -s[1])[:3]


def test_the_catalog_of_an_apps_host_costs_at_most_1_2_kb_per_tool(catalog):
    sizes = [wire_bytes(tool) for tool in catalog.values()]

    assert sum(sizes) / len(sizes) <= BUDGET_BYTES_PER_TOOL


def test_every_argument_of_every_tool_carries_a_description_at_its_own_top_level(catalog):
    undescribed = {
        name: [argument for argument, spec in tool.input_schema.get("properties", {}).items() if not _text(spec)]
        for name, tool in catalog.items()
    }

    assert {name: arguments for name, arguments in undescribed.items() if arguments} == {}


def _text(spec: dict) -> bool:
    return isinstance(spec.get("description"), str) and bool(spec["description"].strip())


def test_every_tool_keeps_its_description_annotations_and_output_schema(catalog):
    problems = {name: _lost(tool) for name, tool in catalog.items()}

    assert {name: lost for name, lost in problems.items() if lost} == {}


def _lost(tool) -> list[str]:
    lost = [] if tool.description else ["description"]
    if not tool.title:
        lost.append("title")
    hints = tool.annotations
    if hints is None or not hints.title:
        lost.append("annotations")
    elif None in (hints.destructive_hint, hints.open_world_hint):
        lost.append("a hint whose absence reads as true")
    schema = tool.output_schema or {}
    if schema.get("type") != "object" or not schema.get("properties"):
        lost.append("output schema")
    if tool.input_schema.get("additionalProperties") is not False:
        lost.append("additionalProperties: false")
    return lost


@pytest.mark.parametrize("name", sorted(NAMES_IN_RESULTS))
def test_an_output_schema_names_and_requires_the_result_keys_clients_rely_on(catalog, name):
    schema = catalog[name].output_schema
    names = NAMES_IN_RESULTS[name] + (HAND_BACK if name in HAND_BACK_TOOLS else ())

    assert [path for path in names if not names_in(schema, path)] == []
    assert {path.split(".")[0] for path in names} <= set(schema.get("required", [])), schema.get("required")


@pytest.mark.parametrize("name", sorted(HAND_BACK_TOOLS - set(NAMES_IN_RESULTS)))
def test_a_hand_back_tool_names_and_requires_the_hand_back_keys(catalog, name):
    schema = catalog[name].output_schema

    assert [key for key in HAND_BACK if not names_in(schema, key)] == []
    assert set(HAND_BACK) <= set(schema.get("required", []))


def test_a_result_keeps_every_field_its_slimmer_schema_does_not_name(live_asgi):
    _, key = make_grant(level="draft")

    result = call(live_asgi.url, key, "create_project", {"name": "Lean", "projection": "EPSG:28356"})

    assert not result.is_error, result.content
    assert set(result.structured_content) == set(CreatedProject.model_fields)
    assert {"owner", "created_at", "visibility"} <= set(result.structured_content)
