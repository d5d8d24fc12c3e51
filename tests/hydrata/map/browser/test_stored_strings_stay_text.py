"""Every string a draft agent can store is text on every page that shows it: nothing it wrote runs in the browser
of the owner who opens the agent's link.

A draft key alone, through the real REST API, writes a payload into each string it can set. Each payload calls
home with its own code, in three forms: an `<img onerror>`, a `<script>` and an attribute break-out into an
`<svg onload>` (where a field is short, the longest form that fits). Then the owner, signed in, opens every page
and panel that shows them, hovers and clicks every feature on the map, and the MCP App view shows the same data
in a host page. Nothing may call home, open a dialog or leave an element the payload made; and each field a page
shows must appear there as the literal text that was stored.

The fields (`code` is what the payload calls home with; `{i}` is 1 to 3, one feature or object each):

| code | written through | shown on |
|---|---|---|
| project.name | POST projects/ | catalogue, map heading, page title |
| terrain.title | POST terrain/upload/ | Terrain and Scenario panels |
| terrain.filename | the same upload's file name | not as given: _safe_filename keeps [A-Za-z0-9._-] |
| boundary.stage.{i} | layer upload, PATCH boundaries/<id>/ | popup, the row's properties table |
| friction.note.{i} | layer upload, PATCH frictions/<id>/ | popup, properties table |
| inflow.data.{i} | layer upload, PATCH inflows/<id>/ | label (tooltip), popup, properties table |
| rainfall.data.{i} | layer upload, PATCH rainfalls/<id>/ | label (tooltip), popup, properties table |
| structure.method.{i} | layer upload, PATCH structures/<id>/ | label (tooltip), popup, properties table |
| mesh_region.resolution_units.{i} | layer upload, PATCH mesh-regions/<id>/ | label, popup, properties table |
| <kind>.comment | an extra property, every kind | popup, properties table |
| <kind>.key | a property's name, every kind | popup, properties table's heading |
| <kind>.id | a feature's string id, every kind | properties table's first column |
| gauge.*, flow_line.* (name.{i}) | layer upload, PATCH gauges/ flow-lines/ | none: neither map draws them |
| dataset.title.<kind> | the layer upload's file name | none |
| series.name.{i} | POST time-series/ | Hydrology panel (heading, other series) |
| u{i} (series units) | POST time-series/ (30 characters: the short form) | Hydrology panel |
| series.location_name.{i}, series.source.{i} | POST time-series/ | Hydrology panel |
| series.description.{i} | POST time-series/ | none |
| scenario.name.{i} | POST scenarios/, POST scenarios/<id>/clone/ | Scenario and Run panels, MCP App titles |
| scenario.description.{i} | POST scenarios/, PATCH scenarios/<id>/ | Scenario panel |
| event.name | POST events/ | Observations and Comparison panels, MCP App comparison title |
| event.description | POST events/ | Observations panel |
| observation.source, observation.notes | POST observations/ | none |
| suggestion.summary, .details, .workflow | POST capability-suggestions/ | none |
| activity.client | every call's X-Hydrata-Client header | /agents/ activity table |
| activity.path | a request's path (execution-status/<payload>) | /agents/ activity table |

Not writable by a draft key, so not here: input row titles (the default rows'), time zones and projections
(parsed), choice fields (boundary, location, inflow type, series type, quantity), numbers, grant names and
connected apps' names (the owner's, or the connect flow's). The owner's run (tests.factories.make_finished_run:
a draft key cannot start one) gives the Run panel, the MCP App's run view and a comparison something to show.
"""

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Dialog, Frame, Page
from shapely.geometry import shape

from hydrata.anuga.models import Run, Scenario
from tests.browser import Visit, off_the_browser_thread, sign_in, visit, wait_for_panel
from tests.data import DEM
from tests.factories import make_finished_run, make_grant, make_user
from tests.hydrata.map.browser.conftest import PASSWORD
from tests.hydrata.map.browser.test_mcp_app import open_in_host
from tests.model_setup import KIND_PATHS, PROJECTS, SHARED_TLS, until

OWNER = "xss-owner"
CRS = {"type": "name", "properties": {"name": "EPSG:28356"}}
WEST, SOUTH, CELL = 251000.0, 6271800.0, 40.0  # small_test's 200 m square in 5 x 5 cells, one feature in each
CALL_HOME = re.compile(r"__xss\.push\('([^']+)'\)")
INIT = "window.__xss = [];"
ELEMENTS_MADE = """() => Array.from(document.querySelectorAll('img[src="x"], [onerror], [onload], script'))
  .map(node => node.outerHTML).filter(html => html.includes('__xss'))"""
HOVER_ALL = """() => document.querySelectorAll('path.leaflet-interactive').forEach(path => {
  ['mouseover', 'mousemove', 'click', 'mouseout'].forEach(type =>
    path.dispatchEvent(new MouseEvent(type, { bubbles: true, clientX: 1, clientY: 1 })));
})"""
# The string property of each kind that a payload fills on each of its three features, and the rest each kind
# needs (hydrata/compute/inputs/input_rules.py).
STRING_PROPERTIES = {
    "boundary": "stage",
    "friction": "note",
    "inflow": "data",
    "rainfall": "data",
    "structure": "note",  # its method is one of three names now, refused otherwise
    "mesh_region": "resolution_units",
    "gauge": "name",
    "flow_line": "name",
    "initial_condition": "name",
    "soil": "name",
}
REQUIRED: dict[str, dict[str, Any]] = {
    "boundary": {"boundary": "Dirichlet", "location": "External"},
    "friction": {"mannings": 0.03},
    "inflow": {"type": "Surface"},
    "mesh_region": {"resolution": 5},
    "structure": {"method": "Raised"},
    "initial_condition": {"depth": 0.5},
    "soil": {"initial_loss_mm": 10, "continuing_loss_mm_h": 2},
}
SHAPES = {"boundary": "line", "inflow": "line", "flow_line": "line", "gauge": "point"}  # polygons otherwise
# labelOf in map_core/styles.js
LABELLED = ("inflow.data", "rainfall.data", "mesh_region.resolution_units", "boundary.stage")
# drawn by both maps
DRAWN_KINDS = ("boundary", "friction", "inflow", "rainfall", "structure", "mesh_region", "initial_condition", "soil")
UNITS_MAX = 30  # TimeSeriesCreate.units
CLIENT_MAX = 100  # AgentActivity.client
SOURCE_MAX = 300  # ObservationCreate.source


def payload(code: str, *, fits: Callable[[str], bool] = lambda text: True) -> str:
    """The longest form of the payload that `fits`, each of its parts calling home with `code` and its name."""
    forms = [
        f"<img src=x onerror=\"__xss.push('{code}:img')\"><script>__xss.push('{code}:script')</script>"
        f"\"><svg onload=__xss.push('{code}:svg')>",
        f"<img src=x onerror=\"__xss.push('{code}:img')\">\"><svg onload=__xss.push('{code}:svg')>",
        f"<svg onload=__xss.push('{code}')>",
    ]
    return next(form for form in forms if fits(form))


def no_slash(text: str) -> bool:
    """For a file name or a path segment, which end at a slash."""
    return "/" not in text


def at_most(limit: int) -> Callable[[str], bool]:
    return lambda text: len(text) <= limit


@dataclass
class Agent:
    """A draft key's REST client, and each payload it stored: those a page shows and those no page shows."""

    http: httpx.Client
    shown: dict[str, str] = field(default_factory=dict)
    hidden: dict[str, str] = field(default_factory=dict)

    def text(self, code: str, *, shown: bool = True, fits: Callable[[str], bool] = lambda text: True) -> str:
        text = payload(code, fits=fits)
        (self.shown if shown else self.hidden)[code] = text
        return text

    def call(self, method: str, path: str, status: int = 201, **kwargs: Any) -> dict:
        response = self.http.request(method, path, **kwargs)
        assert response.status_code == status, (method, path, response.status_code, response.text)
        return response.json()


@dataclass
class Stored:
    url: str
    key: str
    project_id: int
    base_map: int
    rows: dict[str, int]  # kind -> its default row
    features: dict[int, list[dict]]  # row -> its features in WGS84, as the map reads them
    series: list[int]
    scenarios: list[int]
    run_id: int
    event_id: int
    comparison_id: int
    shown: dict[str, str]  # code -> payload, of the strings a page shows
    hidden: dict[str, str]  # code -> payload, of the strings stored but shown on no page


def cell(index: int) -> tuple[float, float]:
    return WEST + CELL * (index % 5), SOUTH + CELL * (index // 5)


def geometry(kind: str, index: int) -> dict:
    x, y = cell(index)
    if SHAPES.get(kind) == "line":
        return {"type": "LineString", "coordinates": [[x + 5, y + 20], [x + 35, y + 20]]}
    if SHAPES.get(kind) == "point":
        return {"type": "Point", "coordinates": [x + 20, y + 20]}
    ring = [[x + 5, y + 5], [x + 35, y + 5], [x + 35, y + 35], [x + 5, y + 35], [x + 5, y + 5]]
    return {"type": "Polygon", "coordinates": [ring]}


def layer(agent: Agent, kind: str, first_cell: int) -> dict:
    """Three features of `kind`, each in a cell of its own: a payload in the kind's string property of each, and
    in an extra property (the first), a property's name (the second) and the feature's id (the third)."""
    shown = kind in DRAWN_KINDS
    features = []
    for number in (1, 2, 3):
        string_property = STRING_PROPERTIES[kind]
        properties = {
            **REQUIRED.get(kind, {}),
            string_property: agent.text(f"{kind}.{string_property}.{number}", shown=shown),
        }
        feature: dict[str, Any] = {"type": "Feature", "geometry": geometry(kind, first_cell + number - 1)}
        if number == 1:
            properties["comment"] = agent.text(f"{kind}.comment", shown=shown)
        if number == 2:
            properties[agent.text(f"{kind}.key", shown=shown)] = "a value under that name"
        if number == 3:
            feature["id"] = agent.text(f"{kind}.id", shown=shown)
        features.append({**feature, "properties": properties})
    return {"type": "FeatureCollection", "crs": CRS, "features": features}


def upload_started(agent: Agent, kind: str, collection: dict) -> str:
    name = agent.text(f"dataset.title.{kind}", shown=False, fits=no_slash) + ".geojson"
    files = {"base_file": (name, json.dumps(collection).encode(), "application/geo+json")}
    return agent.call("POST", "/api/v2/uploads/upload/", files=files)["execution_id"]


def dataset_imported(agent: Agent, execution_id: str) -> int:
    path = f"/api/v2/resource-service/execution-status/{execution_id}"
    status = until(lambda: agent.http.get(path).json(), lambda s: s["status"] in ("finished", "failed"))
    assert status["status"] == "finished", status
    return status["output_params"]["resources"][0]["id"]


def project_with_layers(agent: Agent) -> tuple[dict, dict[str, int], dict[int, list[dict]]]:
    """A project named by a payload, its terrain titled by one, and a layer of every kind attached to its row
    (uploads and the terrain import run on the worker side by side)."""
    project = agent.call("POST", PROJECTS, json={"name": agent.text("project.name"), "projection": "EPSG:28356"})
    here = f"{PROJECTS}{project['id']}/"
    filename = agent.text("terrain.filename", shown=False, fits=no_slash) + ".tif"
    terrain = agent.call(
        "POST",
        f"{here}terrain/upload/",
        202,
        files={"file": (filename, DEM.read_bytes(), "image/tiff")},
        data={"title": agent.text("terrain.title")},
    )
    uploads = {
        kind: upload_started(agent, kind, layer(agent, kind, 3 * order)) for order, kind in enumerate(STRING_PROPERTIES)
    }
    terrain = until(
        lambda: agent.http.get(f"{here}terrain/{terrain['id']}/").json(), lambda t: t["status"] in ("ready", "error")
    )
    assert terrain["status"] == "ready", terrain
    rows = {kind: found[0]["id"] for kind, found in agent.call("GET", f"{here}inputs/", 200).items()}
    features = {}
    for kind, execution_id in uploads.items():
        path = f"{here}{KIND_PATHS[kind]}/{rows[kind]}/"
        agent.call("PATCH", path, 200, json={"gn_layer": dataset_imported(agent, execution_id)})
        features[rows[kind]] = agent.call("GET", f"{path}features/", 200)["features"]
    return project, rows, features


def time_series(agent: Agent, here: str) -> list[int]:
    made = []
    for number in (1, 2, 3):
        body = {name: agent.text(f"series.{name}.{number}") for name in ("name", "location_name", "source")}
        body["units"] = agent.text(f"u{number}", fits=at_most(UNITS_MAX))  # series.units
        body["description"] = agent.text(f"series.description.{number}", shown=False)
        rows = [{"timestamp": f"2024-01-01T00:{minute}:00Z", "value": 1} for minute in (10, 20)]
        # generic: the one type whose units are free text (a hyetograph's are mm/hr, mm/interval or mm cumulative)
        made.append(
            agent.call(
                "POST", f"{here}time-series/", json={**body, "series_type": "generic", "data": {"rowData": rows}}
            )["id"]
        )
    return made


def scenarios(agent: Agent, here: str) -> list[int]:
    """Named and described through each way there is: created, changed, cloned."""
    first = {"name": agent.text("scenario.name.1"), "description": agent.text("scenario.description.1")}
    second = {"name": agent.text("scenario.name.2")}
    made = [
        agent.call("POST", f"{here}scenarios/", json={**body, "resolution": 10, "duration": 60})["id"]
        for body in (first, second)
    ]
    made.append(
        agent.call("POST", f"{here}scenarios/{made[0]}/clone/", json={"name": agent.text("scenario.name.3")})["id"]
    )
    for number, scenario in ((2, made[1]), (3, made[2])):
        description = agent.text(f"scenario.description.{number}")
        agent.call("PATCH", f"{here}scenarios/{scenario}/", 200, json={"description": description})
    return made


def owners_run(scenario_id: int) -> Run:
    """A draft key cannot start a run: the owner's, results and all."""
    scenario = Scenario.objects.select_related("project").get(pk=scenario_id)
    return make_finished_run(scenario.project, scenario=scenario)


def compared(agent: Agent, here: str, run: Run) -> tuple[int, int]:
    """A flood event and an observation, compared with the run: the event's id and the comparison's."""
    event = {"name": agent.text("event.name"), "description": agent.text("event.description")}
    event_id = agent.call("POST", f"{here}events/", json={**event, "started_at": "2024-01-01T00:00:00Z"})["id"]
    x, y = cell(12)
    observation = {"event": event_id, "x": x + 20, "y": y + 20, "quantity": "peak_depth", "value_m": 0.5}
    observation["source"] = agent.text("observation.source", shown=False, fits=at_most(SOURCE_MAX))
    observation["notes"] = agent.text("observation.notes", shown=False)
    agent.call("POST", f"{here}observations/", json=observation)
    return event_id, agent.call("POST", f"/api/v2/anuga/runs/{run.pk}/compare/", json={"event": event_id})["id"]


def store_everything(url: str) -> Stored:
    """Every string a draft key can write, written through the REST API; and the owner's run."""
    owner = make_user(OWNER, password=PASSWORD)
    _, key = make_grant(owner, level="draft", name="xss draft")
    client = payload("activity.client", fits=at_most(CLIENT_MAX))
    headers = {"Authorization": f"Bearer {key}", "X-Hydrata-Client": client}
    with httpx.Client(base_url=url, headers=headers, timeout=120, verify=SHARED_TLS) as http:
        agent = Agent(http, shown={"activity.client": client})
        project, rows, features = project_with_layers(agent)
        here = f"{PROJECTS}{project['id']}/"
        series = time_series(agent, here)
        made = scenarios(agent, here)
        run = owners_run(made[0])
        event_id, comparison_id = compared(agent, here, run)
        suggestion = {
            name: agent.text(f"suggestion.{name}", shown=False) for name in ("summary", "details", "workflow")
        }
        agent.call("POST", "/api/v2/capability-suggestions/", json=suggestion)
        # Last, so it is among the latest activity the /agents/ page lists: a path the API answers 404.
        agent.call(
            "GET", f"/api/v2/resource-service/execution-status/{agent.text('activity.path', fits=no_slash)}", 404
        )
    return Stored(
        url=url,
        key=key,
        project_id=project["id"],
        base_map=project["base_map"],
        rows=rows,
        features=features,
        series=series,
        scenarios=made,
        run_id=run.pk,
        event_id=event_id,
        comparison_id=comparison_id,
        shown=agent.shown,
        hidden=agent.hidden,
    )


@pytest.fixture(scope="module")
def stored(live_site) -> Stored:
    return off_the_browser_thread(store_everything, live_site)


@dataclass
class Watch:
    """What the payloads did in the browser, and the text its pages showed."""

    called_home: dict[str, str] = field(default_factory=dict)  # code -> where it first ran or left an element
    dialogs: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)  # where -> the text shown there
    labels: str = ""  # the text of the map's labels (Leaflet tooltips) of every feature
    unclicked: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # the pages' own API requests that answered an error

    def tab(self, browser: Browser, origin: str) -> Visit:
        tab = visit(browser, origin)
        tab.context.add_init_script(INIT)
        tab.page.on("dialog", self.dismiss)
        return tab

    def dismiss(self, dialog: Dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def read(self, where: str, target: Page | Frame) -> None:
        """The text `target` shows now, and what the payloads did there: calls home, and elements they made."""
        self.texts[where] = target.evaluate("() => document.title + '\\n' + document.body.innerText")
        calls = target.evaluate("() => window.__xss")
        assert calls is not None, f"{where}: the init script did not run, so a payload could run unseen"
        made = [code + " (element)" for html in target.evaluate(ELEMENTS_MADE) for code in CALL_HOME.findall(html)]
        for code in calls + made:
            self.called_home.setdefault(code, where)


def mercator(latitude: float) -> float:
    return math.log(math.tan(math.pi / 4 + math.radians(latitude) / 2))


def on_screen(page: Page, lon: float, lat: float) -> tuple[float, float] | None:
    """Where a WGS84 point is on the screen, from the map's recorded bounds (Leaflet's web mercator)."""
    box = page.locator("#map").bounding_box()
    assert box is not None
    west, south, east, north = json.loads(page.eval_on_selector("#map", "element => element.dataset.bounds"))
    x = box["x"] + (lon - west) / (east - west) * box["width"]
    y = box["y"] + (mercator(north) - mercator(lat)) / (mercator(north) - mercator(south)) * box["height"]
    inside = box["x"] + 5 < x < box["x"] + box["width"] - 5 and box["y"] + 5 < y < box["y"] + box["height"] - 5
    return (x, y) if inside else None


def points_on(feature: dict) -> list[tuple[float, float]]:
    """Points of the feature to click, best first: a line's middle and along it, a polygon's centre and towards
    its corners."""
    drawn = shape(feature["geometry"])
    if drawn.geom_type == "LineString":
        return [
            (point.x, point.y) for point in (drawn.interpolate(f, normalized=True) for f in (0.5, 0.3, 0.7, 0.1, 0.9))
        ]
    centre = drawn.centroid
    corners = list(drawn.exterior.coords)[:-1]
    return [(centre.x, centre.y)] + [
        (centre.x + f * (x - centre.x), centre.y + f * (y - centre.y)) for f in (0.5, 0.8) for x, y in corners
    ]


def clickable_spot(page: Page, feature: dict) -> tuple[float, float] | None:
    """The first point of the feature on the screen where the map's canvas, not a control over it, takes a click."""
    for point in points_on(feature):
        spot = on_screen(page, *point)
        if spot and page.evaluate("([x, y]) => document.elementFromPoint(x, y)?.tagName", list(spot)) == "CANVAS":
            return spot
    return None


def map_still(page: Page) -> None:
    """Wait until the map has stopped moving: a popup pans the map to fit (animated), and the bounds a feature is
    located by are recorded when the move ends, so a spot read mid-pan misses the feature."""
    bounds = None
    for _ in range(50):
        page.wait_for_timeout(100)
        moving = page.evaluate("() => document.querySelector('#map .leaflet-pan-anim, #map .leaflet-zoom-anim')")
        now = page.eval_on_selector("#map", "element => element.dataset.bounds")
        if now == bounds and not moving:
            return
        bounds = now


def popup_opened(page: Page, feature: dict) -> str | None:
    """Click the feature where the canvas takes it, once more if the map moved meanwhile; why not, if it fails."""
    why = "off the map or under a control"
    for _ in range(3):
        map_still(page)
        spot = clickable_spot(page, feature)
        if spot is None:
            return why
        page.mouse.move(*spot)
        page.mouse.click(*spot)
        try:
            page.wait_for_selector(".leaflet-popup-content", timeout=2_000)
            return None
        except Exception:
            why = "no popup opened"
    return why


def hover_and_click(tab: Visit, watch: Watch, features: list[dict], where: str) -> None:
    """Hover (labels) and click (popups) each feature on the map's canvas, reading what each shows."""
    page = tab.page
    # The map is the window's height less the header's, which a long project name makes taller.
    page.eval_on_selector("#map", "map => map.scrollIntoView({ block: 'end' })")
    for number, feature in enumerate(features, start=1):
        why = popup_opened(page, feature)
        if why is not None:
            watch.unclicked.append(f"{where} {number}: {why}")
            continue
        watch.read(f"{where} {number}, its popup", page)
        page.eval_on_selector(".leaflet-popup-close-button", "button => button.click()")  # under a control, maybe
        page.wait_for_selector(".leaflet-popup", state="detached")


def open_panel(tab: Visit, watch: Watch, stored: Stored, query: str, where: str, *, state: str = "ready") -> None:
    # Only the fragment changes: marked, the panel left behind is not taken for the one asked for.
    tab.page.eval_on_selector("#panel", "panel => { panel.dataset.state = 'left'; }")
    tab.page.goto(f"{stored.url}/catalogue/#/map/{stored.base_map}?{query}")
    wait_for_panel(tab, re.match(r"panel=(\w+)", query).group(1), state=state)  # type: ignore[union-attr]
    watch.read(where, tab.page)


def visit_the_site(browser: Browser, stored: Stored, watch: Watch) -> None:
    """The owner, signed in, on every page and panel that shows what the agent stored."""
    tab = watch.tab(browser, stored.url)
    try:
        sign_in(tab, f"{stored.url}/catalogue/", username=OWNER, password=PASSWORD)
        watch.read("catalogue", tab.page)
        open_panel(tab, watch, stored, "panel=terrain", "Terrain panel")
        open_panel(tab, watch, stored, "panel=inputs", "Inputs panel")
        watch.labels = "\n".join(tab.page.locator(".leaflet-tooltip").all_text_contents())
        for kind in DRAWN_KINDS:
            hover_and_click(tab, watch, stored.features[stored.rows[kind]], f"map, {kind} feature")
        for kind in DRAWN_KINDS:
            open_panel(tab, watch, stored, f"panel=inputs&layer={stored.rows[kind]}", f"Inputs panel, {kind} row")
        for series in stored.series:
            open_panel(tab, watch, stored, f"panel=hydrology&layer={series}", f"Hydrology panel, series {series}")
        open_panel(tab, watch, stored, "panel=scenario", "Scenario panel, the list")
        for scenario in stored.scenarios:
            open_panel(tab, watch, stored, f"panel=scenario&scenario={scenario}", f"Scenario panel, {scenario}")
        open_panel(tab, watch, stored, "panel=run", "Run panel, the list")
        open_panel(tab, watch, stored, f"panel=run&run={stored.run_id}", "Run panel")
        for panel in ("observations", "comparison"):
            open_panel(tab, watch, stored, f"panel={panel}", f"{panel} panel, the events")
        compared = f"event={stored.event_id}&run={stored.run_id}"
        open_panel(tab, watch, stored, f"panel=observations&{compared}", "Observations panel, the event")
        open_panel(tab, watch, stored, f"panel=comparison&comparison={stored.comparison_id}&{compared}", "Comparison")
        tab.page.goto(f"{stored.url}/agents/")
        watch.read("/agents/", tab.page)
        watch.refused += [f"{r.status} {r.url}" for r in tab.responses_to(r"/api/") if r.status >= 400]
    finally:
        tab.close()


def visit_the_mcp_app(browser: Browser, stored: Stored, watch: Watch) -> None:
    """The MCP App's view of each tool result that names what the agent stored, in a host page; every shape
    hovered and clicked. (get_run_results names nothing get_run does not.)"""
    views = [
        ("get_scenario", {"project_id": stored.project_id, "scenario_id": stored.scenarios[1]}),
        ("get_run", {"run_id": stored.run_id}),
        ("get_comparison", {"comparison_id": stored.comparison_id}),
    ]
    for tool, arguments in views:
        tab = watch.tab(browser, stored.url)
        try:
            app = open_in_host(tab, stored, tool, arguments)
            app.locator("#facts dt:has-text('Layers')").wait_for(timeout=30_000)
            element = tab.page.query_selector("#app")
            frame = element.content_frame() if element else None
            assert frame is not None
            frame.evaluate(HOVER_ALL)
            watch.read(f"MCP App, {tool}", frame)
            watch.read(f"MCP App host page, {tool}", tab.page)
        finally:
            tab.close()


def test_every_string_a_draft_agent_stores_shows_as_text_and_never_runs_in_the_owners_browser(browser, stored):
    watch = Watch()

    visit_the_site(browser, stored, watch)
    visit_the_mcp_app(browser, stored, watch)

    seen = "\n".join(watch.texts.values())
    problems = {
        "could not be clicked": watch.unclicked,
        "asked the API for something it refused": watch.refused,
        "ran, or made an element, in the owner's browser": [
            f"{code} (first seen: {where})" for code, where in sorted(watch.called_home.items())
        ],
        "opened a dialog": watch.dialogs,
        "not shown as the text stored": sorted(code for code, text in stored.shown.items() if text not in seen),
        "not in the map's labels as the text stored": sorted(
            code for code, text in stored.shown.items() if code.startswith(LABELLED) and text not in watch.labels
        ),
        "shown after all (the table above says no page does)": sorted(
            code for code, text in stored.hidden.items() if text in seen
        ),
    }
    assert not any(problems.values()), "\n".join(
        f"{what}:\n  " + "\n  ".join(items) for what, items in problems.items() if items
    )
