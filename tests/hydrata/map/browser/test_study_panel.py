"""The Study panel in a real browser, on a real design study: made, started and followed to its envelopes through
the MCP tools on the folder's worker (1% AEP, 5 and 10 minutes, two patterns each: four ANUGA runs of small_test with
gauges and a flow line). The tool's ui_url opens the panel; the AEP's envelope depth, hazard and critical-duration
layers draw their tiles; the box plot's numbers are get_design_study's; the engineer signs a draft study off with
the panel's button; and a person who cannot see the project gets 404 for the panel's data and tiles."""

import asyncio
from dataclasses import dataclass

import morecantile
import numpy as np
import pytest

from hydrata.anuga.models import Terrain
from hydrata.studies.models import DesignStudy
from hydrata_contract.hazard import HazardClass
from tests.browser import off_the_browser_thread, response_is_png, sign_in, visit, wait_for_panel
from tests.factories import make_user
from tests.hydrata.map.browser.conftest import PASSWORD
from tests.hydrata.map.browser.test_map_panels import assert_clean, open_link
from tests.hydrata.studies.helpers import SHORT_FILES, uploaded_inputs
from tests.hydrata_mcp.test_design_study_runs import follow, made_study
from tests.hydrata_mcp.test_results import with_gauges
from tests.mcp_client import mcp_client
from tests.model_setup import PROJECTS, api

ENVELOPE_TILES = r"/design-studies/\d+/tiles/1pct/{layer}/\d+/\d+/\d+\.png"
# A second study's storms, of made_study's design inputs (tests/hydrata_mcp/test_design_study_runs.py).
STORMS = {
    "aeps": ["1%"],
    "durations_min": [5, 10],
    "initial_loss_mm": 5,
    "continuing_loss_mm_h": 1,
}


@dataclass
class Studies:
    project_id: int
    terrain_id: int
    complete: dict  # get_design_study's last answer, with its results
    draft: dict  # create_design_study's answer of a second study of the same base, never started


@pytest.fixture(scope="module")
def studies(site) -> Studies:
    def arrange() -> Studies:
        model = with_gauges(site.url, site.key)
        inputs = uploaded_inputs(site.url, site.key, model.project_id, SHORT_FILES)

        async def session():
            async with mcp_client(site.url, site.key) as client:
                study = await made_study(client, model.project_id, inputs=inputs, duration=300)
                started = await client.call_tool(
                    "start_design_study", {"project_id": model.project_id, "study_id": study["id"]}
                )
                assert not started.is_error, started.content[0].text
                seen = await follow(client, model.project_id, study["id"], {"complete", "error", "cancelled"})
                draft = await client.call_tool(
                    "create_design_study",
                    {"project_id": model.project_id, "base_scenario_id": study["base_scenario"], **inputs, **STORMS},
                )
                assert not draft.is_error, draft.content[0].text
                return seen[-1], draft.structured_content

        complete, draft = asyncio.run(session())
        assert complete["status"] == "complete", complete
        return Studies(model.project_id, model.terrain_id, complete, draft)

    return off_the_browser_thread(arrange)


def get_design_study(site, project_id: int, study_id: int) -> dict:
    async def session():
        async with mcp_client(site.url, site.key) as client:
            got = await client.call_tool("get_design_study", {"project_id": project_id, "study_id": study_id})
            assert not got.is_error, got.content[0].text
            return got.structured_content

    return off_the_browser_thread(asyncio.run, session())


def rest(site, path: str, method: str = "get"):
    def ask():
        with api(site.url, site.key) as http:
            return getattr(http, method)(path)

    return off_the_browser_thread(ask)


def study_path(studies: Studies, study_id: int) -> str:
    return f"{PROJECTS}{studies.project_id}/design-studies/{study_id}/"


def tile_over_model(studies: Studies) -> str:
    bbox = off_the_browser_thread(lambda: Terrain.objects.get(pk=studies.terrain_id).bbox_wgs84)
    tile = next(iter(morecantile.tms.get("WebMercatorQuad").tiles(*bbox, zooms=[18])))
    return f"{tile.z}/{tile.x}/{tile.y}.png"


def test_the_tools_link_opens_the_study_panel_and_an_aeps_envelope_layers_draw_with_their_legends(tab, site, studies):
    link = studies.complete["ui_url"]
    assert "panel=study" in link and f"study={studies.complete['id']}" in link

    open_link(tab, site, link, "study")
    tab.page.wait_for_selector("#study-aep")
    tab.page.select_option("#study-aep", "1%")
    tab.page.wait_for_selector('#map[data-tiles_max_depth="loaded"]')
    tab.page.check("#study-toggle-max_hazard")
    tab.page.check("#study-toggle-critical_duration")
    tab.page.wait_for_selector('#map[data-tiles_max_hazard="loaded"]')
    tab.page.wait_for_selector('#map[data-tiles_critical_duration="loaded"]')
    tab.page.locator("#study-boxes").scroll_into_view_if_needed()
    tab.screenshot("map-study")

    for layer in ("max_depth", "max_hazard", "critical_duration"):
        tiles = tab.responses_to(ENVELOPE_TILES.format(layer=layer))
        assert tiles and all(response_is_png(response) for response in tiles), layer
    live = tab.page.inner_text("#study-live")
    assert "complete" in live and "4 of 4" in live
    assert tab.page.get_attribute("#study-progress", "value") == "100"
    estimate = studies.complete["estimate"]
    assert f"${float(estimate['compute_cost_estimate']):.2f}" in tab.page.inner_text("#panel")
    hazard = tab.page.locator('#map-legend [data-layer="study-max_hazard"]')
    assert hazard.locator(".legend-class").all_text_contents() == [item.label for item in HazardClass]
    durations = tab.page.locator('#map-legend [data-layer="study-critical_duration"]')
    assert durations.locator(".legend-class").all_text_contents() == ["5 min", "10 min"]
    assert_clean(tab)


def test_the_box_plots_numbers_are_get_design_studys_per_gauge_and_flow_line_tables(tab, site, studies):
    answer = get_design_study(site, studies.project_id, studies.complete["id"])
    (aep,) = answer["results"]["aeps"]
    tables = aep["gauges"] + aep["flow_lines"]
    assert {table["name"] for table in tables} == {"middle", "north", "across"}

    open_link(tab, site, studies.complete["ui_url"], "study")
    tab.page.wait_for_selector("#study-series")
    options = tab.page.eval_on_selector_all("#study-series option", "options => options.map(o => o.value)")
    assert len(options) == len(tables)
    for option in options:
        tab.page.select_option("#study-series", option)
        shown = tab.page.get_attribute("#study-boxes", "data-series")
        table = next(table for table in tables if table["name"] == shown)
        tab.page.wait_for_selector(f'#study-boxes[data-series="{shown}"]')
        boxes = tab.page.eval_on_selector_all("#study-boxes g.box", "gs => gs.map(g => Object.assign({}, g.dataset))")
        rows = tab.page.eval_on_selector_all(
            "#study-peaks tbody tr", "rows => rows.map(r => [r.dataset.duration, JSON.parse(r.dataset.peaks)])"
        )
        expected_rows = [(row["duration_min"], row["peaks"]) for row in table["durations"]]
        assert [(int(duration), peaks) for duration, peaks in rows] == expected_rows
        assert len(boxes) == len(table["durations"]), (shown, boxes)
        for box, row in zip(boxes, table["durations"], strict=True):
            peaks = np.array([peak for peak in row["peaks"] if peak is not None])
            assert int(box["duration"]) == row["duration_min"]
            assert float(box["central"]) == pytest.approx(row["central"], abs=1e-12)
            expected = [peaks.min(), *np.percentile(peaks, [25, 50, 75]), peaks.max()]
            drawn = [float(box[key]) for key in ("min", "q1", "median", "q3", "max")]
            assert drawn == pytest.approx(expected, abs=1e-12), (shown, row)
            assert (box["critical"] == "true") == (row["duration_min"] == table["critical_duration_min"])
    tab.page.select_option("#study-series", options[0])
    assert_clean(tab)


def test_the_engineer_signs_a_study_off_in_the_panel_and_an_outsider_gets_404_for_its_data_and_tiles(
    browser, tab, site, studies
):
    draft = studies.draft
    before = rest(site, study_path(studies, draft["id"])).json()["approval"]
    assert not before["approved"]

    open_link(tab, site, draft["ui_url"], "study")
    assert tab.page.inner_text("#study-fingerprint") == before["fingerprint"]
    assert f"{draft['estimate']['members']} storms" in tab.page.inner_text("#study-sign-off")
    tab.page.click("#study-approve")
    tab.page.wait_for_selector("#study-sign-off[data-approved=true]")
    tab.screenshot("map-study-signed-off")

    after = rest(site, study_path(studies, draft["id"])).json()["approval"]
    assert after["approved"] and [entry["by"] for entry in after["approvals"]] == [site.username]
    assert f"Signed off for its runs by {site.username}" in tab.page.inner_text("#study-sign-off")
    agent = rest(site, study_path(studies, draft["id"]) + "approve/", method="post")
    assert agent.status_code == 403 and agent.json()["code"] == "APPROVAL_BY_PERSON_ONLY"
    assert_clean(tab)

    off_the_browser_thread(make_user, "study-outsider", password=PASSWORD)
    outsider = visit(browser, site.url)
    try:
        sign_in(outsider, studies.complete["ui_url"], username="study-outsider", password=PASSWORD)
        outsider.page.wait_for_selector('#map-view[data-state="not-found"]')
        data = outsider.page.request.get(site.url + study_path(studies, studies.complete["id"]))
        layers = outsider.page.request.get(site.url + study_path(studies, studies.complete["id"]) + "tiles/")
        tile = outsider.page.request.get(
            site.url + study_path(studies, studies.complete["id"]) + "tiles/1pct/max_depth/" + tile_over_model(studies)
        )
        for response in (data, layers, tile):
            assert response.status == 404 and response.json()["code"] == "PROJECT_NOT_FOUND", response.url
        assert outsider.csp_violations == []
    finally:
        outsider.close()


def test_the_study_panel_without_a_study_lists_the_projects_studies_and_a_study_is_framed_on_its_model(
    tab, site, studies
):
    listing = studies.draft["ui_url"].split("&study=")[0]  # the same map and panel, no study named
    assert "study=" not in listing
    open_link(tab, site, listing, "study")
    names = tab.page.locator("#panel ul.links a").all_text_contents()
    assert len(names) == 2

    tab.page.locator("#panel ul.links a").first.click()
    wait_for_panel(tab, "study")
    tab.page.wait_for_selector("#study-live")
    tab.page.wait_for_selector('#map[data-framed^="study:"]')
    assert tab.page.get_attribute("#study-live", "data-status") in ("draft", "complete")
    assert_clean(tab)


HOSTILE_NAME = "<img src=x onerror=\"document.title='ran'\"><script>document.title='ran'</script>"


def test_a_study_name_an_agent_wrote_is_text_in_the_study_panel_and_never_runs(tab, site, studies):
    draft = rest(site, study_path(studies, studies.draft["id"])).json()
    body = {
        "name": HOSTILE_NAME,
        "base_scenario": draft["base_scenario"],
        "ifd": draft["inputs"]["ifd"],
        "temporal_patterns": draft["inputs"]["temporal_patterns"],
        "aeps": draft["aeps"],
        "durations_min": draft["durations_min"],
        "initial_loss_mm": draft["initial_loss_mm"],
        "continuing_loss_mm_h": draft["continuing_loss_mm_h"],
    }

    def make():
        with api(site.url, site.key) as http:
            return http.post(f"{PROJECTS}{studies.project_id}/design-studies/", json=body)

    made = off_the_browser_thread(make)
    assert made.status_code == 201, made.text

    open_link(tab, site, made.json()["ui_url"], "study")
    tab.page.wait_for_selector("#study-live")
    assert HOSTILE_NAME in tab.page.inner_text("#panel")
    assert tab.page.locator("#panel img, #panel script").count() == 0
    assert tab.page.title() != "ran"
    assert_clean(tab)


def call_tool(site, name: str, arguments: dict) -> dict:
    async def session():
        async with mcp_client(site.url, site.key) as client:
            called = await client.call_tool(name, arguments)
            assert not called.is_error, called.content[0].text
            return called.structured_content

    return off_the_browser_thread(asyncio.run, session())


def reopen(tab, url: str) -> None:
    """Open another link in a tab already signed in: the page loads afresh."""
    tab.page.goto(url)
    tab.page.reload()
    wait_for_panel(tab, "study")


def test_a_started_study_says_the_sign_off_it_ran_under_and_what_changed_since_not_whether_it_is_signed_off_now(
    tab, site, studies
):
    open_link(tab, site, studies.complete["ui_url"], "study")
    ran_unsigned = tab.page.inner_text("#study-sign-off")
    assert "Ran without a sign-off (none was required)." in ran_unsigned
    assert "Not signed off" not in ran_unsigned and tab.page.locator("#study-changed").count() == 0

    draft = rest(site, study_path(studies, studies.draft["id"])).json()
    body = {key: draft[key] for key in ("base_scenario", "aeps", "durations_min", "initial_loss_mm")}
    body |= {"name": "signed, then run", "continuing_loss_mm_h": draft["continuing_loss_mm_h"], **draft["inputs"]}

    def make():
        with api(site.url, site.key) as http:
            return http.post(f"{PROJECTS}{studies.project_id}/design-studies/", json=body)

    made = off_the_browser_thread(make)
    assert made.status_code == 201, made.text
    study = made.json()
    reopen(tab, study["ui_url"])
    tab.page.click("#study-approve")
    tab.page.wait_for_selector("#study-sign-off[data-approved=true]")
    ids = {"project_id": studies.project_id, "study_id": study["id"]}
    assert call_tool(site, "start_design_study", ids)["status"] == "running"
    assert call_tool(site, "cancel_design_study", ids)["status"] == "cancelled"

    def change_the_base():
        with api(site.url, site.key) as http:
            path = f"{PROJECTS}{studies.project_id}/scenarios/{study['base_scenario']}/"
            return http.patch(path, json={"duration": 1200})

    changed = off_the_browser_thread(change_the_base)
    assert changed.status_code == 200, changed.text
    reopen(tab, study["ui_url"])
    ran_signed = tab.page.inner_text("#study-sign-off")
    assert f"Ran as signed off by {site.username} on " in ran_signed and "Not signed off" not in ran_signed
    assert tab.page.inner_text("#study-changed") == "Changed since it ran: the scenario's settings."
    started = rest(site, study_path(studies, study["id"])).json()["approval"]["started_fingerprint"]
    assert tab.page.inner_text("#study-fingerprint") == started
    tab.page.locator("#study-sign-off").scroll_into_view_if_needed()
    tab.screenshot("map-study-ran-signed-off")

    reopen(tab, studies.complete["ui_url"])
    assert tab.page.inner_text("#study-changed") == "Changed since it ran: the scenario's settings."
    assert "Ran without a sign-off (none was required)." in tab.page.inner_text("#study-sign-off")

    # a study started before what it ran under was kept: not said to have run without a sign-off
    forget = {"started_fingerprint": "", "started_state_parts": None, "sign_off_required_at_start": None}
    off_the_browser_thread(lambda: DesignStudy.objects.filter(pk=study["id"]).update(**forget))
    reopen(tab, study["ui_url"])
    before_kept = tab.page.inner_text("#study-sign-off")
    assert "Started before the sign-off it ran under was recorded." in before_kept and "Ran " not in before_kept
    assert_clean(tab)
