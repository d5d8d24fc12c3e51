"""The sign-off, end to end: with the account switch on, start_simulation is refused with APPROVAL_REQUIRED and the
link; the engineer approves in the browser and the run starts (and is followed live in the Run panel); after
update_scenario it is refused again."""

import asyncio
import re

from django.contrib.auth import get_user_model

from hydrata.agents.services import account_set_runs_need_approval
from tests.browser import off_the_browser_thread, sign_in, wait_for_panel
from tests.hydrata.map.browser.conftest import PASSWORD
from tests.mcp_client import mcp_client

LINK = re.compile(r"https?://\S+/catalogue/#/map/\d+\?panel=scenario&scenario=\d+")


def tools(site, *calls):
    """Call tools in order in one MCP session (off the browser's thread); their results."""

    async def session():
        async with mcp_client(site.url, site.key) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return off_the_browser_thread(asyncio.run, session())


def approval_required(site, on: bool) -> None:
    def switch():
        user = get_user_model().objects.get(username=site.username)
        account_set_runs_need_approval(user=user, required=on)

    off_the_browser_thread(switch)


def test_a_run_waits_for_the_engineers_approval_in_the_map_and_a_change_voids_it(tab, site):
    approval_required(site, True)
    try:
        (clone,) = tools(
            site,
            (
                "clone_scenario",
                {
                    "project_id": site.project_id,
                    "scenario_id": site.scenario_id,
                    "name": "Needs sign-off",
                    "overrides": {"duration": 120},
                },
            ),
        )
        scenario_id = clone.structured_content["id"]
        build = (
            "build_scenario",
            {"project_id": site.project_id, "scenario_id": scenario_id, "poll_interval_seconds": 2},
        )
        start = ("start_simulation", {"scenario_id": scenario_id})
        built, refused = tools(site, build, start)

        assert built.structured_content["outcome"] == "built"
        assert refused.is_error and "APPROVAL_REQUIRED" in refused.content[0].text
        link = LINK.search(refused.content[0].text).group(0)
        assert link.endswith(f"scenario={scenario_id}")

        sign_in(tab, link, username=site.username, password=PASSWORD)
        wait_for_panel(tab, "scenario")
        assert "Your agents need your approval" in tab.page.inner_text("#sign-off")
        tab.page.click("#approve")
        tab.page.wait_for_selector("#sign-off[data-approved=true]")
        tab.screenshot("map-scenario-approved")
        assert f"Approved for a run by {site.username}" in tab.page.inner_text("#sign-off")

        (started,) = tools(site, start)
        assert not started.is_error, started.content[0].text
        follow_the_run(tab, started.structured_content["ui_url"])

        update = ("update_scenario", {"project_id": site.project_id, "scenario_id": scenario_id, "duration": 121})
        _, rebuilt, again = tools(site, update, build, start)
        assert rebuilt.structured_content["outcome"] == "built"
        assert again.is_error and "APPROVAL_REQUIRED" in again.content[0].text

        tab.page.goto(link)
        wait_for_panel(tab, "scenario")
        assert "it needs a new approval" in tab.page.inner_text("#sign-off")
        assert tab.console_errors == [] and tab.foreign_requests() == []
    finally:
        approval_required(site, False)


def follow_the_run(tab, url: str) -> None:
    """The Run panel follows the run live, from queued or computing to complete, then shows its results."""
    tab.page.goto(url)
    wait_for_panel(tab, "run")
    seen = set()
    for _ in range(600):
        status = tab.page.get_attribute("#run-live", "data-status")
        seen.add((status, tab.page.get_attribute("#run-progress", "value")))
        if status in ("complete", "error", "cancelled"):
            break
        tab.page.wait_for_timeout(250)
    assert status == "complete", seen
    assert len(seen) >= 2, seen  # the panel changed while the run went on, without a reload
    tab.page.wait_for_selector("#toggle-max_depth")
    wait_for_panel(tab, "run")
    tab.screenshot("map-run-followed")
    assert "Peak depth" in tab.page.inner_text("#panel")
