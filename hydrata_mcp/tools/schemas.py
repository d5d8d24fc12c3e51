"""The schemas a tool publishes in tools/list: what a client needs to call it and to rely on its result, no more.

pydantic's own schemas give every property a title, every nested field a description and every nested record its
whole shape; a catalog of them cost a model's context about 3 KB a tool. The published input schema keeps every
argument with its type, limits, default and description (a `None` default published as "leave it out", with the
description at the property's own top level where clients show it). The published output schema is the
result's contract: the keys clients rely on (`relied_on`, the names of TOOLS.md "Names in results", dotted when
nested), typed and required, with the records they sit in described as objects, and a contract enum's value as its
type (its values are the contract's: listing them in every result would cost each its bytes again); a tool that
declares no such names publishes each top-level key of its result, typed. Results keep every field: the SDK still
validates them against the full model, and a client validating against the slimmer schema accepts the keys it does
not name.
"""

from typing import Any, TypeAlias

Schema: TypeAlias = dict[str, Any]
# The relied-on paths as a tree: {"points": {"x": {}, "y": {}}} for "points.x" and "points.y".
Names: TypeAlias = dict[str, "Names"]
REF_PREFIX = "#/$defs/"


def published_input_schema(schema: Schema) -> Schema:
    properties = {name: _argument(spec) for name, spec in schema.get("properties", {}).items()}
    published: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if schema.get("required"):
        published["required"] = schema["required"]
    if "$defs" in schema:
        published["$defs"] = {name: _untitled(spec) for name, spec in schema["$defs"].items()}
    return published


def published_output_schema(schema: Schema, *, relied_on: tuple[str, ...], every_key: bool) -> Schema:
    """`every_key`: name each top-level key, not only the relied-on ones. Raises ValueError when a relied-on name
    is not in the result's schema: the promise would be empty."""
    names = _name_tree(relied_on)
    root = _record(schema, schema.get("$defs", {}), names, every_key=every_key)
    # A model's fields are always in its result, so its relied-on ones are required: a validating client then
    # checks the promise on every call. Nested keys are only named, which keeps the catalog small.
    required = [name for name in names if name in schema.get("properties", {})]
    return root | ({"required": required} if required else {})


def _argument(spec: Schema) -> Schema:
    """An optional argument whose default is None is published as its non-null type: leaving it out is the way
    to not give it, and a client reads one type more easily than an anyOf (whose branches some do not show). An
    empty default ("", [], {}) says no more than the argument's absence from `required`."""
    argument = _untitled(spec)
    if argument.get("default", None) in ("", [], {}):
        del argument["default"]
    branches = argument.get("anyOf", [])
    if "default" in argument and argument["default"] is None and len(branches) == 2 and {"type": "null"} in branches:
        del argument["anyOf"], argument["default"]
        (given,) = [branch for branch in branches if branch != {"type": "null"}]
        description = argument.pop("description", None) or given.pop("description", None)
        argument = {**given, **argument, **({"description": description} if description else {})}
    return argument


def _untitled(spec: Any) -> Any:
    if isinstance(spec, dict):
        return {key: _untitled(value) for key, value in spec.items() if not (key == "title" and isinstance(value, str))}
    if isinstance(spec, list):
        return [_untitled(item) for item in spec]
    return spec


def _name_tree(paths: tuple[str, ...]) -> Names:
    tree: Names = {}
    for path in paths:
        node = tree
        for part in path.split("."):
            node = node.setdefault(part, {})
    return tree


def _resolved(spec: Schema, defs: Schema) -> Schema:
    while "$ref" in spec:
        spec = defs[spec["$ref"].removeprefix(REF_PREFIX)]
    return spec


def _typed(spec: Schema, defs: Schema, names: Names) -> Schema:
    """A value's type; a record's keys only when some of them are relied on."""
    named = "$ref" in spec
    spec = _resolved(spec, defs)
    if "anyOf" in spec:
        return _either(spec["anyOf"], defs, names)
    if spec.get("type") == "null":
        return {"type": "null"}
    if spec.get("type") == "array":
        items = _typed(spec.get("items", {}), defs, names)
        return {"type": "array", **({"items": items} if items else {})}
    if spec.get("type") == "object":
        return _record(spec, defs, names, every_key=False) if names else {"type": "object"}
    if names:
        raise ValueError(f"{sorted(names)} are relied on inside a value that is no record")
    if "enum" in spec and named and "type" in spec:
        return {"type": spec["type"]}  # a contract enum: its values are the contract's, not repeated in each result
    if "enum" in spec:
        return {"enum": spec["enum"]}
    return {"type": spec["type"]} if "type" in spec else {}


def _either(branches: list[Schema], defs: Schema, names: Names) -> Schema:
    """`X | None` as one schema with both types; wider unions as they are."""
    typed = [_typed(branch, defs, names) for branch in branches]
    if any(not branch for branch in typed):
        return {}
    if all(set(branch) == {"type"} and isinstance(branch["type"], str) for branch in typed):
        types = list(dict.fromkeys(branch["type"] for branch in typed))
        return {"type": types if len(types) > 1 else types[0]}
    nullable = [branch for branch in typed if branch != {"type": "null"}]
    if len(nullable) == 1 == len(typed) - 1 and isinstance(nullable[0].get("type"), str):
        return {**nullable[0], "type": [nullable[0]["type"], "null"]}
    return {"anyOf": typed}


def _record(spec: Schema, defs: Schema, names: Names, *, every_key: bool) -> Schema:
    """An object's keys, typed: every one, or only the relied-on ones (a mapping's too)."""
    fields = spec.get("properties", {})
    entries = _entries(spec)
    unknown = [name for name in names if name not in fields and entries is None]
    if unknown:
        raise ValueError(f"{unknown} are relied on but are not keys of the result")
    shown = {name: fields[name] for name in fields if every_key or name in names}
    shown |= {name: entries for name in names if name not in fields and entries is not None}
    properties = {key: _typed(value, defs, names.get(key, {})) for key, value in shown.items()}
    return {"type": "object", "properties": properties}


def _entries(spec: Schema) -> Schema | None:
    """The schema of a mapping's values (`dict[str, X]`), or None for a model (a record of fixed fields)."""
    entries = spec.get("additionalProperties")
    if entries is True or ("properties" not in spec and entries is None):
        return {}
    return entries if isinstance(entries, dict) else None
