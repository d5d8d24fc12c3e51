"""Links into the site's map for people: `<site>/catalogue/#/map/<base map>?panel=...&...`. The platform puts one
in every answer it hands back (`ui_url`); the map reads the same query (its panels and parameters come from here)."""

from urllib.parse import parse_qsl, urlencode

from hydrata_contract.labelled import Labelled


class Panel(Labelled):
    TERRAIN = "terrain", "Terrain"
    INPUTS = "inputs", "Inputs"
    TIME_SERIES = "time-series", "Time series"
    SCENARIO = "scenario", "Scenario"
    RUN = "run", "Run"
    OBSERVATIONS = "observations", "Observations"
    COMPARISON = "comparison", "Comparison"
    STUDY = "study", "Design study"
    CALIBRATION = "calibration", "Calibration"


# The query parameters a link may carry besides `panel`, in the order they are written.
LINK_PARAMETERS = ("layer", "scenario", "run", "event", "comparison", "compare", "study")


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
    study: int | None = None,
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
        ("study", study),
    )
    params = {key: str(value) for key, value in named if value is not None}
    return f"{site_url}/catalogue/#/map/{base_map}" + (f"?{urlencode(params)}" if params else "")


def relink(link: str, *, panel: Panel | None = None, **ids: int | None) -> str:
    """The same map with other parameters: `panel` replaced when given, each id set (None takes it out). A client
    that holds one of the platform's links opens another view of the same map without asking for a new one."""
    base, _, query = link.partition("?")
    params = dict(parse_qsl(query))
    if panel is not None:
        params["panel"] = panel
    for key, value in ids.items():
        if key not in LINK_PARAMETERS:
            raise ValueError(f"A map link has no parameter {key!r}; it has panel, {', '.join(LINK_PARAMETERS)}.")
        if value is None:
            params.pop(key, None)
        else:
            params[key] = str(value)
    ordered = [(key, params[key]) for key in ("panel", *LINK_PARAMETERS) if key in params]
    return base + (f"?{urlencode(ordered)}" if ordered else "")


def report_url(*, site_url: str, kind: "ReportKind", object_id: int, pdf: bool = False) -> str:
    """The site's report page of a run, a comparison or a calibration study, or its PDF: for people signed in
    (never a signed link)."""
    return f"{site_url}/reports/{kind}/{object_id}/" + ("report.pdf" if pdf else "")


class ReportKind(Labelled):
    RUN = "runs", "Run report"
    COMPARISON = "comparisons", "Comparison report"
    CALIBRATION = "calibration", "Calibration study report"
