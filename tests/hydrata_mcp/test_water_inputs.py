"""Where the water starts and what the ground takes, through the official MCP client and a real worker: a model
forced only through a Dirichlet edge (a tide) is built and run, a wet start with soils under rain carries its
initial volume and its losses into the run's balance, and a soil or an initial condition out of range is refused
naming the feature and the field."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from hydrata.compute.rasters.tiles import transparent_tile
from hydrata.studies.models import DesignMember
from hydrata.studies.services.studies import study_storms
from tests.data import BOUNDARY
from tests.factories import make_grant
from tests.hydrata.studies.helpers import SHORT_FILES, uploaded_inputs
from tests.hydrata_mcp.test_design_study_runs import follow, made_study
from tests.hydrata_mcp.test_model_building import upload_geojson as upload_for_tool
from tests.hydrata_mcp.test_results import completed, tool
from tests.mcp_client import mcp_client
from tests.model_setup import api, attach, small_test_model, upload_geojson

pytestmark = pytest.mark.django_db(transaction=True)
MGA56 = "EPSG:28356"
TIDE = 975.0  # above the north edge's low western end (970.9 m), below its east (991 m)
WHOLE = [[251001.0, 6271802.0], [251198.0, 6271802.0], [251198.0, 6271999.0], [251001.0, 6271999.0]]
WEST_HALF = [[251001.0, 6271802.0], [251100.0, 6271802.0], [251100.0, 6271999.0], [251001.0, 6271999.0]]
NORTH_WEST = [[251001.0, 6271940.0], [251060.0, 6271940.0], [251060.0, 6271999.0], [251001.0, 6271999.0]]


def layer(*features: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": MGA56}},
        "features": list(features),
    }


def polygon(ring: list[list[float]], **properties: Any) -> dict[str, Any]:
    return {
        "type": "Feature",
        "properties": properties,
        "geometry": {"type": "Polygon", "coordinates": [[*ring, ring[0]]]},
    }


def tidal_boundary() -> dict[str, Any]:
    """small_test's boundary with its north edge a Dirichlet tide."""
    collection = json.loads(BOUNDARY.read_text())
    for feature in collection["features"]:
        if feature.get("id") == "north":
            feature["properties"] = {"boundary": "Dirichlet", "location": "External", "stage": TIDE}
    return collection


def test_a_tide_only_model_and_a_wet_start_with_soils_are_built_and_run_through_the_tools(live_asgi, celery_worker):
    _, key = make_grant(level="launch")
    tidal = small_test_model(live_asgi.url, key, rainfall=False, boundary=False)
    soaked = small_test_model(live_asgi.url, key)
    with api(live_asgi.url, key) as http:
        assert (
            attach(http, tidal, "boundary", upload_geojson(http, "tide.geojson", tidal_boundary())).status_code == 200
        )
        lake = layer(polygon(NORTH_WEST, stage=980.0))
        assert attach(http, soaked, "initial_condition", upload_geojson(http, "lake.geojson", lake)).status_code == 200
        soil = layer(polygon(WHOLE, initial_loss_mm=5, continuing_loss_mm_h=2.5, impervious_fraction=0.2))
        assert attach(http, soaked, "soil", upload_geojson(http, "soil.geojson", soil)).status_code == 200

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            runs, scenarios = {}, {}
            for name, model in (("tidal", tidal), ("soaked", soaked)):
                created = await tool(
                    client,
                    "create_scenario",
                    {"project_id": model.project_id, "name": name, "resolution": 10, "duration": 120},
                )
                scenarios[name] = created.structured_content
                built = await tool(
                    client,
                    "build_scenario",
                    {"project_id": model.project_id, "scenario_id": created.structured_content["id"]},
                )
                assert built.structured_content["outcome"] == "built", built.structured_content
                started = await tool(client, "start_simulation", {"scenario_id": created.structured_content["id"]})
                runs[name] = started.structured_content["id"]
            await completed(client, list(runs.values()))
            results = {name: await tool(client, "get_run_results", {"run_id": run}) for name, run in runs.items()}
            inputs = await tool(client, "list_inputs", {"project_id": soaked.project_id})
            return scenarios, results, inputs

    scenarios, results, inputs = asyncio.run(session())

    assert scenarios["soaked"]["initial_condition"] == soaked.rows["initial_condition"]
    assert scenarios["soaked"]["soil"] == soaked.rows["soil"]
    assert inputs.structured_content["soil"][0]["feature_count"] == 1
    tide = results["tidal"].structured_content["statistics"]["volume_balance"]
    assert tide["rainfall_m3"] == 0 and tide["inflow_m3"] == 0 and tide["boundary_in_m3"] > 0
    wet = results["soaked"].structured_content["statistics"]
    balance = wet["volume_balance"]
    assert balance["initial_m3"] > 0 and 0 < balance["losses_m3"] < balance["rainfall_m3"]
    assert wet["mass_balance_error_pct"] < 1.0
    assert balance["initial_m3"] + balance["came_in_m3"] - balance["boundary_out_m3"] - balance[
        "losses_m3"
    ] == pytest.approx(balance["final_m3"], rel=1e-6)
    # the total-loss map: a result layer of the run with soils only, tiled where the ground took rain
    assert "gn_layer_total_loss" in results["soaked"].structured_content["result_layers"]
    assert "gn_layer_total_loss" not in results["tidal"].structured_content["result_layers"]
    run_id = results["soaked"].structured_content["id"]
    with api(live_asgi.url, key) as http:
        layers = {layer["name"]: layer for layer in http.get(f"/api/v2/anuga/runs/{run_id}/tiles/").json()["results"]}
        loss = layers["total_loss"]
        assert loss["units"] == "mm" and not loss["empty"] and loss["legend"]
        tile = http.get(loss["tiles"].format(z=17, x=120264, y=78565))
    assert tile.status_code == 200 and tile.headers["content-type"] == "image/png"
    assert tile.content != transparent_tile()  # the loss is drawn


@pytest.mark.parametrize(
    "kind, properties, field",
    [
        ("soil", {"initial_loss_mm": -5, "continuing_loss_mm_h": 2}, "initial_loss_mm=-5"),
        ("soil", {"initial_loss_mm": 5, "continuing_loss_mm_h": 2, "impervious_fraction": 2}, "impervious_fraction=2"),
        ("initial_condition", {"depth": -1}, "depth=-1"),
    ],
)
def test_a_soil_or_an_initial_condition_out_of_range_is_refused_by_the_tool_naming_feature_and_field(
    live_asgi, tmp_path: Path, kind, properties, field
):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key, rainfall=False, boundary=False)
    path = tmp_path / f"{kind}.geojson"
    path.write_text(json.dumps(layer({**polygon(NORTH_WEST, **properties), "id": "sandy"})))

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            execution = await upload_for_tool(live_asgi.url, key, path)
            return await client.call_tool(
                "attach_input_layer", {"project_id": model.project_id, "kind": kind, "execution_id": execution}
            )

    result = asyncio.run(session())

    assert result.is_error, result.structured_content
    text = result.content[0].text
    assert "Feature 0 (id 'sandy')" in text and field in text


def storm_loss_mm(rain_mm: list[float], *, initial_mm: float, continuing_mm_h: float, step_min: int) -> float:
    """The loss (mm over the pervious ground) of a storm of uniform steps, as the child takes it: the initial loss
    first, then the continuing rate for the rest of the step it runs out in and every step after, never more than
    the rain (hydrata/compute/simulation/losses.py)."""
    left, lost, continuing_per_step = initial_mm, 0.0, continuing_mm_h * step_min / 60
    for rain in rain_mm:
        from_initial = min(rain, left)
        left -= from_initial
        after = rain - from_initial
        lost += from_initial + (min(after, continuing_per_step * after / rain) if rain > 0 else 0.0)
    return lost


def test_a_design_study_on_a_base_with_soils_takes_the_soils_losses_there_and_its_own_elsewhere(
    live_asgi, celery_worker
):
    _, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)
    sandy = {"initial_loss_mm": 25, "continuing_loss_mm_h": 6, "impervious_fraction": 0.1}
    with api(live_asgi.url, key) as http:
        soil = layer(polygon(WEST_HALF, **sandy))
        assert attach(http, model, "soil", upload_geojson(http, "soil.geojson", soil)).status_code == 200
    inputs = uploaded_inputs(live_asgi.url, key, model.project_id, SHORT_FILES)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            study = await made_study(client, model.project_id, inputs=inputs, duration=600, gauged=False)
            await tool(client, "start_design_study", {"project_id": model.project_id, "study_id": study["id"]})
            return (await follow(client, model.project_id, study["id"], {"complete", "error", "cancelled"}))[-1]

    final = asyncio.run(session())

    assert final["status"] == "complete", final
    members = DesignMember.objects.filter(study_id=final["id"]).select_related("run", "study")
    assert members.count() == 4
    area, west = 197.0 * 197.0, 99.0 * 197.0
    storms = study_storms(study=members[0].study)  # a member's storm is derived from the study's inputs
    for member in members:
        balance = member.run.statistics["volume_balance"]
        rain_mm = list(storms[(member.aep, member.duration_min, member.pattern)].rain_mm)
        step = member.time_step_min
        in_sandy = (1 - 0.1) * storm_loss_mm(rain_mm, initial_mm=25, continuing_mm_h=6, step_min=step)
        studys = storm_loss_mm(rain_mm, initial_mm=member.burst_initial_loss_mm, continuing_mm_h=1, step_min=step)
        assert balance["rainfall_m3"] == pytest.approx(area * member.rain_depth_mm / 1000, rel=1e-6)
        expected = (west * in_sandy + (area - west) * studys) / 1000  # the soils' where they lie, the study's elsewhere
        assert balance["losses_m3"] == pytest.approx(expected, rel=0.01), (member, balance["losses_m3"], expected)
        assert abs(expected - area * studys / 1000) > 0.1 * expected  # the study's losses alone would be far off
        assert abs(balance["error_m3"]) < 1e-6 * (balance["initial_m3"] + balance["came_in_m3"])
