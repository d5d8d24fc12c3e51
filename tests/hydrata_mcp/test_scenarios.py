"""Scenarios and the build through the official SDK client: the price before spending, then a real mesh."""

import asyncio
import json

import pytest

from hydrata.agents.models import AgentActivity
from hydrata.anuga.models import Run, Scenario
from tests.data import BOUNDARY
from tests.factories import make_grant
from tests.mcp_client import mcp_client
from tests.model_setup import PROJECTS, api, attach, small_test_model, upload_geojson

pytestmark = pytest.mark.django_db(transaction=True)


def calls(url: str, key: str, steps):
    async def session():
        async with mcp_client(url, key) as client:
            return [await client.call_tool(name, arguments) for name, arguments in steps]

    return asyncio.run(session())


def build_posts(project_id: int, scenario_id: int) -> int:
    return AgentActivity.objects.filter(
        method="POST", path=f"{PROJECTS}{project_id}/scenarios/{scenario_id}/build/"
    ).count()


def test_create_scenario_says_before_any_price_when_the_mesh_cannot_be_built_or_is_finer_than_the_terrain(
    live_asgi, settings
):
    """The limit was met only at build_scenario, after the engineer had been shown a price to approve; the small
    test terrain has 1 m cells."""
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)
    settings.HYDRATA_MESH_MAX_TRIANGLES = 20_000
    scenario = {"project_id": model.project_id, "duration": 600}

    too_fine, fine, too_large = (
        result.structured_content
        for result in calls(
            live_asgi.url,
            key,
            [
                ("create_scenario", {**scenario, "name": "0.8 m", "resolution": 0.8}),
                ("create_scenario", {**scenario, "name": "5 m", "resolution": 5}),
                ("create_scenario", {**scenario, "name": "1.2 m", "resolution": 1.2}),
            ],
        )
    )

    assert [w["code"] for w in too_fine["mesh_estimate_warnings"]] == [
        "MESH_TOO_LARGE",
        "RESOLUTION_FINER_THAN_TERRAIN",
    ]
    assert fine["mesh_estimate_warnings"] == [] and "$" in fine["say_to_user"]
    assert [w["code"] for w in too_large["mesh_estimate_warnings"]] == ["MESH_TOO_LARGE"]
    for refused in (too_fine, too_large):
        said = refused["say_to_user"]
        assert "too many to build, so no price to approve" in said and "above the limit of 20,000" in said
        assert "$" not in said
        assert refused["summary"]["mesh_estimate_warnings"] == refused["mesh_estimate_warnings"]
    assert "finer than the terrain's 1 m cells" in too_fine["say_to_user"]


def test_a_scenario_shows_its_price_builds_a_real_mesh_and_is_not_built_twice(live_asgi):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)
    pid = model.project_id

    [created] = calls(
        live_asgi.url,
        key,
        [("create_scenario", {"project_id": pid, "name": "5 m, 30 min", "resolution": 5, "duration": 1800})],
    )
    scenario = created.structured_content
    sid = scenario["id"]
    built, again = calls(
        live_asgi.url,
        key,
        [
            ("build_scenario", {"project_id": pid, "scenario_id": sid, "poll_interval_seconds": 2}),
            ("build_scenario", {"project_id": pid, "scenario_id": sid, "poll_interval_seconds": 2}),
        ],
    )

    assert scenario["computed_status"] == "created" and scenario["boundary"] == model.rows["boundary"]
    assert scenario["rainfall"] == model.rows["rainfall"] and scenario["terrain"] == model.terrain_id
    estimate = scenario["mesh_triangle_count_estimate"]
    assert 3000 < estimate < 7000
    assert float(scenario["compute_cost_estimate"]) > 0 and scenario["vcpu_hours_estimate"] > 0
    assert scenario["summary"]["mesh_triangle_count_estimate"] == estimate and "$" in scenario["say_to_user"]
    assert scenario["mesh_estimate_breakdown"][0]["region"] == "base"

    result = built.structured_content
    assert result["outcome"] == "built" and result["computed_status"] == "built" and result["posted"] is True
    assert abs(result["mesh_triangle_count"] - estimate) <= 0.10 * estimate
    assert result["run_id"] and f"run={result['run_id']}" in result["ui_url"]
    assert again.structured_content["outcome"] == "built" and again.structured_content["posted"] is False
    assert build_posts(pid, sid) == 1

    [updated, rebuilt] = calls(
        live_asgi.url,
        key,
        [
            ("update_scenario", {"project_id": pid, "scenario_id": sid, "resolution": 4}),
            ("build_scenario", {"project_id": pid, "scenario_id": sid, "poll_interval_seconds": 2}),
        ],
    )
    assert updated.structured_content["latest_run_is_valid"] is False
    assert rebuilt.structured_content["posted"] is True and rebuilt.structured_content["outcome"] == "built"
    assert rebuilt.structured_content["mesh_triangle_count"] > result["mesh_triangle_count"]
    assert build_posts(pid, sid) == 2


def test_rebuild_true_builds_again_even_when_the_build_is_valid(live_asgi):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)
    [created] = calls(
        live_asgi.url,
        key,
        [("create_scenario", {"project_id": model.project_id, "name": "s", "resolution": 10, "duration": 600})],
    )
    sid = created.structured_content["id"]
    first, second = calls(
        live_asgi.url,
        key,
        [
            ("build_scenario", {"project_id": model.project_id, "scenario_id": sid, "poll_interval_seconds": 2}),
            (
                "build_scenario",
                {"project_id": model.project_id, "scenario_id": sid, "rebuild": True, "poll_interval_seconds": 2},
            ),
        ],
    )

    assert first.structured_content["posted"] and second.structured_content["posted"]
    assert second.structured_content["run_id"] != first.structured_content["run_id"]


def test_above_100000_triangles_the_build_waits_for_confirmation_and_states_the_number(live_asgi):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)
    [created] = calls(
        live_asgi.url,
        key,
        [("create_scenario", {"project_id": model.project_id, "name": "fine", "resolution": 0.8, "duration": 600})],
    )
    sid = created.structured_content["id"]
    estimate = created.structured_content["mesh_triangle_count_estimate"]
    unconfirmed, confirmed = calls(
        live_asgi.url,
        key,
        [
            ("build_scenario", {"project_id": model.project_id, "scenario_id": sid}),
            (
                "build_scenario",
                {"project_id": model.project_id, "scenario_id": sid, "confirm": True, "poll_interval_seconds": 2},
            ),
        ],
    )

    assert estimate > 100_000
    assert unconfirmed.structured_content["outcome"] == "needs_confirmation"
    assert unconfirmed.structured_content["posted"] is False
    assert f"{estimate:,}" in unconfirmed.structured_content["say_to_user"]
    assert confirmed.structured_content["posted"] is True and confirmed.structured_content["outcome"] == "built"
    assert build_posts(model.project_id, sid) == 1


def test_clone_copies_the_model_under_a_new_name_with_overrides(live_asgi):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)
    [created] = calls(
        live_asgi.url,
        key,
        [("create_scenario", {"project_id": model.project_id, "name": "base", "resolution": 5, "duration": 1800})],
    )
    source = created.structured_content
    [clone, listed, fetched] = calls(
        live_asgi.url,
        key,
        [
            (
                "clone_scenario",
                {
                    "project_id": model.project_id,
                    "scenario_id": source["id"],
                    "name": "coarse",
                    "overrides": {"resolution": 10},
                },
            ),
            ("list_scenarios", {"project_id": model.project_id}),
            ("get_scenario", {"project_id": model.project_id, "scenario_id": source["id"]}),
        ],
    )

    copy = clone.structured_content
    assert copy["name"] == "coarse" and copy["resolution"] == 10 and copy["duration"] == 1800
    assert copy["boundary"] == source["boundary"] and copy["id"] != source["id"]
    assert copy["mesh_triangle_count_estimate"] < source["mesh_triangle_count_estimate"]
    assert {row["name"] for row in listed.structured_content["results"]} == {"base", "coarse"}
    assert fetched.structured_content["resolution"] == 5


def bad_boundary(url: str, key: str, model, features: list[dict]) -> None:
    with api(url, key) as http:
        collection = {
            "type": "FeatureCollection",
            "crs": {"type": "name", "properties": {"name": "EPSG:28356"}},
            "features": features,
        }
        assert attach(http, model, "boundary", upload_geojson(http, "bad.geojson", collection)).status_code == 200


def refusal(url: str, key: str, model, **scenario) -> dict:
    [created] = calls(
        url,
        key,
        [
            (
                "create_scenario",
                {"project_id": model.project_id, "name": "bad", "resolution": 5, "duration": 600, **scenario},
            )
        ],
    )
    assert not created.is_error, created.content[0].text
    [built] = calls(
        url,
        key,
        [("build_scenario", {"project_id": model.project_id, "scenario_id": created.structured_content["id"]})],
    )
    assert not built.is_error, built.content[0].text
    return built.structured_content


def small_test_features() -> list[dict]:
    return json.loads(BOUNDARY.read_text())["features"]


def test_no_boundary_features_is_refused_without_posting_and_links_the_map(live_asgi):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key, boundary=False)

    result = refusal(live_asgi.url, key, model, boundary=model.rows["boundary"])

    assert result["outcome"] == "refused" and result["code"] == "BOUNDARY_EMPTY" and result["posted"] is False
    assert "panel=inputs" in result["ui_url"]


def test_internal_edges_only_is_refused_as_no_external_boundary(live_asgi):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)
    features = small_test_features()
    for feature in features:
        feature["properties"]["location"] = "Internal"
    bad_boundary(live_asgi.url, key, model, features)

    result = refusal(live_asgi.url, key, model)

    assert result["code"] == "BOUNDARY_NO_EXTERNAL" and "ui_url" in result


def test_external_edges_with_a_gap_are_refused_naming_where(live_asgi):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)
    bad_boundary(live_asgi.url, key, model, small_test_features()[:-1])

    result = refusal(live_asgi.url, key, model)

    assert result["code"] == "BOUNDARY_NO_EXTERNAL"
    assert "251" in result["detail"]  # names the coordinates of the gap


def test_mesh_regions_without_units_are_refused(live_asgi):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)
    region = {
        "type": "Feature",
        "properties": {"resolution": 2},
        "geometry": {
            "type": "Polygon",
            "coordinates": [
                [[251050, 6271850], [251150, 6271850], [251150, 6271950], [251050, 6271950], [251050, 6271850]]
            ],
        },
    }
    with api(live_asgi.url, key) as http:
        collection = {
            "type": "FeatureCollection",
            "crs": {"type": "name", "properties": {"name": "EPSG:28356"}},
            "features": [region],
        }
        assert (
            attach(http, model, "mesh_region", upload_geojson(http, "regions.geojson", collection)).status_code == 200
        )

    result = refusal(live_asgi.url, key, model, mesh_region=model.rows["mesh_region"])

    assert result["code"] == "MESH_REGION_UNITS_UNMARKED"


def test_a_model_without_rainfall_or_inflow_is_refused_by_the_platform(live_asgi):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key, rainfall=False)

    result = refusal(live_asgi.url, key, model)

    assert result["code"] == "NO_FORCING" and result["posted"] is False


def test_a_mesh_above_the_ceiling_is_refused_with_estimate_and_ceiling(live_asgi, settings):
    settings.HYDRATA_MESH_MAX_TRIANGLES = 1000
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)

    result = refusal(live_asgi.url, key, model)

    assert result["code"] == "MESH_TOO_LARGE" and "1,000" in result["detail"]


def test_a_read_key_cannot_create_or_build_a_scenario(live_asgi):
    grant, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)
    read_grant, read_key = make_grant(grant.user, level="read")
    [existing] = calls(
        live_asgi.url,
        key,
        [("create_scenario", {"project_id": model.project_id, "name": "mine", "resolution": 10, "duration": 60})],
    )
    sid = existing.structured_content["id"]

    [created, built] = calls(
        live_asgi.url,
        read_key,
        [
            ("create_scenario", {"project_id": model.project_id, "name": "x", "resolution": 5, "duration": 60}),
            ("build_scenario", {"project_id": model.project_id, "scenario_id": sid, "poll_interval_seconds": 2}),
        ],
    )

    for refused in (created, built):
        assert refused.is_error and "GRANT_LEVEL_TOO_LOW" in refused.content[0].text
        assert "draft" in refused.content[0].text
    assert list(Scenario.objects.filter(project_id=model.project_id).values_list("name", flat=True)) == ["mine"]
    assert not Run.objects.filter(scenario_id=sid).exists()
    build = f"{PROJECTS}{model.project_id}/scenarios/{sid}/build/"
    assert AgentActivity.objects.get(grant=read_grant, method="POST", path=build).status_code == 403


def test_a_scenario_hands_back_the_rain_the_model_will_apply_over_its_run_in_the_series_units(live_asgi):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key)
    pid = model.project_id
    storm = [
        {"timestamp": "2024-01-01T00:00:00Z", "value": 0.0},
        {"timestamp": "2024-01-01T00:10:00Z", "value": 5.0},
        {"timestamp": "2024-01-01T00:20:00Z", "value": 15.0},
    ]
    with api(live_asgi.url, key) as http:
        rainfall = json.loads((BOUNDARY.parent / "rainfall.geojson").read_text())
        rainfall["features"][0]["properties"]["data"] = "storm"
        assert attach(http, model, "rainfall", upload_geojson(http, "rain.geojson", rainfall)).status_code == 200

    created, whole_run, from_five = calls(
        live_asgi.url,
        key,
        [
            (
                "create_time_series",
                {"project_id": pid, "name": "storm", "units": "mm cumulative", "data": {"rowData": storm}},
            ),
            ("create_scenario", {"project_id": pid, "name": "20 min", "resolution": 10, "duration": 1200}),
            # from 00:05, for ten minutes: 2.5 mm at 30 mm/h, then 5 mm at 60 mm/h
            (
                "create_scenario",
                {
                    "project_id": pid,
                    "name": "from 00:05",
                    "resolution": 10,
                    "duration": 600,
                    "model_start": "2024-01-01T00:05:00Z",
                },
            ),
        ],
    )

    assert not created.is_error, created.content[0].text
    whole, window = whole_run.structured_content, from_five.structured_content
    assert whole["summary"]["rain_total_depth_mm"] == pytest.approx(15)
    assert whole["summary"]["rain_peak_intensity_mm_per_h"] == pytest.approx(60)
    assert "Over the run the model will apply up to 15 mm of rain, at most 60 mm/h." in whole["say_to_user"]
    assert window["summary"]["rain_total_depth_mm"] == pytest.approx(7.5)
    assert "up to 7.5 mm of rain" in window["say_to_user"]
    assert "inflow_volume_m3" not in window["summary"]
