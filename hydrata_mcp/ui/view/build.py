"""Build the map view into one self-contained HTML document: Leaflet (vendored in vendor/ for both maps), the map
core the site's map loads as ES modules (map_core/) and the view's own modules, inlined, so the resource fetches
nothing from anywhere.

    python hydrata_mcp/ui/view/build.py        (also `make view`)

The modules are joined without a bundler: each becomes a function whose result is its exports, in dependency order,
and each `import` a `const` reading them. They keep to a small form this script checks: imports are
`import { a, b } from "./x.js";` or `import * as x from "./x.js";`, exports are `export function|const|let|class`.
A module's path is the one it has on the site (`map_core/dom.js` under /static/), and the view's own are under
`view/`, so a specifier means the same file to the browser and here.

The output, dist/map.html, is committed; a test checks it matches what this script builds from the sources.
"""

import json
import posixpath
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hydrata_contract.scripts import script_constants

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
LEAFLET = ROOT / "vendor" / "leaflet" / "1.9.4"
SOURCE = HERE / "src"
OUTPUT = HERE / "dist" / "map.html"
# Where a module path's first segment lives: the site serves map_core/ under the same name.
MOUNTS = {"map_core": ROOT / "map_core", "view": SOURCE}
ENTRY = "view/main.js"
SOURCE_MAP = re.compile(r"^//# sourceMappingURL=.*$", re.MULTILINE)
# Leaflet's marker and layer-switcher images: the view uses neither, and a relative URL would be a fetch.
IMAGE_URL = re.compile(r"url\(images/[^)]*\)")
IMPORT = re.compile(r'^import (?:\{ (?P<names>[\w$, ]+) \}|\* as (?P<alias>[\w$]+)) from "(?P<specifier>[^"]+)";$')
EXPORT = re.compile(r"^export (?:function|const|let|class) (?P<name>[\w$]+)")


@dataclass(frozen=True)
class Import:
    module: str
    names: str | None  # "a, b as c" for a named import
    alias: str | None  # the name of a namespace import


def file_of(module: str) -> Path:
    mount, _, rest = module.partition("/")
    if mount not in MOUNTS or not rest:
        raise ValueError(f"{module!r} is under none of {sorted(MOUNTS)}")
    return MOUNTS[mount] / rest


def imports_in(module: str, text: str) -> list[Import]:
    """The modules `text` (the module at path `module`) imports, in its order; a relative specifier only."""
    found = []
    for line in text.splitlines():
        if not line.startswith("import "):
            continue
        match = IMPORT.match(line)
        if match is None or not match["specifier"].startswith(("./", "../")):
            raise ValueError(f"{module}: an import this build does not join: {line!r}")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(module), match["specifier"]))
        found.append(Import(module=target, names=match["names"], alias=match["alias"]))
    return found


def module_order(entry: str = ENTRY, *, file_of: Callable[[str], Path] = file_of) -> list[str]:
    """Every module `entry` reaches, each after the modules it imports; `file_of` finds a module's file (the site's
    page finds its modules where Django serves them from)."""
    order: list[str] = []
    visiting: list[str] = []

    def visit(module: str) -> None:
        if module in order:
            return
        if module in visiting:
            raise ValueError(f"The modules import one another in a circle: {' -> '.join([*visiting, module])}")
        visiting.append(module)
        for imported in imports_in(module, file_of(module).read_text(encoding="utf-8")):
            visit(imported.module)
        visiting.pop()
        order.append(module)

    visit(entry)
    return order


def _variable(module: str) -> str:
    return "$" + re.sub(r"\W", "_", module.removesuffix(".js"))


def _binding(imported: Import) -> str:
    if imported.alias:
        return f"const {imported.alias} = {_variable(imported.module)};"
    names = imported.names.replace(" as ", ": ") if imported.names else ""
    return f"const {{ {names} }} = {_variable(imported.module)};"


def joined_module(module: str) -> str:
    """The module as a function of its own scope (strict, as a module is) whose result is its exports."""
    text = file_of(module).read_text(encoding="utf-8")
    imports = iter(imports_in(module, text))
    lines, exported = [], []
    for line in text.splitlines():
        if line.startswith("import "):
            line = _binding(next(imports))
        elif line.startswith("export "):
            match = EXPORT.match(line)
            if match is None:
                raise ValueError(f"{module}: an export this build does not join: {line!r}")
            exported.append(match["name"])
            line = line.removeprefix("export ")
        lines.append(line)
    body = "\n".join(lines).rstrip()
    exports = ", ".join(exported)
    return f'const {_variable(module)} = (function () {{\n"use strict";\n{body}\nreturn {{ {exports} }};\n}})();\n'


def _inline(text: str, *, closing: str) -> str:
    if closing in text.lower():
        raise ValueError(f"An inlined file holds {closing!r}, which would end its element early")
    return SOURCE_MAP.sub("", text).rstrip() + "\n"


def built() -> str:
    parts = {
        "/*LEAFLET_CSS*/": IMAGE_URL.sub(
            "none", _inline((LEAFLET / "leaflet.css").read_text(encoding="utf-8"), closing="</style")
        ),
        "/*VIEW_CSS*/": _inline((SOURCE / "view.css").read_text(encoding="utf-8"), closing="</style"),
        "/*LEAFLET_JS*/": _inline((LEAFLET / "leaflet.js").read_text(encoding="utf-8"), closing="</script"),
        "/*VIEW_JS*/": _inline("".join(joined_module(module) for module in module_order()), closing="</script"),
    }
    # `<` escaped so that no string of the contract can end the element early.
    parts["/*CONTRACT_JSON*/"] = json.dumps(script_constants(), sort_keys=True).replace("<", "\\u003c")
    page = (SOURCE / "index.html").read_text(encoding="utf-8")
    for placeholder, text in parts.items():
        page = page.replace(placeholder, text)
    return page


if __name__ == "__main__":
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(built(), encoding="utf-8")
    sys.stdout.write(f"{OUTPUT.relative_to(ROOT)}: {OUTPUT.stat().st_size} bytes\n")
