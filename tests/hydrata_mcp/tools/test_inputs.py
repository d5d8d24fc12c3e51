"""attach_input_layer hands back what a rainfall or inflow layer will apply, in the platform's numbers."""

import json

import pytest

from tests.data import RAINFALL
from tests.factories import make_grant
from tests.mcp_client import call
from tests.model_setup import PROJECTS, api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)

STORM = [
    {"timestamp": "2024-01-01T00:00:00Z", "value": 0.0},
    {"timestamp": "2024-01-01T00:10:00Z", "value": 5.0},
    {"timestamp": "2024-01-01T00:20:00Z", "value": 15.0},
]


def test_a_rainfall_layer_naming_a_cumulative_series_hands_back_its_depth_and_peak_and_what_it_cannot_apply(
    live_asgi,
):
    _, key = make_grant(level="draft")
    model = small_test_model(live_asgi.url, key, rainfall=False)
    collection = json.loads(RAINFALL.read_text())
    polygon = collection["features"][0]
    collection["features"] = [
        {**polygon, "properties": {"data": "storm"}},
        {**polygon, "properties": {"data": "12.5"}},
        {**polygon, "properties": {"data": "no such gauge"}},
    ]
    with api(live_asgi.url, key) as http:
        series = {"name": "storm", "series_type": "hyetograph", "units": "cumulative mm", "data": {"rowData": STORM}}
        assert http.post(f"{PROJECTS}{model.project_id}/time-series/", json=series).status_code == 201
        upload = http.post(
            "/api/v2/uploads/upload/",
            files={"base_file": ("rain.geojson", json.dumps(collection).encode(), "application/geo+json")},
        )

    result = call(
        live_asgi.url,
        key,
        "attach_input_layer",
        {"project_id": model.project_id, "kind": "rainfall", "execution_id": upload.json()["execution_id"]},
    )

    assert not result.is_error, result.content[0].text
    content = result.structured_content
    assert content["outcome"] == "attached"
    assert content["summary"]["rain_total_depth_mm"] == pytest.approx(15)
    assert content["summary"]["rain_peak_intensity_mm_per_h"] == pytest.approx(60)
    assert content["summary"]["constant_features"] == 1
    assert "Their series bring up to 15 mm of rain, at most 60 mm/h." in content["say_to_user"]
    assert "1 feature(s) apply a constant rate for the whole run." in content["say_to_user"]
    [problem] = content["summary"]["forcing_problems"]
    assert "'no such gauge'" in problem and "It cannot apply" in content["say_to_user"]
