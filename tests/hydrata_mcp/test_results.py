"""What a flood engineer reads from runs, through the official SDK client against real ANUGA runs on a real worker:
hazard and inundation at points, gauge and flow line series with a chart, and the impact of a longer storm."""

import asyncio
import time
from typing import Any

import pytest
import rasterio
from rasterio.io import MemoryFile

from hydrata.storage import get_storage
from tests.data import DEM
from tests.factories import make_finished_run, make_grant, make_project
from tests.mcp_client import call, mcp_client
from tests.model_setup import PROJECTS, api, attach, small_test_model, until, upload_geojson

pytestmark = pytest.mark.django_db(transaction=True)
MGA56 = "EPSG:28356"
INSIDE, OUTSIDE = {"x": 251100.0, "y": 6271900.0}, {"x": 260000.0, "y": 6280000.0}
ENGINEER_LAYERS = {
    "gn_layer_max_depth",
    "gn_layer_max_speed",
    "gn_layer_max_stage",
    "gn_layer_max_hazard",
    "gn_layer_time_of_inundation",
    "gn_layer_duration_of_inundation",
}


def layer(*features: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": MGA56}},
        "features": list(features),
    }


def with_gauges(url: str, key: str):
    model = small_test_model(url, key)
    with api(url, key) as http:
        gauges = layer(
            *(
                {"type": "Feature", "properties": {"name": name}, "geometry": {"type": "Point", "coordinates": [x, y]}}
                for name, x, y in (("middle", 251100.0, 6271900.0), ("north", 251100.0, 6271980.0))
            )
        )
        across = layer(
            {
                "type": "Feature",
                "properties": {"name": "across"},
                "geometry": {"type": "LineString", "coordinates": [[251010.0, 6271900.0], [251190.0, 6271900.0]]},
            }
        )
        for kind, collection in (("gauge", gauges), ("flow_line", across)):
            assert attach(http, model, kind, upload_geojson(http, f"{kind}.geojson", collection)).status_code == 200
    return model


def coarser_terrain(url: str, key: str, project_id: int) -> int:
    """small_test's DEM at twice the cell size, as a second terrain of the project: another grid."""
    with rasterio.open(DEM) as source:
        profile = source.profile | {
            "width": source.width // 2,
            "height": source.height // 2,
            "transform": source.transform * source.transform.scale(2, 2),
        }
        band = source.read(1)[::2, ::2][: profile["height"], : profile["width"]]
    with MemoryFile() as memory:
        with memory.open(**profile) as destination:
            destination.write(band, 1)
        body = memory.read()
    with api(url, key) as http:
        terrain = http.post(
            f"{PROJECTS}{project_id}/terrain/upload/", files={"file": ("coarse.tif", body, "image/tiff")}
        ).json()
        ready = until(
            lambda: http.get(f"{PROJECTS}{project_id}/terrain/{terrain['id']}/").json(),
            lambda t: t["status"] in ("ready", "error"),
        )
    assert ready["status"] == "ready", ready
    return ready["id"]


async def tool(client, name: str, arguments: dict[str, Any]):
    result = await client.call_tool(name, arguments)
    assert not result.is_error, f"{name}: {result.content[0].text}"
    return result


async def started(client, project_id: int, *, resolution: float, duration: int, **inputs: int) -> int:
    scenario = (
        await tool(
            client,
            "create_scenario",
            {
                "project_id": project_id,
                "name": f"{resolution} m {duration} s",
                "resolution": resolution,
                "duration": duration,
                **inputs,
            },
        )
    ).structured_content
    built = (
        await tool(
            client,
            "build_scenario",
            {"project_id": project_id, "scenario_id": scenario["id"], "poll_interval_seconds": 2},
        )
    ).structured_content
    assert built["outcome"] == "built", built
    return (await tool(client, "start_simulation", {"scenario_id": scenario["id"]})).structured_content["id"]


async def completed(client, run_ids: list[int], *, seconds: float = 600) -> None:
    deadline, waiting = time.monotonic() + seconds, set(run_ids)
    while waiting and time.monotonic() < deadline:
        for run_id in sorted(waiting):
            status = (await tool(client, "get_run_status", {"run_id": run_id})).structured_content
            if status["status"] in {"complete", "error", "cancelled"}:
                assert status["status"] == "complete", status
                waiting.discard(run_id)
        await asyncio.sleep(1)
    assert not waiting, f"runs {waiting} did not finish"


def test_hazard_inundation_series_and_impact_of_real_runs_through_the_tools(live_asgi, celery_worker):
    _, key = make_grant(level="launch")
    model = with_gauges(live_asgi.url, key)
    coarse_terrain = coarser_terrain(live_asgi.url, key, model.project_id)
    elsewhere = small_test_model(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            short = await started(client, model.project_id, resolution=10, duration=300, terrain=model.terrain_id)
            longer = await started(client, model.project_id, resolution=10, duration=600, terrain=model.terrain_id)
            coarse = await started(client, model.project_id, resolution=20, duration=60, terrain=coarse_terrain)
            foreign = (
                await tool(
                    client,
                    "create_scenario",
                    {"project_id": elsewhere.project_id, "name": "x", "resolution": 20, "duration": 60},
                )
            ).structured_content
            foreign_build = (
                await tool(
                    client,
                    "build_scenario",
                    {"project_id": elsewhere.project_id, "scenario_id": foreign["id"], "poll_interval_seconds": 2},
                )
            ).structured_content
            await completed(client, [short, longer, coarse])
            answers = {
                "results": await tool(client, "get_run_results", {"run_id": short}),
                "sampled": await tool(client, "sample_run_results", {"run_id": short, "points": [INSIDE, OUTSIDE]}),
                "series": await tool(
                    client,
                    "get_run_time_series",
                    {
                        "run_id": short,
                        "gauges": ["north", "middle"],
                        "flow_lines": ["across"],
                        "points": [INSIDE, OUTSIDE],
                    },
                ),
                "everything": await tool(client, "get_run_time_series", {"run_id": short}),
                "same": await tool(client, "compare_runs", {"run_id": short, "other_run_id": short}),
                "impact": await tool(client, "compare_runs", {"run_id": short, "other_run_id": longer}),
                "unknown": await client.call_tool("get_run_time_series", {"run_id": short, "gauges": ["bridge"]}),
                "mismatch": await client.call_tool("compare_runs", {"run_id": short, "other_run_id": coarse}),
                "foreign": await client.call_tool(
                    "compare_runs", {"run_id": short, "other_run_id": foreign_build["run_id"]}
                ),
                "bad_crs": await client.call_tool(
                    "sample_run_results", {"run_id": short, "points": [INSIDE], "crs": "EPSG:999999"}
                ),
            }
            return short, coarse, answers

    short, coarse, answers = asyncio.run(session())

    results = answers["results"].structured_content
    statistics = results["statistics"]
    assert set(results["result_layers"]) == ENGINEER_LAYERS
    assert statistics["mass_balance_error_pct"] < 1.0 and results["warnings"] == []
    assert set(statistics["hazard_area_m2_by_class"]) == {"H1", "H2", "H3", "H4", "H5", "H6"}
    assert set(statistics["peak_depth_at"]) == {"x", "y", "t"}
    assert statistics["gauges"] == ["middle", "north"] and statistics["flow_lines"] == ["across"]

    inside, outside = answers["sampled"].structured_content["points"]
    assert inside["max_hazard"] in range(7) and inside["peak_depth"] is not None
    if inside["peak_depth"] > 0.05:
        assert 0 < inside["time_of_inundation_s"] <= 300 and 0 < inside["duration_of_inundation_s"] <= 300
    assert (outside["max_hazard"], outside["time_of_inundation_s"], outside["duration_of_inundation_s"]) == (
        None,
        None,
        None,
    )

    series = answers["series"].structured_content["series"]
    assert [(item["name"], item["kind"]) for item in series] == [
        ("north", "gauge"),
        ("middle", "gauge"),
        ("across", "flow_line"),
        ("point 1", "point"),
        ("point 2", "point"),
    ]
    north, middle, across, point, off_mesh = series
    assert len(north["t"]) == len(north["depth"]) == len(north["stage"]) == len(north["speed"]) == 101  # every yield
    assert north["t"][0] == 0 and north["t"][-1] == 300 and north["x"] == 251100.0
    assert len(across["discharge"]) == len(across["t"]) and across["stage"] is None
    assert point["t"][-1] == 300 and len(point["depth"]) == len(point["t"]) and max(point["depth"]) >= 0
    # the point and the middle gauge share a triangle: the stored output reads back what the gauge recorded
    stored = dict(zip(point["t"], point["depth"], strict=True))
    assert all(
        abs(stored[t] - depth) < 1e-3 for t, depth in zip(middle["t"], middle["depth"], strict=True) if t in stored
    )
    assert off_mesh["depth"] is None and off_mesh["t"] == point["t"]
    assert any(block.type == "image" and block.mime_type == "image/png" for block in answers["series"].content)
    assert [item["name"] for item in answers["everything"].structured_content["series"]] == [
        "middle",
        "north",
        "across",
    ]

    same = answers["same"].structured_content["statistics"]
    assert same["max_increase_m"] == 0 and same["max_decrease_m"] == 0
    assert same["area_wetter_m2"] == same["area_drier_m2"] == same["area_newly_wet_m2"] == 0
    impact = answers["impact"].structured_content
    assert impact["statistics"]["max_increase_m"] > 0 and impact["statistics"]["area_wetter_m2"] > 0
    assert impact["statistics"]["area_drier_m2"] == 0
    assert set(impact["result_layers"]) == {"gn_layer_impact_depth", "gn_layer_impact_stage"}
    assert "panel=run" in impact["ui_url"] and f"run={short}" in impact["ui_url"]
    assert impact["ui_url"] in impact["say_to_user"]
    assert any(block.type == "image" and block.mime_type == "image/png" for block in answers["impact"].content)

    for name, code in (
        ("unknown", "UNKNOWN_GAUGE"),
        ("mismatch", "GRID_MISMATCH"),
        ("foreign", "RUN_NOT_FOUND"),
        ("bad_crs", "INVALID_CRS"),
    ):
        assert answers[name].is_error and code in answers[name].content[0].text, (name, answers[name].content)
    assert "'middle'" in answers["unknown"].content[0].text  # says which gauges the run has
    assert not get_storage().exists(key=f"runs/{short}/results/compare/{coarse}/impact.json")  # nothing half-stored
    assert get_storage().exists(key=f"runs/{short}/results/compare/{short}/impact_depth.tif")


def test_a_run_of_a_model_without_gauges_or_flow_lines_says_so_and_how_to_get_series(live_asgi):
    """It answered an empty list and an empty chart, which reads as a run where nothing happened."""
    grant, key = make_grant(level="read")
    run_id = make_finished_run(make_project(grant.user)).pk

    result = call(live_asgi.url, key, "get_run_time_series", {"run_id": run_id})

    text = result.content[0].text
    assert result.is_error and "NO_RECORDED_SERIES" in text
    assert "no gauge points and no flow_line lines" in text and "points [{x, y}]" in text
