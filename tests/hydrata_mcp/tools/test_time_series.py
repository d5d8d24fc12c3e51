"""create_time_series refuses a series of no rows as an argument error, before anything reaches the platform."""

import pytest

from hydrata.agents.models import AgentActivity
from hydrata.anuga.models import TimeSeries
from tests.factories import make_grant, make_project
from tests.mcp_client import call

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_series_of_no_rows_is_an_argument_error_and_nothing_is_stored(live_asgi):
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)

    result = call(
        live_asgi.url, key, "create_time_series", {"project_id": project.pk, "name": "rain", "data": {"rowData": []}}
    )

    assert result.is_error
    assert "rowData" in result.content[0].text and "at least 1 item" in result.content[0].text
    assert not TimeSeries.objects.exists()
    assert not AgentActivity.objects.filter(grant=grant).exists()


STORM = [
    {"timestamp": "2024-01-01T00:00:00Z", "value": 0.0},
    {"timestamp": "2024-01-01T00:10:00Z", "value": 5.0},
    {"timestamp": "2024-01-01T00:20:00Z", "value": 15.0},
    {"timestamp": "2024-01-01T00:30:00Z", "value": 18.0},
]


def test_a_storm_in_cumulative_mm_hands_back_the_depth_and_the_peak_intensity_the_model_will_apply(live_asgi):
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)

    result = call(
        live_asgi.url,
        key,
        "create_time_series",
        {"project_id": project.pk, "name": "storm", "units": "cumulative mm", "data": {"rowData": STORM}},
    )

    assert not result.is_error, result.content[0].text
    content = result.structured_content
    assert content["units"] == "mm cumulative" and TimeSeries.objects.get().units == "mm cumulative"
    assert content["summary"]["applies_as"] == "rain"
    assert content["summary"]["total_depth_mm"] == pytest.approx(18)
    assert content["summary"]["peak_intensity_mm_per_h"] == pytest.approx(60)
    assert (
        "will apply 18 mm of rain in total from 2024-01-01T00:00:00Z to 2024-01-01T00:30:00Z"
        in (content["say_to_user"])
    )
    assert "at most 60 mm/h" in content["say_to_user"]


def test_a_hydrograph_hands_back_the_volume_and_the_peak_flow(live_asgi):
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)
    rows = [{**row, "value": value} for row, value in zip(STORM, [0.0, 2.0, 4.0, 0.0], strict=True)]

    result = call(
        live_asgi.url,
        key,
        "create_time_series",
        {"project_id": project.pk, "name": "creek", "series_type": "hydrograph", "data": {"rowData": rows}},
    )

    content = result.structured_content
    assert content["summary"]["volume_m3"] == pytest.approx(3600) and content["summary"]["peak_m3_per_s"] == 4
    assert "bring in 3,600 m³" in content["say_to_user"] and "at most 4 m³/s" in content["say_to_user"]


def test_units_the_model_does_not_know_are_a_tool_error_that_lists_the_ones_it_does(live_asgi):
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)

    result = call(
        live_asgi.url,
        key,
        "create_time_series",
        {"project_id": project.pk, "name": "storm", "units": "mm", "data": {"rowData": STORM}},
    )

    assert result.is_error
    text = result.content[0].text
    assert "HTTP 400, UNKNOWN_UNITS" in text and "'mm' alone is ambiguous" in text
    assert all(units in text for units in ("mm/hr", "mm/interval", "mm cumulative"))
    assert not TimeSeries.objects.exists()


@pytest.mark.parametrize("series_type", [None, "hyetograph"])
def test_a_hyetograph_without_units_is_refused_with_the_three_rain_units_and_nothing_is_stored(live_asgi, series_type):
    """It was stored as mm/hr: a depth per interval read as an intensity scales the storm by the interval."""
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)
    typed = {"series_type": series_type} if series_type else {}

    result = call(
        live_asgi.url,
        key,
        "create_time_series",
        {"project_id": project.pk, "name": "storm", **typed, "data": {"rowData": STORM}},
    )

    assert result.is_error
    text = result.content[0].text
    assert "A hyetograph needs `units`" in text and "'mm' alone is ambiguous" in text
    assert all(units in text for units in ("mm/hr", "mm/interval", "mm cumulative"))
    assert not TimeSeries.objects.exists()
    assert not AgentActivity.objects.filter(grant=grant).exists()


def test_a_hydrograph_or_a_stage_without_units_is_taken_in_its_one_unit(live_asgi):
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)

    for series_type, name in (("hydrograph", "creek"), ("stage", "tide")):
        result = call(
            live_asgi.url,
            key,
            "create_time_series",
            {"project_id": project.pk, "name": name, "series_type": series_type, "data": {"rowData": STORM}},
        )
        assert not result.is_error, result.content[0].text

    assert dict(TimeSeries.objects.values_list("name", "units")) == {"creek": "m3/s", "tide": "m"}


def test_cumulative_rain_that_decreases_is_a_tool_error_naming_the_row(live_asgi):
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)
    rows = [*STORM[:3], {**STORM[3], "value": 12.0}]

    result = call(
        live_asgi.url,
        key,
        "create_time_series",
        {"project_id": project.pk, "name": "storm", "units": "mm cumulative", "data": {"rowData": rows}},
    )

    assert result.is_error
    assert "CUMULATIVE_DECREASES" in result.content[0].text and "rowData[3]" in result.content[0].text
    assert not TimeSeries.objects.exists()
