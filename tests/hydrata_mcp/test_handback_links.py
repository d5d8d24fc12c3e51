"""Every tool that hands back a link names exactly what it changed or found: the project's map, the panel the map
has for it, and the ids of the layer, scenario, run, event, comparison and design study, read here without a browser.

One agent with a launch key walks the whole product through the official client (project, terrain, layers, a
series, scenarios, a build, a start and a cancel, a retry, a design study, observations, comparisons, a ranking,
an impact), with the owner's finished runs beside its own; each link is parsed and held to the ids the platform
returned, and no tool asked the platform for a project only to build one. A second walk reads what the first does
not, and between them every tool whose answer carries a link is walked."""

import asyncio
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from asgiref.sync import sync_to_async
from django.core.signals import request_started

from config.celery import app as celery_app
from hydrata.anuga.models import Run, Scenario
from hydrata_contract.states import RunStatus
from hydrata_mcp.tools.registry import registered_tools
from tests.data import BOUNDARY, RAINFALL
from tests.factories import make_finished_run, make_grant, make_project, make_user
from tests.hydrata.observations.helpers import INSIDE, api_for, event_of, observation, point, points, upload
from tests.hydrata.studies.helpers import uploaded_inputs
from tests.hydrata_mcp.test_model_building import put_terrain, upload_geojson
from tests.mcp_client import mcp_client
from tests.processes import ROOT

pytestmark = pytest.mark.django_db(transaction=True)

MAIN_JS = ROOT / "hydrata" / "map" / "static" / "map" / "main.js"
RAIN_ROWS = [{"timestamp": "2024-01-01T00:00:00Z", "value": 0.0}, {"timestamp": "2024-01-01T00:15:00Z", "value": 5}]


def map_panels() -> set[str]:
    """The panel names the map's page opens (PANEL_NAMES in its main.js)."""
    table = re.search(r"var PANEL_NAMES = \{(.*?)\};", MAIN_JS.read_text(), re.S)
    assert table, "PANEL_NAMES not found in main.js"
    return set(re.findall(r'"([\w-]+)":', table.group(1)))


def link_of(site: str, result) -> tuple[int, dict[str, str]]:
    """The map id and the query of a hand-back link (one value per key)."""
    assert not result.is_error, result.content[0].text
    parts = urlsplit(result.structured_content["ui_url"])
    assert f"{parts.scheme}://{parts.netloc}" == site and parts.path == "/catalogue/" and not parts.query
    match = re.fullmatch(r"/map/(\d+)(?:\?(.*))?", parts.fragment)
    assert match, parts.fragment
    query = {key: values[0] for key, values in parse_qs(match.group(2) or "").items()}
    assert all(len(values) == 1 for values in parse_qs(match.group(2) or "").values())
    return int(match.group(1)), query


Expected = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]


class Walk:
    """Each tool's link beside what it should say."""

    def __init__(self, site: str, client) -> None:
        self.site, self.client = site, client
        self.base_map = 0
        self.seen: dict[str, tuple[dict[str, str], dict[str, Any]]] = {}

    async def call(self, tool: str, arguments: dict[str, Any], *, expect: Expected | None = None, as_: str = ""):
        """The tool's result; with `expect` (the query its link should carry, or a function of the result giving
        it, for the ids the call itself made), its link is recorded beside that."""
        result = await self.client.call_tool(tool, arguments)
        assert not result.is_error, (tool, result.content[0].text)
        if expect is not None:
            base_map, query = link_of(self.site, result)
            assert base_map == self.base_map, (tool, base_map)
            wanted = expect(result.structured_content) if callable(expect) else expect
            self.seen[as_ or tool] = (query, {key: str(value) for key, value in wanted.items()})
        return result.structured_content


@sync_to_async
def owners_run(scenario_id: int) -> int:
    """A second complete run of the scenario on the same grid, to compare with (written by the simulation's own
    writer; it has no package, so it is compared, never ranked)."""
    scenario = Scenario.objects.select_related("project").get(pk=scenario_id)
    return make_finished_run(scenario.project, scenario=scenario, stage_above_ground=0.2).pk


@sync_to_async
def errored(run_id: int) -> None:
    Run.objects.filter(pk=run_id).update(status=RunStatus.ERROR)


def platform_paths() -> list[str]:
    """The path of every request the platform's REST API is asked, as it starts (the live server shares this
    process); the list fills while the test runs."""
    paths: list[str] = []

    def record(sender, scope=None, **kwargs) -> None:
        if scope is not None:
            paths.append(scope["path"])

    request_started.connect(record, weak=False, dispatch_uid="handback-links-paths")
    return paths


def test_every_link_a_tool_hands_back_opens_the_map_on_exactly_what_the_tool_changed_or_found(live_asgi):
    _, key = make_grant(level="launch")
    paths = platform_paths()

    async def walk() -> Walk:
        async with mcp_client(live_asgi.url, key) as client:
            w = Walk(live_asgi.url, client)
            created = await client.call_tool("create_project", {"name": "Links", "projection": "EPSG:28356"})
            pid, w.base_map = created.structured_content["id"], created.structured_content["base_map"]
            base_map, query = link_of(live_asgi.url, created)
            assert base_map == w.base_map
            w.seen["create_project"] = (query, {})  # the map alone
            presigned = await put_terrain(client, pid)
            finalized = await w.call(
                "finalize_terrain_upload",
                {"project_id": pid, "staging_key": presigned["staging_key"], "process_id": presigned["process_id"]},
                expect=lambda terrain: {"panel": "terrain", "layer": terrain["id"]},
            )
            await w.call(
                "get_terrain",
                {"project_id": pid, "timeout_seconds": 60, "poll_interval_seconds": 2},
                expect={"panel": "terrain", "layer": finalized["id"]},
            )
            for kind, path in (("boundary", BOUNDARY), ("rainfall", RAINFALL)):
                execution = await upload_geojson(live_asgi.url, key, path)
                await w.call(
                    "attach_input_layer",
                    {"project_id": pid, "kind": kind, "execution_id": execution},
                    expect=lambda attached: {"panel": "inputs", "layer": attached["row_id"]},
                    as_=f"attach_input_layer ({kind})",
                )
            await w.call(
                "create_time_series",
                {
                    "project_id": pid,
                    "name": "Rain",
                    "data": {"rowData": RAIN_ROWS},
                    "series_type": "hyetograph",
                    "units": "mm/hr",
                },
                expect=lambda series: {"panel": "time-series", "layer": series["id"]},
            )
            scenario = await w.call(
                "create_scenario",
                {"project_id": pid, "name": "base", "resolution": 10, "duration": 60},
                expect=lambda scenario: {"panel": "scenario", "scenario": scenario["id"]},
            )
            sid = scenario["id"]
            await w.call(
                "update_scenario",
                {"project_id": pid, "scenario_id": sid, "description": "changed"},
                expect={"panel": "scenario", "scenario": sid},
            )
            clone = await w.call(
                "clone_scenario",
                {"project_id": pid, "scenario_id": sid, "name": "copy"},
                expect=lambda clone: {"panel": "scenario", "scenario": clone["id"]},
            )
            await w.call(
                "build_scenario",
                {"project_id": pid, "scenario_id": sid, "poll_interval_seconds": 2},
                expect=lambda built: {"panel": "scenario", "scenario": sid, "run": built["run_id"]},
            )
            # A real run of the base (computed in the web process: the tasks run eagerly until told otherwise)...
            computed = await w.call(
                "start_simulation",
                {"scenario_id": sid},
                expect=lambda started: {"panel": "run", "scenario": sid, "run": started["id"]},
            )
            first = computed["id"]
            # ...and one of the copy that only queues, to cancel and retry.
            await w.call("build_scenario", {"project_id": pid, "scenario_id": clone["id"], "poll_interval_seconds": 2})
            celery_app.conf.task_always_eager = False
            queued = await w.call("start_simulation", {"scenario_id": clone["id"]})
            run_id = queued["id"]
            await w.call(
                "cancel_run", {"run_id": run_id}, expect={"panel": "run", "scenario": clone["id"], "run": run_id}
            )
            await errored(run_id)
            await w.call(
                "retry_run",
                {"run_id": run_id},
                expect=lambda retry: {"panel": "run", "scenario": clone["id"], "run": retry["id"]},
            )
            # A design study of the built base: made, read, started (its members only queue) and cancelled.
            inputs = await asyncio.to_thread(uploaded_inputs, live_asgi.url, key, pid)
            study = await w.call(
                "create_design_study",
                {"project_id": pid, "base_scenario_id": sid, **inputs, "aeps": ["1%"], "durations_min": [30]},
                expect=lambda study: {"panel": "study", "scenario": sid, "study": study["id"]},
            )
            for tool in ("get_design_study", "start_design_study", "cancel_design_study"):
                await w.call(
                    tool,
                    {"project_id": pid, "study_id": study["id"]},
                    expect={"panel": "study", "scenario": sid, "study": study["id"]},
                )

            # A calibration study of the built base against an event with one observation: made, started (its
            # members only queue), read and cancelled, each linking the Calibration panel on it.
            marked = await w.call(
                "create_flood_event",
                {"project_id": pid, "name": "Calibration", "started_at": "2022-03-01T00:00:00Z"},
                as_="create_flood_event (calibration)",
            )
            await w.call(
                "create_observation",
                {"project_id": pid, "event_id": marked["id"], "quantity": "peak_depth", "value_m": 0.5, "x": 251010.0,
                 "y": 6271810.0},
                as_="create_observation (calibration)",
            )  # fmt: skip
            calibration = await w.call(
                "create_calibration_study",
                {
                    "project_id": pid,
                    "base_scenario_id": sid,
                    "event_id": marked["id"],
                    "parameters": [{"target": "rain", "low": 0.5, "high": 2.0}],
                    "budget": 2,
                },
                expect=lambda study: {"panel": "calibration", "scenario": sid, "study": study["id"]},
            )
            for tool in ("start_calibration_study", "get_calibration_study", "cancel_calibration_study"):
                await w.call(
                    tool,
                    {"project_id": pid, "study_id": calibration["id"]},
                    expect={"panel": "calibration", "scenario": sid, "study": calibration["id"]},
                )
            await w.call(
                "get_map_depth_overlay", {"run_id": first}, expect={"panel": "run", "scenario": sid, "run": first}
            )
            second = await owners_run(sid)
            await w.call(
                "compare_runs",
                {"run_id": first, "other_run_id": second},
                expect={"panel": "run", "scenario": sid, "run": first, "compare": second},
            )
            event = await w.call(
                "create_flood_event",
                {"project_id": pid, "name": "March 2022", "started_at": "2022-03-01T00:00:00Z"},
                expect=lambda event: {"panel": "observations", "event": event["id"]},
            )
            eid = event["id"]
            point = {"event_id": eid, "quantity": "peak_depth", "value_m": 0.5, "x": 251010.0, "y": 6271810.0}
            observation = await w.call(
                "create_observation", {"project_id": pid, **point}, expect={"panel": "observations", "event": eid}
            )
            await w.call(
                "update_observation",
                {"project_id": pid, "observation_id": observation["id"], "value_m": 0.6},
                expect={"panel": "observations", "event": eid},
            )
            compared = await w.call(
                "compare_run_with_observations",
                {"run_id": first, "event_id": eid},
                expect=lambda comparison: {
                    "panel": "comparison",
                    "run": first,
                    "event": eid,
                    "comparison": comparison["id"],
                },
            )
            await w.call(
                "recompute_comparison",
                {"comparison_id": compared["id"]},
                expect={"panel": "comparison", "run": first, "event": eid, "comparison": compared["id"]},
            )
            await w.call(
                "rank_runs_against_observations",
                {"project_id": pid, "event_id": eid, "run_ids": [first]},
                expect=lambda ranked: {
                    "panel": "comparison",
                    "event": eid,
                    "run": ranked["results"][0]["run"],
                    "comparison": ranked["results"][0]["comparison"],
                },
            )
            await w.call(
                "delete_observation",
                {"project_id": pid, "observation_id": observation["id"]},
                expect={"panel": "observations", "event": eid},
            )
            return w

    try:
        w = asyncio.run(walk())
    finally:
        request_started.disconnect(dispatch_uid="handback-links-paths")

    wrong = {tool: (query, wanted) for tool, (query, wanted) in w.seen.items() if query != wanted}
    assert not wrong, "\n".join(
        f"{tool}: handed back {query}, should be {wanted}" for tool, (query, wanted) in wrong.items()
    )
    panels = {query.get("panel") for query, _ in w.seen.values()} - {None}
    assert panels <= map_panels(), f"links to panels the map does not have: {panels - map_panels()}"
    assert len(w.seen) >= 24
    # The platform puts each link in its answers, so no tool asks for the project only to build one.
    assert paths and not [path for path in paths if re.fullmatch(r"/api/v2/anuga/projects/\d+/", path)]


@sync_to_async
def upload_marks(owner) -> str:
    """A GeoJSON of one high-water mark, uploaded and imported as the owner: its execution id."""
    marks = points(point(INSIDE[0], INSIDE[1], depth=0.5))
    return upload(api_for(owner), "marks.geojson", marks)["exec_id"]


@sync_to_async
def finished_project(owner) -> dict[str, int]:
    """A project with a complete run (written by the simulation's own writer, no simulation) and a comparison of
    it with an event, arranged through the REST API as the owner."""
    project = make_project(owner)
    run = make_finished_run(project)
    client = api_for(owner)
    event = event_of(client, project.pk)
    assert observation(client, project.pk, event["id"]).status_code == 201
    compared = client.post(f"/api/v2/anuga/runs/{run.pk}/compare/", {"event": event["id"]}, format="json")
    assert compared.status_code == 201, compared.content
    return {
        "project": project.pk,
        "map": project.base_map_id,
        "scenario": run.scenario_id,
        "run": run.pk,
        "event": event["id"],
        "comparison": compared.json()["id"],
    }


# The tools the walk above holds to their links; the walk below holds every other tool that hands one back.
WALKED_WITH_A_RUN = {
    "create_project", "finalize_terrain_upload", "get_terrain", "attach_input_layer", "create_time_series",
    "create_scenario", "update_scenario", "clone_scenario", "build_scenario", "start_simulation", "cancel_run",
    "retry_run", "get_map_depth_overlay", "compare_runs", "create_flood_event", "create_observation",
    "update_observation", "compare_run_with_observations", "recompute_comparison", "rank_runs_against_observations",
    "delete_observation", "create_design_study", "get_design_study", "start_design_study", "cancel_design_study",
    "create_calibration_study", "start_calibration_study", "get_calibration_study", "cancel_calibration_study",
}  # fmt: skip


def tools_handing_back() -> set[str]:
    """Every tool whose structured result carries a ui_url, from the server's own catalog."""
    return {tool.name for tool in registered_tools() if "ui_url" in (tool.output_schema or {}).get("properties", {})}


def test_every_other_tool_that_hands_back_opens_the_map_on_what_it_read_or_imported(live_asgi):
    owner = make_user("reader")
    _, key = make_grant(owner, level="draft")

    async def walk() -> Walk:
        ids = await finished_project(owner)
        pid, sid, rid, eid = ids["project"], ids["scenario"], ids["run"], ids["event"]
        marks = await upload_marks(owner)
        async with mcp_client(live_asgi.url, key) as client:
            w = Walk(live_asgi.url, client)
            w.base_map = ids["map"]
            await w.call("get_project", {"project_id": pid}, expect={})
            await w.call(
                "import_observations",
                {
                    "project_id": pid,
                    "event_id": eid,
                    "execution_id": marks,
                    "quantity": "peak_depth",
                    "value_property": "depth",
                    "poll_interval_seconds": 2,
                },
                expect={"panel": "observations", "event": eid},
            )
            # The map view's own tools (its depth overlay needs a mesh: the walk above asks it of its real run).
            await w.call(
                "get_map_scenario_layers",
                {"project_id": pid, "scenario_id": sid},
                expect={"panel": "scenario", "scenario": sid},
            )
            await w.call(
                "get_map_comparison_points",
                {"comparison_id": ids["comparison"]},
                expect={"panel": "comparison", "run": rid, "event": eid, "comparison": ids["comparison"]},
            )
            # The report's link opens the report page on the site, not the map.
            report = await w.call("get_run_report", {"run_id": rid})
            w.seen["get_run_report"] = ({"page": report["ui_url"]}, {"page": f"{live_asgi.url}/reports/runs/{rid}/"})
            return w

    w = asyncio.run(walk())

    wrong = {tool: (query, wanted) for tool, (query, wanted) in w.seen.items() if query != wanted}
    assert not wrong, "\n".join(
        f"{tool}: handed back {query}, should be {wanted}" for tool, (query, wanted) in wrong.items()
    )
    panels = {query.get("panel") for query, _ in w.seen.values()} - {None}
    assert panels <= map_panels(), f"links to panels the map does not have: {panels - map_panels()}"
    unwalked = tools_handing_back() - WALKED_WITH_A_RUN - set(w.seen)
    assert not unwalked, f"tools that hand back a link no walk checks: {sorted(unwalked)}"
