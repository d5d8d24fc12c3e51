"""Two tool catalogs compared, each written by `benchmarks/catalog.py --dump FILE`: the tools gained or lost, and for
each tool the properties its input or output schema gained or lost (at any depth, by path), and its size.

    .venv/bin/python scripts/catalog_diff.py BEFORE.json AFTER.json

Exits 1 when a tool or a schema property was lost, 0 otherwise.
"""

import json
import sys
from pathlib import Path


def properties(schema: object, path: str = "", defs: dict | None = None, seen: frozenset = frozenset()) -> set[str]:
    """Every property path a JSON schema names, through $ref, anyOf/oneOf/allOf and items."""
    found: set[str] = set()
    if not isinstance(schema, dict):
        return found
    defs = {**(defs or {}), **schema.get("$defs", {})}
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name not in seen and name in defs:
            found |= properties(defs[name], path, defs, seen | {name})
    for key in ("anyOf", "oneOf", "allOf"):
        for part in schema.get(key, []):
            found |= properties(part, path, defs, seen)
    if "items" in schema:
        found |= properties(schema["items"], f"{path}[]", defs, seen)
    for name, sub in schema.get("properties", {}).items():
        here = f"{path}.{name}" if path else name
        found.add(here)
        found |= properties(sub, here, defs, seen)
    return found


def size(tool: dict) -> int:
    return len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False).encode())


def main() -> int:
    before, after = (json.loads(Path(name).read_text()) for name in sys.argv[1:3])
    lost = False
    for name in sorted(set(before) - set(after)):
        print(f"- tool lost: {name}")
        lost = True
    for name in sorted(set(after) - set(before)):
        print(f"+ tool gained: {name}")
    total_before = total_after = 0
    for name in sorted(set(before) & set(after)):
        total_before += size(before[name])
        total_after += size(after[name])
        for schema in ("inputSchema", "outputSchema"):
            old = properties(before[name].get(schema))
            new = properties(after[name].get(schema))
            for gone in sorted(old - new):
                print(f"- {name} {schema}: {gone}")
                lost = True
            for added in sorted(new - old):
                print(f"+ {name} {schema}: {added}")
        if size(before[name]) != size(after[name]):
            print(f"  {name}: {size(before[name]):,} B -> {size(after[name]):,} B")
    print(f"tools in both: {total_before:,} B -> {total_after:,} B")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
