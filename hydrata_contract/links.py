"""Links into the site's map for people: `<site>/catalogue/#/map/<base map>?panel=...&...`. The platform puts one
in every answer it hands back (`ui_url`); the map reads the same query (its panels and parameters come from here)."""

from urllib.parse import urlencode

from hydrata_contract.labelled import Labelled


class Panel(Labelled):
    TERRAIN = "terrain", "Terrain"
    INPUTS = "inputs", "Inputs"
    TIME_SERIES = "time-series", "Time series"
    SCENARIO = "scenario", "Scenario"
    RUN = "run", "Run"
    OBSERVATIONS = "observations", "Observations"
    COMPARISON = "comparison", "Comparison"


# The query parameters a link may carry besides `panel`, in the order they are written.
LINK_PARAMETERS = ("layer", "scenario", "run", "event", "comparison", "compare")


def map_url(
    *,
    site_url: str,
    base_map: int,
    panel: Panel | None = None,
    layer: int | None = None,
    scenario: int | None = None,
    run: int | None = None,
    event: int | None = None,
    comparison: int | None = None,
    compare: int | None = None,
) -> str:
    """The map of `base_map`, opened on `panel` and the objects named (None leaves a parameter out)."""
    named = (
        ("panel", panel),
        ("layer", layer),
        ("scenario", scenario),
        ("run", run),
        ("event", event),
        ("comparison", comparison),
        ("compare", compare),
    )
    params = {key: str(value) for key, value in named if value is not None}
    return f"{site_url}/catalogue/#/map/{base_map}" + (f"?{urlencode(params)}" if params else "")
