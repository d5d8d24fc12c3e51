"""No string of ours reaches an HTML sink: every script of both maps (the site's, the MCP App's view and the map
core they share) is read line by line for the calls that parse a string as markup. The DOM's own sinks are refused
everywhere; Leaflet's (a tooltip, a popup, a layer-control name, an attribution given a string) only in the one
reviewed helper both maps load, which hands Leaflet elements built with textContent, or text it escapes itself.

A plain substring search, linear in the file: no regular expression reads the scripts."""

import subprocess
from pathlib import Path

from hydrata_mcp.ui.view.build import module_order
from tests.test_one_map_core import site_modules

ROOT = Path(__file__).resolve().parent.parent
VENDORED = "vendor/"
HELPER = "map_core/leaflet_text.js"
# Parse a string as markup wherever they are called: no script of ours uses them.
DOM_SINKS = (
    "innerHTML",
    "outerHTML",
    "insertAdjacentHTML",
    "document.write",
    "createContextualFragment",
    "DOMParser",
    "setHTMLUnsafe",
    "parseHTMLUnsafe",
    "srcdoc",
)
# Leaflet renders a string handed to these as HTML: only the reviewed helper calls them, with an element or escaped
# text.
LEAFLET_SINKS = (
    "bindTooltip",
    "bindPopup",
    "setContent",
    "setTooltipContent",
    "setPopupContent",
    "L.tooltip",
    "L.Tooltip",
    "L.popup",
    "L.Popup",
    "L.divIcon",
    "L.DivIcon",
    "L.control.layers",
    "L.Control.Layers",
    "addBaseLayer",
    "addOverlay",
    "attribution",
)


def our_scripts() -> list[str]:
    """Every JavaScript file of ours in the repository, committed or about to be, but not vendored Leaflet."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "*.js"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    return sorted(path for path in listed.split("\0") if path and not path.startswith(VENDORED))


def sinks_in(path: str) -> list[str]:
    """`path:line: sink` for each sink the file calls where it may not."""
    refused = DOM_SINKS if path == HELPER else DOM_SINKS + LEAFLET_SINKS
    found = []
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        for sink in refused:
            if sink in line:
                found.append(f"{path}:{number}: {sink}")
    return found


def test_the_scan_reads_both_maps_scripts_and_the_reviewed_helper():
    scripts = our_scripts()

    assert "hydrata/map/static/map/layers.js" in scripts
    assert "hydrata_mcp/ui/view/src/main.js" in scripts
    assert HELPER in scripts
    assert not any(path.startswith(VENDORED) for path in scripts)


def test_no_script_of_ours_hands_a_string_to_an_html_sink_outside_the_reviewed_helpers():
    found = [finding for path in our_scripts() for finding in sinks_in(path)]

    assert found == [], "build the node with textContent, or go through the map's leaflet_text.js:\n" + "\n".join(found)


def test_the_scan_finds_a_sink_that_is_there(tmp_path, monkeypatch):
    """The scan is not vacuous: a tooltip from a string in a map script, and innerHTML even in a helper."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    for path, text in (
        ("hydrata/map/static/map/layers.js", 'shape.bindTooltip("Structure · " + method);\n'),
        (HELPER, "node.innerHTML = text;\n"),
    ):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")

    assert sinks_in("hydrata/map/static/map/layers.js") == ["hydrata/map/static/map/layers.js:1: bindTooltip"]
    assert sinks_in(HELPER) == [f"{HELPER}:1: innerHTML"]


def test_both_maps_load_the_one_reviewed_helper_before_the_modules_that_use_it():
    site = site_modules()
    app = module_order()

    assert site.index(HELPER) < site.index("map/layers.js")
    assert app.index(HELPER) < app.index("view/main.js")
