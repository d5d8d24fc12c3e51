"""Flood observations and comparisons through the official SDK client, against real ANUGA runs on a real worker.

Observations here are synthetic: made from a run's own sampled peaks, so the right answer is known exactly."""

import asyncio
import json
import time
from typing import Any

import httpx
import pytest

from hydrata.observations.models import Observation
from tests.factories import make_grant, make_user
from tests.mcp_client import mcp_client
from tests.model_setup import SHARED_TLS, api, attach, small_test_model, upload_geojson

pytestmark = pytest.mark.django_db(transaction=True)
MGA56 = "EPSG:28356"
# candidate points on a 20 m grid well inside the small_test boundary (251001-251198, 6271802-6271998)
GRID = [{"x": 251010.0 + 20 * i, "y": 6271810.0 + 20 * j} for i in range(10) for j in range(10)]


def text(result) -> str:
    return result.content[0].text


async def tool(client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, f"{name}: {text(result)}"
    return result.structured_content


async def built(client, project_id: int, name: str, *, duration: int = 900) -> dict[str, Any]:
    scenario = await tool(
        client, "create_scenario", {"project_id": project_id, "name": name, "resolution": 10, "duration": duration}
    )
    build = await tool(
        client, "build_scenario", {"project_id": project_id, "scenario_id": scenario["id"], "poll_interval_seconds": 2}
    )
    assert build["outcome"] == "built", build
    return scenario


async def completed(client, run_ids: list[int], *, seconds: float = 600) -> None:
    deadline = time.monotonic() + seconds
    waiting = set(run_ids)
    while waiting and time.monotonic() < deadline:
        for run_id in sorted(waiting):
            status = await tool(client, "get_run_status", {"run_id": run_id})
            if status["status"] in {"complete", "error", "cancelled"}:
                assert status["status"] == "complete", status
                waiting.discard(run_id)
        await asyncio.sleep(1)
    assert not waiting, f"runs {waiting} did not finish"


async def wettest(client, run_id: int, count: int) -> list[dict[str, Any]]:
    """The `count` grid points where the run got deepest: there the model's peaks are its own doing."""
    sampled = (await tool(client, "sample_run_results", {"run_id": run_id, "points": GRID}))["points"]
    on_model = [p for p in sampled if p["peak_depth"] is not None]
    return sorted(on_model, key=lambda p: -p["peak_depth"])[:count]


async def observe(client, project_id: int, event_id: int, points: list[dict[str, Any]]) -> list[int]:
    """One observation per point, the first as a peak depth and the rest as peak stages, at the sampled value."""
    ids = []
    for index, point in enumerate(points):
        quantity = "peak_depth" if index == 0 else "peak_stage"
        created = await tool(
            client,
            "create_observation",
            {
                "project_id": project_id,
                "event_id": event_id,
                "x": point["x"],
                "y": point["y"],
                "quantity": quantity,
                "value_m": point[quantity],
                "source": "synthetic, from the run itself",
            },
        )
        ids.append(created["id"])
    return ids


def test_observations_from_a_runs_own_peaks_compare_exactly_and_follow_updates_and_deletes(live_asgi, celery_worker):
    owner = make_user()
    _, key = make_grant(owner, level="launch")
    _, read_key = make_grant(owner, level="read")
    _, stranger_key = make_grant(make_user(), level="launch")
    model = small_test_model(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            scenario = await built(client, model.project_id, "truth")
            run_id = (await tool(client, "start_simulation", {"scenario_id": scenario["id"]}))["id"]
            await completed(client, [run_id])
            points = await wettest(client, run_id, 5)
            event = await tool(
                client,
                "create_flood_event",
                {"project_id": model.project_id, "name": "Synthetic storm", "started_at": "2024-01-01T00:00:00Z"},
            )
            ids = await observe(client, model.project_id, event["id"], points)
            exact = await tool(client, "compare_run_with_observations", {"run_id": run_id, "event_id": event["id"]})
            for observation_id, point, quantity in zip(ids, points, ["peak_depth"] + ["peak_stage"] * 4, strict=True):
                await tool(
                    client,
                    "update_observation",
                    {
                        "project_id": model.project_id,
                        "observation_id": observation_id,
                        "value_m": point[quantity] + 0.5,
                    },
                )
            stale = await tool(client, "get_comparison", {"comparison_id": exact["id"]})
            raised = await tool(client, "recompute_comparison", {"comparison_id": exact["id"]})
            deleted = await tool(
                client, "delete_observation", {"project_id": model.project_id, "observation_id": ids[0]}
            )
            fewer = await tool(client, "recompute_comparison", {"comparison_id": exact["id"]})
            listed = await tool(client, "list_observations", {"project_id": model.project_id, "event_id": event["id"]})
        async with mcp_client(live_asgi.url, read_key) as reader:
            read = await reader.call_tool("get_comparison", {"comparison_id": exact["id"]})
            refused = await reader.call_tool("recompute_comparison", {"comparison_id": exact["id"]})
        async with mcp_client(live_asgi.url, stranger_key) as stranger:
            hidden = await stranger.call_tool("get_comparison", {"comparison_id": exact["id"]})
            hidden_recompute = await stranger.call_tool("recompute_comparison", {"comparison_id": exact["id"]})
            hidden_observations = await stranger.call_tool("list_observations", {"project_id": model.project_id})
        return (
            run_id,
            points,
            ids,
            exact,
            stale,
            raised,
            deleted,
            fewer,
            listed,
            read,
            refused,
            hidden,
            hidden_recompute,
            hidden_observations,
        )

    (
        run_id,
        points,
        ids,
        exact,
        stale,
        raised,
        deleted,
        fewer,
        listed,
        read,
        refused,
        hidden,
        hidden_recompute,
        hidden_observations,
    ) = asyncio.run(session())

    assert len(points) == 5 and points[0]["peak_depth"] > 0.01
    assert exact["run"] == run_id and exact["is_stale"] is False
    assert exact["metrics"] == {
        "n": 5,
        "bias": 0,
        "mae": 0,
        "rmse": 0,
        "max_abs_error": 0,
        "within_tolerance": 5,
        "within_tolerance_share": 1.0,
        "dry": 0,
        "outside_model": 0,
    }
    assert [p["observation_id"] for p in exact["points"]] == ids
    assert all(p["error"] == 0 and p["within_tolerance"] and p["wet"] for p in exact["points"])
    assert exact["points"][0]["modelled"] == points[0]["peak_depth"]
    assert exact["points"][1]["modelled"] == points[1]["peak_stage"]
    assert exact["summary"]["rmse"] == 0 and exact["summary"]["n"] == 5
    assert f"comparison={exact['id']}" in exact["ui_url"] and "panel=comparison" in exact["ui_url"]
    assert exact["ui_url"] in exact["say_to_user"]

    assert stale["is_stale"] is True and stale["metrics"]["rmse"] == 0  # still the old numbers until recomputed
    # every observation 0.5 m above the model: error = modelled - observed = -0.5 everywhere
    assert raised["metrics"]["bias"] == -0.5 and raised["metrics"]["mae"] == 0.5
    assert raised["metrics"]["rmse"] == 0.5 and raised["metrics"]["max_abs_error"] == 0.5
    assert raised["metrics"]["within_tolerance"] == 0 and raised["is_stale"] is False
    assert raised["id"] == exact["id"]

    assert deleted["deleted"] is True and deleted["id"] == ids[0]
    assert fewer["metrics"]["n"] == 4 and [p["observation_id"] for p in fewer["points"]] == ids[1:]
    assert listed["count"] == 4 and listed["events"][0]["observation_count"] == 4
    assert not Observation.objects.filter(pk=ids[0]).exists()

    assert not read.is_error and read.structured_content["metrics"]["n"] == 4
    assert refused.is_error and "GRANT_LEVEL_TOO_LOW" in text(refused)
    for result in (hidden, hidden_recompute):
        assert result.is_error and "404" in text(result) and "COMPARISON_NOT_FOUND" in text(result)
    assert hidden_observations.is_error and "PROJECT_NOT_FOUND" in text(hidden_observations)


def friction(mannings: float) -> dict[str, Any]:
    ring = [
        [250990.0, 6271790.0],
        [251210.0, 6271790.0],
        [251210.0, 6272010.0],
        [250990.0, 6272010.0],
        [250990.0, 6271790.0],
    ]
    return {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": MGA56}},
        "features": [
            {
                "type": "Feature",
                "properties": {"mannings": mannings},
                "geometry": {"type": "Polygon", "coordinates": [ring]},
            }
        ],
    }


def test_ranking_three_frictions_against_observations_of_the_middle_one_puts_it_first_every_time(
    live_asgi, celery_worker
):
    _, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            runs = []
            for mannings in (0.02, 0.04, 0.08):
                # One friction row per project: each run starts right after its build, while the row holds its
                # layer (a build of a state that has since changed cannot start).
                with api(live_asgi.url, key) as http:
                    dataset = upload_geojson(http, f"friction-{mannings}.geojson", friction(mannings))
                    assert attach(http, model, "friction", dataset).status_code == 200
                # 300 s tells the frictions apart; the exact comparison above needs 900 s to wet all its points.
                scenario = await built(client, model.project_id, f"n = {mannings}", duration=300)
                runs.append((await tool(client, "start_simulation", {"scenario_id": scenario["id"]}))["id"])
            await completed(client, runs)
            points = await wettest(client, runs[1], 6)
            event = await tool(
                client,
                "create_flood_event",
                {"project_id": model.project_id, "name": "Calibration", "started_at": "2024-01-01T00:00:00Z"},
            )
            await observe(client, model.project_id, event["id"], points)
            arguments = {"project_id": model.project_id, "event_id": event["id"], "run_ids": runs}
            first = await tool(client, "rank_runs_against_observations", arguments)
            again = await tool(client, "rank_runs_against_observations", arguments)
            return runs, first, again

    runs, first, again = asyncio.run(session())

    assert first["results"][0]["run"] == runs[1]
    assert first["results"][0]["metrics"]["rmse"] == 0 and first["results"][0]["rank"] == 1
    assert all(r["metrics"]["rmse"] > 0 for r in first["results"][1:])
    assert [r["metrics"]["rmse"] for r in first["results"]] == sorted(r["metrics"]["rmse"] for r in first["results"])
    assert first["differing"] == ["friction"]
    assert {r["run"]: r["settings"]["friction"]["mannings"] for r in first["results"]} == {
        runs[0]: [0.02],
        runs[1]: [0.04],
        runs[2]: [0.08],
    }
    assert first["results"][0]["settings"]["rainfall"] == {"features": 1, "data": ["50.0"]}
    assert first["summary"]["best_run"] == runs[1] and str(runs[1]) in first["say_to_user"]
    assert [(r["run"], r["comparison"], r["metrics"]) for r in again["results"]] == [
        (r["run"], r["comparison"], r["metrics"]) for r in first["results"]
    ]


def test_import_observations_follows_the_upload_and_a_file_with_bad_rows_is_a_tool_error_naming_them(live_asgi):
    _, key = make_grant(level="draft")
    lon, lat = 150.6, -33.67
    good = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"level": 10.0 + i, "pm": 0.2},
                "geometry": {"type": "Point", "coordinates": [lon + i / 1000, lat]},
            }
            for i in range(3)
        ],
    }
    bad = json.loads(json.dumps(good))
    bad["features"][0]["properties"]["level"] = "high"
    bad["features"][2]["geometry"] = {"type": "LineString", "coordinates": [[lon, lat], [lon + 0.001, lat]]}

    async def upload(collection) -> str:
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {key}"}, verify=SHARED_TLS) as http:
            response = await http.post(
                f"{live_asgi.url}/api/v2/uploads/upload/",
                files={"base_file": ("marks.geojson", json.dumps(collection).encode(), "application/geo+json")},
            )
        return response.json()["execution_id"]

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            project = await tool(client, "create_project", {"name": "Marks", "projection": "EPSG:32756"})
            event = await tool(
                client,
                "create_flood_event",
                {"project_id": project["id"], "name": "Storm", "started_at": "2024-01-01T00:00:00Z"},
            )
            arguments = {
                "project_id": project["id"],
                "event_id": event["id"],
                "quantity": "peak_stage",
                "value_property": "level",
                "tolerance_property": "pm",
                "poll_interval_seconds": 2,
            }
            imported = await client.call_tool("import_observations", arguments | {"execution_id": await upload(good)})
            refused = await client.call_tool("import_observations", arguments | {"execution_id": await upload(bad)})
            listed = await tool(client, "list_observations", {"project_id": project["id"]})
            return imported, refused, listed

    imported, refused, listed = asyncio.run(session())

    assert not imported.is_error, text(imported)
    result = imported.structured_content
    assert result["outcome"] == "imported" and result["imported"] == 3 and result["observation_count"] == 3
    assert result["summary"]["bbox_wgs84"][0] == pytest.approx(lon, abs=1e-6)
    assert "panel=observations" in result["ui_url"] and f"event={result['event_id']}" in result["ui_url"]
    assert refused.is_error and "IMPORT_ROWS_INVALID" in text(refused)
    assert "feature 0" in text(refused) and "feature 2" in text(refused) and "feature 1" not in text(refused)
    assert listed["count"] == 3
    assert {round(o["given"]["x"], 3) for o in listed["observations"]} == {150.6, 150.601, 150.602}
    assert all(o["crs"] == "EPSG:32756" and o["x"] > 100_000 for o in listed["observations"])


def test_bad_input_is_a_tool_error_with_the_platforms_code_and_nothing_is_half_written(live_asgi):
    owner = make_user()
    _, key = make_grant(owner, level="launch")
    _, read_key = make_grant(owner, level="read")
    model = small_test_model(live_asgi.url, key)  # background work runs eagerly here: the build is done at once

    async def session():
        async with mcp_client(live_asgi.url, key) as client:
            scenario = await tool(
                client,
                "create_scenario",
                {"project_id": model.project_id, "name": "coarse", "resolution": 20, "duration": 60},
            )
            build = await tool(
                client,
                "build_scenario",
                {"project_id": model.project_id, "scenario_id": scenario["id"], "timeout_seconds": 0},
            )
            event = await tool(
                client,
                "create_flood_event",
                {"project_id": model.project_id, "name": "Storm", "started_at": "2024-01-01T00:00:00Z"},
            )
            mark = {
                "project_id": model.project_id,
                "event_id": event["id"],
                "x": 251100.0,
                "y": 6271900.0,
                "value_m": 12.0,
            }
            answers = {
                "unknown_crs": await client.call_tool("create_observation", mark | {"crs": "EPSG:999999"}),
                "tolerance": await client.call_tool("create_observation", mark | {"tolerance_m": 0}),
                "outside": await client.call_tool("create_observation", mark | {"x": 300000.0}),
                "unknown_event": await client.call_tool("create_observation", mark | {"event_id": 999999}),
            }
            await tool(client, "create_observation", mark)
            answers["not_complete"] = await client.call_tool(
                "compare_run_with_observations", {"run_id": build["run_id"], "event_id": event["id"]}
            )
            answers["unknown_run"] = await client.call_tool(
                "rank_runs_against_observations",
                {"project_id": model.project_id, "event_id": event["id"], "run_ids": [999999]},
            )
            listed = await tool(client, "list_observations", {"project_id": model.project_id})
        async with mcp_client(live_asgi.url, read_key) as reader:
            answers["read_key"] = await reader.call_tool(
                "create_flood_event",
                {"project_id": model.project_id, "name": "x", "started_at": "2024-01-01T00:00:00Z"},
            )
        return answers, listed

    answers, listed = asyncio.run(session())

    expected = {
        "unknown_crs": "INVALID_CRS",
        "tolerance": "INVALID_TOLERANCE",
        "outside": "OUTSIDE_TERRAIN",
        "unknown_event": "EVENT_NOT_FOUND",
        "not_complete": "RUN_NOT_COMPLETE",
        "unknown_run": "RUN_NOT_FOUND",
        "read_key": "GRANT_LEVEL_TOO_LOW",
    }
    assert {name: result.is_error for name, result in answers.items()} == dict.fromkeys(expected, True)
    for name, code in expected.items():
        assert code in text(answers[name]), text(answers[name])
    assert "built" in text(answers["not_complete"])
    assert listed["count"] == 1 and [e["name"] for e in listed["events"]] == ["Storm"]
