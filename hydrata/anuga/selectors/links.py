"""Where each object lives in the project's map: the `ui_url` every answer about it carries, so that a client
(the MCP tools among them) hands people a link without asking for anything else. Built by the contract's one link
builder (hydrata_contract/links.py) on this site's address."""

from typing import TYPE_CHECKING, Any

from django.conf import settings

from hydrata_contract.links import Panel
from hydrata_contract.links import map_url as contract_map_url

if TYPE_CHECKING:
    from hydrata.anuga.models import InputLayer, Project, Run, Scenario, Terrain, TimeSeries


def map_url(*, base_map: int, panel: Panel | None = None, **ids: int | None) -> str:
    return contract_map_url(site_url=settings.HYDRATA_SITE_URL, base_map=base_map, panel=panel, **ids)


def project_link(project: "Project", panel: Panel | None = None, **ids: int | None) -> str:
    return map_url(base_map=project.base_map_id, panel=panel, **ids)


def terrain_link(terrain: "Terrain") -> str:
    return project_link(terrain.project, Panel.TERRAIN, layer=terrain.pk)


def input_row_link(row: "InputLayer") -> str:
    return project_link(row.project, Panel.INPUTS, layer=row.pk)


def time_series_link(series: "TimeSeries") -> str:
    return project_link(series.project, Panel.TIME_SERIES, layer=series.pk)


def scenario_link(scenario: "Scenario") -> str:
    return project_link(scenario.project, Panel.SCENARIO, scenario=scenario.pk)


def run_link(run: "Run", **more: Any) -> str:
    return project_link(run.scenario.project, Panel.RUN, scenario=run.scenario_id, run=run.pk, **more)


def event_link(project: "Project", event_id: int) -> str:
    return project_link(project, Panel.OBSERVATIONS, event=event_id)


def comparison_link(project: "Project", *, comparison: int, run: int, event: int) -> str:
    return project_link(project, Panel.COMPARISON, comparison=comparison, run=run, event=event)
