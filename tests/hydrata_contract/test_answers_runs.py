"""A run's answers are sent as they were given, and its statistics column dumps back what was written."""

from hydrata_contract.answers.runs import RunResults, RunStatistics, Series
from hydrata_contract.states import RunStatus


def test_a_field_never_given_is_absent_from_the_json_and_one_given_as_null_stays_null():
    results = RunResults(id=1, status=RunStatus.COMPLETE, ui_url="https://example.org/", statistics=None)

    sent = results.model_dump(mode="json")

    assert sent == {"id": 1, "status": "complete", "ui_url": "https://example.org/", "statistics": None}


def test_a_flow_lines_series_carries_only_its_discharge_not_a_gauges_empty_keys():
    line = Series.model_validate({"name": "creek", "kind": "flow_line", "t": [0.0, 60.0], "discharge": [0.0, 1.5]})

    assert line.model_dump(mode="json") == {
        "name": "creek",
        "kind": "flow_line",
        "t": [0.0, 60.0],
        "discharge": [0.0, 1.5],
    }


def test_statistics_dump_back_what_was_written_with_a_key_of_their_own_time_and_none_added():
    written = {
        "peak_depth_m": 1.25,
        "volume_balance": {"losses_m3": 2.0, "a_later_key_m3": 1.0},
        "solver": {"anuga_version": "3.2", "parameters": {"minimum_allowed_height": 0.001}},
        "a_key_of_its_own_time": [1, 2],
    }

    statistics = RunStatistics.model_validate(written)

    assert statistics.model_dump(mode="json") == written
    assert statistics.volume_balance is not None and statistics.volume_balance.losses_m3 == 2.0
    assert statistics.wet_area_m2 is None and statistics.health is None


def test_an_answer_sent_as_given_still_publishes_every_field_in_its_schema():
    published = RunResults.model_json_schema(mode="serialization")

    assert published == RunResults.model_json_schema(mode="validation")
    assert {"id", "statistics", "gn_layer_max_depth", "s3_log_url"} <= set(published["properties"])
