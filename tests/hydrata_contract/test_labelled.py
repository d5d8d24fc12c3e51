"""The contract's enums: a wire value, and a label for people that Django's choices take as they are."""

import json

import pytest
from pydantic import BaseModel

from hydrata_contract.hazard import HazardClass
from hydrata_contract.layers import LAYER_UNITS, ResultLayer
from hydrata_contract.states import TERMINAL_RUN_STATES, RunStatus


def test_a_member_is_its_wire_value_in_comparisons_json_and_pydantic():
    class Answer(BaseModel):
        status: RunStatus

    assert RunStatus.COMPLETE == "complete"
    assert json.dumps({"status": RunStatus.ERROR}) == '{"status": "error"}'
    assert Answer(status="queued").model_dump(mode="json") == {"status": "queued"}
    assert RunStatus("cancelled") is RunStatus.CANCELLED


def test_an_unknown_value_is_refused_by_the_enum_and_by_a_model_that_reads_it():
    class Answer(BaseModel):
        status: RunStatus

    with pytest.raises(ValueError, match="'finished' is not a valid RunStatus"):
        RunStatus("finished")
    with pytest.raises(ValueError, match="status"):
        Answer(status="finished")


def test_choices_pair_each_value_with_its_label_in_declaration_order():
    assert RunStatus.choices()[:2] == [("created", "Created"), ("building", "Building")]
    assert dict(RunStatus.choices())["processing"] == "Processing results"
    assert RunStatus.values() == [member.value for member in RunStatus]


def test_a_terminal_run_state_is_one_the_run_never_leaves():
    assert set(TERMINAL_RUN_STATES) == {RunStatus.COMPLETE, RunStatus.ERROR, RunStatus.CANCELLED}


def test_every_result_layer_has_units_and_a_file_named_after_it():
    assert set(LAYER_UNITS) == set(ResultLayer)
    assert ResultLayer.MAX_SPEED.filename == "max_speed.tif"
    assert ResultLayer.MAX_SPEED.units == "m/s"


def test_hazard_classes_run_from_h1_to_h6_with_the_raster_numbers_and_arrs_labels():
    assert [item.number for item in HazardClass] == [1, 2, 3, 4, 5, 6]
    assert HazardClass.H1.label.startswith("H1: generally safe")
    assert HazardClass.H6.label.endswith("all building types vulnerable to failure")
