"""Text in the platform's figures. Every figure opens pyplot here: with matplotlib's math parsing and TeX off, so a
stored name such as `Storm $x^{$` is drawn as the text it is and never parsed (unparsable math raised, and the
report of a finished run answered 500). Every string a person or an agent stored goes through `plain` before it is
drawn: control characters become spaces, a leading "_" (which hides a legend entry) is kept visible, and the text
is cut to LABEL_CHARACTERS, so that a long name cannot grow a figure saved with bbox_inches="tight" (a 5,000
character gauge name made a 5-gigapixel chart). No Django."""

import re
from typing import Any

LABEL_CHARACTERS = 80
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend, with no text parsed as math or TeX."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["text.parse_math"] = False
    matplotlib.rcParams["text.usetex"] = False
    from matplotlib import pyplot as opened

    return opened


def plain(text: object, *, limit: int = LABEL_CHARACTERS) -> str:
    """A stored string as it is drawn: on one line, at most `limit` characters, never a hidden legend label."""
    shown = " ".join(_CONTROL.sub(" ", str(text)).split())
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return " " + shown if shown.startswith("_") else shown
