"""Every registered tool, as a client sees it through /mcp/: strict about the names of its arguments."""

import asyncio
import re

import pytest
from mcp.client.extension import advertise

from hydrata.agents.models import AgentActivity
from hydrata_mcp.server import mcp_server
from hydrata_mcp.tools.registry import REGISTRY, registered_tools
from tests.factories import make_grant
from tests.mcp_client import mcp_client, run

pytestmark = pytest.mark.django_db(transaction=True)

# What the server's tools/list handler answers; the first test checks the live endpoint lists the same.
TOOL_NAMES = sorted(listed.name for listed in asyncio.run(mcp_server().list_tools()))
FALLBACK_ARGUMENT = "projct_id"
# A host that negotiated MCP Apps is shown the app-only tools too (hydrata_mcp/ui), so it sees every tool.
APPS_HOST = {
    "mode": "2026-07-28",
    "extensions": [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})],
}


def listed(url: str, key: str) -> dict:
    async def session():
        async with mcp_client(url, key, **APPS_HOST) as client:
            return (await client.list_tools()).tools

    return {tool.name: tool for tool in run(session)}


def listed_tools(url: str, key: str) -> dict[str, dict]:
    return {name: tool.input_schema for name, tool in listed(url, key).items()}


def misspelt(name: str) -> str:
    """A hurried hand's typo: the first vowel after the first letter dropped (project_id -> prject_id)."""
    return re.sub(r"(?<=.)[aeiou]", "", name, count=1)


def test_the_endpoint_lists_exactly_the_registered_tools(live_asgi):
    _, key = make_grant(level="read")

    assert set(listed_tools(live_asgi.url, key)) == set(TOOL_NAMES) == set(REGISTRY)


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_a_tool_schema_forbids_arguments_it_does_not_name(live_asgi, name):
    _, key = make_grant(level="read")

    schema = listed_tools(live_asgi.url, key)[name]

    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False


# The spec's value for a hint a tool leaves out (the registry leaves out readOnlyHint and idempotentHint when false).
HINT_DEFAULTS = {"read_only_hint": False, "destructive_hint": True, "idempotent_hint": False, "open_world_hint": True}


def hint(annotations, name: str) -> bool:
    """A hint as a client reads it: the value given, else the spec's default."""
    given = getattr(annotations, name)
    return HINT_DEFAULTS[name] if given is None else given


def hint_problems(tool) -> list[str]:
    hints, spec = tool.annotations, REGISTRY[tool.name]
    problems = []
    if not (hints.title and hints.title == spec.title):
        problems.append("no title annotation")
    if tool.title != spec.title:
        problems.append("no top-level title, or one that differs")
    if any(type(getattr(hints, name)) not in (bool, type(None)) for name in HINT_DEFAULTS):
        problems.append("a hint is not a boolean")
    if (hint(hints, "read_only_hint"), hint(hints, "destructive_hint"), hint(hints, "idempotent_hint")) != (
        spec.read_only,
        spec.destructive,
        spec.idempotent,
    ):
        problems.append("hints differ from the registry")
    if hint(hints, "open_world_hint"):
        problems.append("open world: every tool reaches the platform alone")
    if hint(hints, "read_only_hint") and not (hint(hints, "idempotent_hint") and not hint(hints, "destructive_hint")):
        problems.append("read-only but not idempotent, or destructive")  # reading twice is reading once
    if tool.output_schema is None or tool.output_schema.get("type") != "object":
        problems.append("no output schema")
    return problems


def test_every_tool_publishes_a_title_at_top_level_and_as_annotation_its_hints_and_an_output_schema(live_asgi):
    _, key = make_grant(level="read")

    tools = listed(live_asgi.url, key)

    assert {name: hint_problems(tool) for name, tool in tools.items() if hint_problems(tool)} == {}


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_a_misspelt_argument_is_a_tool_error_naming_it_and_nothing_is_called(live_asgi, name):
    grant, key = make_grant(level="launch")
    properties = list(listed_tools(live_asgi.url, key)[name].get("properties", {}))
    argument = misspelt(properties[0]) if properties else FALLBACK_ARGUMENT
    assert argument not in properties

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            return await client.call_tool(name, {argument: 1})

    result = run(session)

    assert result.is_error
    assert argument in result.content[0].text
    assert "is not an argument it takes" in result.content[0].text
    assert not AgentActivity.objects.filter(grant=grant).exists()


def objects_taking_any_key(node, root: dict, path: str, seen: set[str]) -> list[str]:
    """Every object schema under `node` (through $defs, once each) that does not refuse keys it does not name."""
    if isinstance(node, list):
        return [found for item in node for found in objects_taking_any_key(item, root, path, seen)]
    if not isinstance(node, dict):
        return []
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name in seen:
            return []
        seen.add(name)
        return objects_taking_any_key(root["$defs"][name], root, f"{path}>{name}", seen)
    loose = [path] if "properties" in node and node.get("additionalProperties") is not False else []
    return loose + [
        found
        for key, value in node.items()
        if key != "$defs"
        for found in objects_taking_any_key(value, root, f"{path}.{key}", seen)
    ]


def test_every_object_inside_any_tools_arguments_refuses_a_key_it_does_not_name():
    """Not only the top level: a point of sample_run_results, a row of create_time_series' data."""
    loose = {}
    for tool in registered_tools():
        schema = tool.fn_metadata.arg_model.model_json_schema()
        loose[tool.name] = objects_taking_any_key(schema, schema, tool.name, set())

    assert {name: paths for name, paths in loose.items() if paths} == {}


ARGUMENT_ERRORS = {
    "a key inside a point": (
        "sample_run_results",
        {"run_id": 1, "points": [{"x": 1, "y": 2, "z": 3}]},
        ["`points[0].z` is not an argument it takes", "`points[0]` takes x, y"],
    ),
    "a word for a number": ("get_run_status", {"run_id": "abc"}, ["`run_id` expects a whole number (e.g. 1)"]),
    "below its least": ("get_run_status", {"run_id": -4}, ["`run_id` expects a number of at least 1 (e.g. 1)"]),
    "a required one missing": ("list_scenarios", {}, ["`project_id` is required", "(e.g. 1)"]),
    "an empty list": ("sample_run_results", {"run_id": 1, "points": []}, ["`points` expects at least 1 item(s)"]),
}


@pytest.mark.parametrize("case", ARGUMENT_ERRORS)
def test_an_argument_error_reads_as_a_sentence_naming_the_argument_what_it_expects_and_an_example(live_asgi, case):
    _, key = make_grant(level="read")
    tool, arguments, sentences = ARGUMENT_ERRORS[case]

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            return await client.call_tool(tool, arguments)

    result = run(session)
    text = result.content[0].text

    assert result.is_error
    assert text.startswith(f"Error executing tool {tool}: The arguments of {tool} need correcting. ")
    for sentence in sentences:
        assert sentence in text
    for pydantic_report in ("validation error", "[type=", "http", "Input should", "Field required"):
        assert pydantic_report not in text


def enum_arguments(schema: dict) -> dict[str, tuple[list, bool]]:
    """Each argument with a closed set of values: its values, and whether it is a list of them."""
    found = {}
    for name, node in schema.get("properties", {}).items():
        if "enum" in node:
            found[name] = (node["enum"], False)
        elif "enum" in node.get("items", {}):
            found[name] = (node["items"]["enum"], True)
    return found


def test_a_value_outside_any_closed_set_names_the_values_it_takes_as_plain_words_never_an_enums_repr(live_asgi):
    _, key = make_grant(level="launch")
    schemas = listed_tools(live_asgi.url, key)
    calls = [
        (name, argument, values, ["nope"] if many else "nope")
        for name, schema in schemas.items()
        for argument, (values, many) in enum_arguments(schema).items()
    ]
    assert len(calls) >= 5  # kinds, quantities, statistics, scenario inputs to clear...

    async def session():
        async with mcp_client(live_asgi.url, key, **APPS_HOST) as client:
            return [(call, await client.call_tool(call[0], {call[1]: call[3]})) for call in calls]

    wrong = {}
    for (name, argument, values, _), result in run(session):
        text = result.content[0].text
        enum_repr = re.search(r"<\w+\.\w+:|\b[A-Z]\w+\.[A-Z_]{2,}\b", text)  # <Kind.X: 'x'>, or Kind.X
        if not result.is_error or f"'{values[0]}'" not in text or enum_repr:
            wrong[f"{name}.{argument}"] = text
    assert wrong == {}
