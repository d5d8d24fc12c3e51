"""A body its model refuses, said once for both wings: the platform answers it as a 400 (hydrata/core/bodies.py)
and a tool that builds a body (hydrata_mcp/bodies.py) raises the same refusal without the round trip. The shape is
the one DRF's serializers gave: the messages by field (`errors`, non_field_errors for the body as a whole), the
first of them as `detail`, and the first field refused (`field`, spelt as the JSON parser spells where a value
is: `points[0].x`)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from hydrata_contract.errors import ErrorCode
from hydrata_contract.requests.base import Body

WHOLE_BODY = "non_field_errors"


@dataclass(frozen=True)
class BodyRefusal:
    code: ErrorCode
    detail: str
    field: str | None
    errors: dict[str, list[str]]


# A value of the right type that the field does not take (too large, not one of its choices): the field's own code
# (`Body.refusal_codes`) rather than VALIDATION_ERROR, which a value of the wrong type keeps.
OUT_OF_RANGE = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal", "enum"})


def body_refusal(model: type[Body], error: ValidationError) -> BodyRefusal:
    problems = error.errors(include_url=False, include_input=False)
    errors: dict[str, list[str]] = {}
    for problem in problems:
        errors.setdefault(where(problem["loc"]) or WHOLE_BODY, []).append(_message(model, problem))
    field, messages = next(iter(errors.items()))
    if field == WHOLE_BODY:
        return BodyRefusal(code=ErrorCode.VALIDATION_ERROR, detail=messages[0], field=None, errors=errors)
    out_of_range = problems[0]["type"] in OUT_OF_RANGE
    code = model.refusal_codes.get(field, ErrorCode.VALIDATION_ERROR) if out_of_range else ErrorCode.VALIDATION_ERROR
    return BodyRefusal(code=code, detail=f"{field}: {messages[0]}", field=field, errors=errors)


def where(location: Sequence[int | str]) -> str:
    """('points', 0, 'x') -> points[0].x"""
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else f"{'.' if text else ''}{part}"
    return text


def _message(model: type[Body], problem: Mapping[str, Any]) -> str:
    if problem["type"] == "extra_forbidden":
        return "is not a field this request takes; it takes " + ", ".join(_fields_at(model, problem["loc"])) + "."
    if problem["type"] == "value_error":  # a model's own check: its sentence, without pydantic's "Value error, "
        return str(problem.get("ctx", {}).get("error", problem["msg"]))
    if problem["type"] == "missing":
        return "This field is required."
    if problem["type"] in ("model_type", "model_attributes_type", "dict_type"):  # pydantic names its class
        fields = ", ".join(_fields_at(model, [*problem["loc"], ""]))
        return f"{'The body' if not problem['loc'] else 'This'} must be a JSON object of the fields {fields}."
    return problem["msg"]


def _fields_at(model: type[Body], location: Sequence[int | str]) -> list[str]:
    """The fields of the model the unknown field was sent to (the body's, or a nested body's such as overrides)."""
    for part in location[:-1]:
        field = model.model_fields.get(str(part))
        nested = field.annotation if field else None
        if not (isinstance(nested, type) and issubclass(nested, Body)):
            break
        model = nested
    return sorted(model.model_fields)
