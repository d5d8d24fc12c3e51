"""A complete run whose package a real build wrote (through the REST API, the build run eagerly), with results
written by the simulation's own writer: every name a person or an agent gives it is `name`."""

import json
from typing import Any

from hydrata.anuga.models import Run
from hydrata.storage import get_storage
from tests.data import BOUNDARY, RAINFALL
from tests.factories import make_finished_run, make_project
from tests.hydrata.observations.helpers import PROJECTS, api_for, upload, with_terrain

STORM_ROWS = [
    {"timestamp": "2024-01-01T00:00:00Z", "value": 0.0},
    {"timestamp": "2024-01-01T00:00:30Z", "value": 40.0},
    {"timestamp": "2024-01-01T00:01:00Z", "value": 10.0},
]


def rain_named(series: str) -> dict[str, Any]:
    collection = json.loads(RAINFALL.read_text())
    for feature in collection["features"]:
        feature["properties"]["data"] = series
    return collection


def region_named(name: str) -> dict[str, Any]:
    ring = [[251050.0, 6271850.0], [251150.0, 6271850.0], [251150.0, 6271950.0], [251050.0, 6271950.0]]
    return {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "EPSG:28356"}},
        "features": [
            {
                "type": "Feature",
                "properties": {"name": name, "resolution": 15, "resolution_units": "m"},
                "geometry": {"type": "Polygon", "coordinates": [[*ring, ring[0]]]},
            }
        ],
    }


def complete_run_of_package(
    owner, *, name: str = "report", rain_series: str | None = None, hazard: bool | None = None
) -> Run:
    """A built small_test scenario (its project, scenario, time series, mesh region, gauge and flow line all named
    `name`; rain from the series `rain_series`, default `name`), completed with results on the terrain's grid (with
    the hazard classes of its depth and speed when `hazard`)."""
    project = make_project(owner, name=name)
    client = api_for(owner)
    with_terrain(client, project.pk)
    series = rain_series or name
    created = client.post(
        f"{PROJECTS}{project.pk}/time-series/",
        {"name": series, "series_type": "hyetograph", "units": "mm/hr", "data": {"rowData": STORM_ROWS}},
        format="json",
    )
    assert created.status_code == 201, created.content
    rows = client.get(f"{PROJECTS}{project.pk}/inputs/").json()
    layers = (
        ("boundary", "boundaries", BOUNDARY.read_bytes()),
        ("rainfall", "rainfalls", json.dumps(rain_named(series)).encode()),
        ("mesh_region", "mesh-regions", json.dumps(region_named(name)).encode()),
    )
    for kind, segment, content in layers:
        dataset = upload(client, f"{kind}.geojson", content)["output_params"]["resources"][0]["id"]
        attached = client.patch(
            f"{PROJECTS}{project.pk}/{segment}/{rows[kind][0]['id']}/", {"gn_layer": dataset}, format="json"
        )
        assert attached.status_code == 200, attached.content
    scenario = client.post(
        f"{PROJECTS}{project.pk}/scenarios/",
        {"name": name, "resolution": 20, "duration": 60, "model_start": STORM_ROWS[0]["timestamp"]},
        format="json",
    )
    assert scenario.status_code == 201, scenario.content
    build = client.post(f"{PROJECTS}{project.pk}/scenarios/{scenario.json()['id']}/build/")
    assert build.status_code == 202, build.content
    run = Run.objects.get(pk=build.json()["run"]["id"])
    assert run.status == "built", run.error_message
    run = make_finished_run(project, run=run, hazard=hazard)
    recorded = {
        "t": [0.0, 30.0, 60.0],
        "gauges": [{"name": name, **{key: [0.0, 0.5, 0.2] for key in ("stage", "depth", "speed", "xvel", "yvel")}}],
        "flow_lines": [{"name": name, "discharge": [0.0, 1.0, 0.5]}],
    }
    get_storage().save(key=f"{run.results_prefix}/time_series.json", data=json.dumps(recorded).encode())
    return run
