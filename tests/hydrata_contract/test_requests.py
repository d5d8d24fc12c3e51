"""The contract's request models (hydrata_contract/requests) and the one shape of their refusals, on their own: the
platform's views (tests/hydrata/core/test_bodies.py) and the tools use them as they are here."""

import inspect
import pkgutil
from datetime import UTC, datetime
from importlib import import_module

import pytest
from pydantic import ValidationError

import hydrata_contract.requests
from hydrata_contract.errors import ErrorCode
from hydrata_contract.requests.base import Body
from hydrata_contract.requests.observations import FloodEventCreate, ObservationChanges
from hydrata_contract.requests.refusals import body_refusal, where
from hydrata_contract.requests.scenarios import ScenarioChanges, ScenarioClone, ScenarioCreate
from hydrata_contract.requests.uploads import DatasetUpload

# GeoNode's upload form carries fields of GeoNode's that the platform ignores.
TAKES_OTHER_FIELDS = {DatasetUpload}


def request_models() -> list[type[Body]]:
    found = set()
    for module in pkgutil.iter_modules(hydrata_contract.requests.__path__):
        members = inspect.getmembers(import_module(f"hydrata_contract.requests.{module.name}"), inspect.isclass)
        found |= {model for _, model in members if issubclass(model, Body) and model.model_fields}
    return sorted(found, key=lambda model: model.__name__)


def refusal(model: type[Body], data: object):
    with pytest.raises(ValidationError) as raised:
        model.model_validate(data)
    return body_refusal(model, raised.value)


@pytest.mark.parametrize(
    "model", [m for m in request_models() if m not in TAKES_OTHER_FIELDS], ids=lambda m: m.__name__
)
def test_every_request_model_refuses_a_field_it_does_not_name_and_says_which_it_takes(model):
    refused = refusal(model, {"colour": "blue"})

    assert refused.errors["colour"][0].startswith("is not a field this request takes; it takes ")
    assert all(name in refused.errors["colour"][0] for name in model.model_fields)


@pytest.mark.parametrize("model", request_models(), ids=lambda m: m.__name__)
def test_every_field_of_every_request_model_is_described(model):
    assert [name for name, field in model.model_fields.items() if not field.description] == []


def test_a_change_sends_on_only_the_fields_given_and_keeps_an_explicit_null():
    changes = ScenarioChanges.model_validate({"duration": 600, "friction": None})

    assert changes.model_dump(exclude_unset=True) == {"duration": 600, "friction": None}


def test_a_field_a_change_cannot_set_to_null_is_refused_as_null_and_has_no_null_default_in_the_schema():
    refused = refusal(ScenarioChanges, {"resolution": None})
    properties = ScenarioChanges.model_json_schema()["properties"]

    assert refused.code == ErrorCode.VALIDATION_ERROR and refused.field == "resolution"
    assert "default" not in properties["resolution"] and properties["friction"]["default"] is None


def test_a_time_without_an_offset_is_read_as_utc():
    event = FloodEventCreate.model_validate({"name": "March", "started_at": "2022-03-01T06:00:00"})

    assert event.started_at == datetime(2022, 3, 1, 6, tzinfo=UTC)


@pytest.mark.parametrize(
    ("given", "in_utc"),
    [
        ("0207-08-23T23:40:20-17:15", datetime(207, 8, 24, 16, 55, 20, tzinfo=UTC)),
        ("2022-03-01T06:00:00+15:59", datetime(2022, 2, 28, 14, 1, tzinfo=UTC)),
        ("2022-03-01T06:00:00+10:00", datetime(2022, 2, 28, 20, tzinfo=UTC)),
    ],
)
def test_a_time_with_any_offset_iso_allows_is_kept_in_utc(given, in_utc):
    event = FloodEventCreate.model_validate({"name": "March", "started_at": given})

    assert event.started_at == in_utc and event.started_at.utcoffset().total_seconds() == 0


@pytest.mark.parametrize("given", ["0001-01-01T00:30:00+01:00", "9999-12-31T23:30:00-01:00"])
def test_a_time_that_leaves_the_calendar_once_in_utc_is_refused_with_a_sentence(given):
    refused = refusal(FloodEventCreate, {"name": "March", "started_at": given})

    assert (refused.code, refused.field) == (ErrorCode.VALIDATION_ERROR, "started_at")
    assert "years 1 to 9999" in refused.detail


def test_a_value_out_of_range_takes_the_fields_code_and_a_value_of_the_wrong_type_validation_error():
    assert refusal(ScenarioCreate, {"name": "s", "resolution": 0, "duration": 60}).code == ErrorCode.INVALID_RESOLUTION
    assert refusal(ScenarioCreate, {"name": "s", "resolution": [1], "duration": 60}).code == ErrorCode.VALIDATION_ERROR
    nested = refusal(ScenarioClone, {"name": "copy", "overrides": {"duration": 0}})
    assert (nested.code, nested.field) == (ErrorCode.INVALID_DURATION, "overrides.duration")


def test_a_refusal_names_where_the_value_is_and_says_a_body_must_be_an_object():
    whole = refusal(ObservationChanges, [1, 2])

    assert where(("points", 0, "x")) == "points[0].x" and where(()) == ""
    assert whole.field is None and whole.detail.startswith("The body must be a JSON object of the fields ")
    assert list(whole.errors) == ["non_field_errors"]


def test_metres_that_are_no_number_are_refused_with_the_sentence_that_says_how_to_give_them():
    refused = refusal(ObservationChanges, {"value_m": "high"})

    assert refused.detail == "value_m: Give a finite number of metres, e.g. 12.35."
