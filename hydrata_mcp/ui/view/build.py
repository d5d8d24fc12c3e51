"""Build the map view into one self-contained HTML document: Leaflet (the pinned copy vendored for the full map)
and the view's own code inlined, so the resource fetches nothing from anywhere.

    python hydrata_mcp/ui/view/build.py        (also `make view`)

The output, dist/map.html, is committed; a test checks it matches what this script builds from the sources.
"""

import json
import re
import sys
from pathlib import Path

from hydrata_contract.scripts import script_constants

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
LEAFLET = ROOT / "hydrata" / "anuga" / "static" / "vendor" / "leaflet" / "1.9.4"
SOURCE = HERE / "src"
OUTPUT = HERE / "dist" / "map.html"
SOURCE_MAP = re.compile(r"^//# sourceMappingURL=.*$", re.MULTILINE)
# Leaflet's marker and layer-switcher images: the view uses neither, and a relative URL would be a fetch.
IMAGE_URL = re.compile(r"url\(images/[^)]*\)")


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
        "/*VIEW_JS*/": "".join(
            _inline((SOURCE / name).read_text(encoding="utf-8"), closing="</script")
            for name in ("host.js", "leaflet_text.js", "map.js")
        ),
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
