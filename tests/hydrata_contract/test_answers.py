"""The contract's answer models hold what their docstrings promise, before any view reaches them."""

import pytest
from pydantic import ValidationError

from hydrata_contract.answers.inputs import InputsByKind
from hydrata_contract.answers.scenarios import ScenarioDetail, ScenarioPublic, ScenarioRead
from hydrata_contract.inputs import InputKind


def test_every_input_kind_has_its_key_in_the_grouped_inputs_and_no_other_key_is_there():
    assert list(InputsByKind.model_fields) == InputKind.values()


PUBLIC = {
    "id": 1,
    "project": 2,
    "name": "Base",
    "description": "",
    "resolution": 10.0,
    "duration": 600,
    "computed_status": "created",
    "ui_url": "http://testserver/catalogue/#/map/3?panel=scenario&scenario=1",
    "reduced": True,
}


def test_a_scenario_read_is_the_published_part_or_the_whole_and_nothing_between():
    assert isinstance(ScenarioRead.model_validate(PUBLIC).root, ScenarioPublic)
    with pytest.raises(ValidationError):  # a public answer that carries an input is neither shape
        ScenarioRead.model_validate({**PUBLIC, "terrain": 4})
    assert set(ScenarioPublic.model_fields) - {"reduced"} < set(ScenarioDetail.model_fields)
