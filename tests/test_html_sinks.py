"""No string of ours reaches an HTML sink: every script of both maps (the site's and the MCP App's view) is read
line by line for the calls that parse a string as markup. The DOM's own sinks are refused everywhere; Leaflet's
(a tooltip, a popup, a layer-control name, an attribution given a string) only in the one reviewed helper of each
map, which hands Leaflet elements built with textContent, or text it escapes itself.

A plain substring search, linear in the file: no regular expression reads the scripts."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENDORED = "hydrata/anuga/static/vendor/"
SITE_HELPER = "hydrata/anuga/static/anuga/map/leaflet_text.js"
VIEW_HELPER = "hydrata_mcp/ui/view/src/leaflet_text.js"
REVIEWED_HELPERS = {SITE_HELPER, VIEW_HELPER}
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
# Leaflet renders a string handed to these as HTML: only the reviewed helpers call them, with an element or
# escaped text.
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
    refused = DOM_SINKS if path in REVIEWED_HELPERS else DOM_SINKS + LEAFLET_SINKS
    found = []
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        for sink in refused:
            if sink in line:
                found.append(f"{path}:{number}: {sink}")
    return found


def test_the_scan_reads_both_maps_scripts_and_both_reviewed_helpers():
    scripts = our_scripts()

    assert "hydrata/anuga/static/anuga/map/layers.js" in scripts
    assert "hydrata_mcp/ui/view/src/map.js" in scripts
    assert set(scripts) >= REVIEWED_HELPERS
    assert not any(path.startswith(VENDORED) for path in scripts)


def test_no_script_of_ours_hands_a_string_to_an_html_sink_outside_the_reviewed_helpers():
    found = [finding for path in our_scripts() for finding in sinks_in(path)]

    assert found == [], "build the node with textContent, or go through the map's leaflet_text.js:\n" + "\n".join(found)


def test_the_scan_finds_a_sink_that_is_there(tmp_path, monkeypatch):
    """The scan is not vacuous: a tooltip from a string in a map script, and innerHTML even in a helper."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    for path, text in (
        ("hydrata/anuga/static/anuga/map/layers.js", 'shape.bindTooltip("Structure · " + method);\n'),
        (SITE_HELPER, "node.innerHTML = text;\n"),
    ):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")

    assert sinks_in("hydrata/anuga/static/anuga/map/layers.js") == [
        "hydrata/anuga/static/anuga/map/layers.js:1: bindTooltip"
    ]
    assert sinks_in(SITE_HELPER) == [f"{SITE_HELPER}:1: innerHTML"]


def test_each_map_loads_its_reviewed_helper():
    catalogue = (ROOT / "hydrata/anuga/templates/anuga/catalogue.html").read_text(encoding="utf-8")
    build = (ROOT / "hydrata_mcp/ui/view/build.py").read_text(encoding="utf-8")

    assert "{% static 'anuga/map/leaflet_text.js' %}" in catalogue
    assert catalogue.index("leaflet_text.js") < catalogue.index("anuga/map/layers.js")
    assert '"leaflet_text.js", "map.js"' in build
