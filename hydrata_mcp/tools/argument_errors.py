"""A tool's arguments that fail validation, told as sentences a model acts on: the argument, what it expects and an
example, never pydantic's report (its `[type=...]` tags and its links to errors.pydantic.dev).

The SDK validates a call's arguments with the tool's argument model and reports a failure as the `str()` of
pydantic's ValidationError. The registry's tools (hydrata_mcp.tools.registry) catch that failure and raise
`argument_problem(...)` instead.
"""

import json
from typing import Any

from pydantic import ValidationError

MAX_ERRORS = 5  # a call that gets everything wrong hears about the first few, and that there are more
MAX_GOT = 40  # characters of a refused value quoted back

# What an error type says the argument expects; {name} fills from the error's context.
EXPECTS: dict[str, str] = {
    "int_parsing": "a whole number",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_parsing": "a number",
    "float_type": "a number",
    "finite_number": "a finite number",
    "bool_parsing": "true or false",
    "bool_type": "true or false",
    "string_type": "text",
    "list_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "greater_than_equal": "a number of at least {ge}",
    "greater_than": "a number above {gt}",
    "less_than_equal": "a number of at most {le}",
    "less_than": "a number below {lt}",
    "too_short": "at least {min_length} item(s)",
    "too_long": "at most {max_length} item(s)",
    "string_too_short": "at least {min_length} character(s)",
    "string_too_long": "at most {max_length} character(s)",
    "string_pattern_mismatch": "text matching {pattern}",
    "enum": "one of {expected}",
    "literal_error": "one of {expected}",
    "uuid_parsing": "a UUID",
    "uuid_type": "a UUID",
    "datetime_parsing": "an ISO 8601 date and time",
    "datetime_from_date_parsing": "an ISO 8601 date and time",
    "date_parsing": "an ISO 8601 date",
}


def argument_problem(*, tool: str, error: ValidationError, schema: dict[str, Any]) -> str:
    """`error` (the argument model's) as sentences, each naming the argument and how to put it right."""
    # A misspelt argument first (it is often why others read as missing), then each value given that is wrong, then
    # what is missing: past the cap, the caller still hears about everything it did send.
    order = {"extra_forbidden": 0, "missing": 2}
    problems = sorted(error.errors(include_url=False), key=lambda problem: order.get(problem["type"], 1))
    sentences = [_sentence(problem, schema=schema) for problem in problems[:MAX_ERRORS]]
    if len(problems) > MAX_ERRORS:
        sentences.append(f"And {len(problems) - MAX_ERRORS} more problems of the same call.")
    return f"The arguments of {tool} need correcting. " + " ".join(sentences)


def _sentence(problem: Any, *, schema: dict[str, Any]) -> str:
    loc = tuple(problem["loc"])
    where = _path(loc)
    kind = problem["type"]
    if kind == "extra_forbidden":
        parent = _node(schema, loc[:-1], schema)
        takes = ", ".join(parent.get("properties", {})) or "nothing"
        owner = f"`{_path(loc[:-1])}`" if loc[:-1] else "the tool"
        return f"`{where}` is not an argument it takes: {owner} takes {takes}."
    node = _node(schema, loc, schema)
    example = _example(node, schema, depth=0)
    shown = f" (e.g. {_json(example)})" if example is not None else ""
    if kind == "missing":
        what = str(node.get("description", "")).rstrip(".")
        return f"`{where}` is required{': ' + what if what else ''}{shown}."
    ctx = dict(problem.get("ctx") or {})
    if kind in ("enum", "literal_error") and node.get("enum"):
        # pydantic's own list is of the members' reprs (<Quantity.PEAK_STAGE: 'peak_stage'>): the values instead
        ctx["expected"] = _one_of([str(value) for value in node["enum"]])
    expects = _expects(kind, ctx, fallback=problem["msg"])
    got = _json(problem.get("input"))
    got = got if len(got) <= MAX_GOT else got[: MAX_GOT - 1] + "…"
    return f"`{where}` expects {expects}{shown}; it got {got}."


def _one_of(values: list[str]) -> str:
    quoted = [f"'{value}'" for value in values]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _expects(kind: str, ctx: dict[str, Any], *, fallback: str) -> str:
    template = EXPECTS.get(kind)
    if template is None:
        # A validator's own words ("Value error, ..."), without pydantic's prefix.
        text = fallback.removeprefix("Value error, ").removeprefix("Assertion failed, ")
        return text[:1].lower() + text[1:]
    try:
        return template.format(**{key: str(value) for key, value in ctx.items()})
    except (KeyError, IndexError):
        return template.split(" {")[0]


def _path(loc: tuple[Any, ...]) -> str:
    text = ""
    for step in loc:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text or "arguments"


def _resolved(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    for _ in range(8):  # a $ref chain, or an optional's non-null branch
        if "$ref" in node:
            node = root.get("$defs", {}).get(node["$ref"].rsplit("/", 1)[-1], {})
        elif "anyOf" in node:
            branches = [branch for branch in node["anyOf"] if branch.get("type") != "null"]
            node = {**branches[0], **{key: value for key, value in node.items() if key != "anyOf"}} if branches else {}
        else:
            break
    return node


def _node(node: dict[str, Any], loc: tuple[Any, ...], root: dict[str, Any]) -> dict[str, Any]:
    node = _resolved(node, root)
    for step in loc:
        if isinstance(step, int):
            node = _resolved(node.get("items", {}), root)
        else:
            node = _resolved(node.get("properties", {}).get(step, {}), root)
    return node


def _example(node: dict[str, Any], root: dict[str, Any], *, depth: int) -> Any:
    node = _resolved(node, root)
    if depth > 3 or not node:
        return None
    for key in ("examples", "enum"):
        if node.get(key):
            return node[key][0]
    if "const" in node:
        return node["const"]
    kind = node.get("type")
    if kind in ("integer", "number"):
        low = node.get("minimum", node.get("exclusiveMinimum"))
        if low is None:
            return 1 if kind == "integer" else 1.5
        step = 1 if "exclusiveMinimum" in node and "minimum" not in node else 0
        value = low + step if kind == "integer" else max(low, 0) + (1.5 if step or low <= 0 else 0)
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return True
    if kind == "string":
        return "2026-01-31T09:00:00+10:00" if node.get("format") == "date-time" else "..."
    if kind == "array":
        item = _example(node.get("items", {}), root, depth=depth + 1)
        return [item] if item is not None else []
    if kind == "object" and node.get("properties"):
        wanted = node.get("required") or list(node["properties"])
        return {key: _example(node["properties"][key], root, depth=depth + 1) for key in wanted}
    return None


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)
