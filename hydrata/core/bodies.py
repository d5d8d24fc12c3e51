"""A write's body, parsed through its model in the contract (hydrata_contract/requests): the one place a refusal of
a body's fields is written. It answers as DRF's serializers did, a 400 `{"code", "detail", "errors"}` with the
messages by field (`errors`, non_field_errors for the body as a whole), and names the first field refused
(`field`, spelt as the JSON parser spells where a value is: `points[0].x`)."""

from collections.abc import Sequence
from typing import Any, TypeVar, get_args, get_origin

from django.http import QueryDict
from pydantic import ValidationError
from pydantic_core import ErrorDetails
from rest_framework.request import Request

from hydrata.core.errors import ValidationFailed
from hydrata_contract.errors import ErrorCode
from hydrata_contract.requests.base import Body

BodyModel = TypeVar("BodyModel", bound=Body)
WHOLE_BODY = "non_field_errors"


def parsed(model: type[BodyModel], request: Request) -> BodyModel:
    """`request.data` as `model`, or a 400 saying which fields are wrong and why."""
    try:
        return model.model_validate(_plain(model, request.data))
    except ValidationError as error:
        raise body_refused(model, error) from None


def _plain(model: type[Body], data: Any) -> Any:
    """A form's fields as JSON would give them: a list field takes every value of its key, another the last."""
    if not isinstance(data, QueryDict):
        return data
    return {key: data.getlist(key) if _is_list(model, key) else data[key] for key in data}


def _is_list(model: type[Body], name: str) -> bool:
    field = model.model_fields.get(name)
    if field is None:
        return False
    return any(get_origin(kind) is list for kind in (field.annotation, *get_args(field.annotation)))


def body_refused(model: type[Body], error: ValidationError) -> ValidationFailed:
    errors: dict[str, list[str]] = {}
    for problem in error.errors(include_url=False, include_input=False):
        errors.setdefault(where(problem["loc"]) or WHOLE_BODY, []).append(_message(model, problem))
    field, messages = next(iter(errors.items()))
    whole = field == WHOLE_BODY
    return ValidationFailed(
        messages[0] if whole else f"{field}: {messages[0]}",
        code=model.refusal_codes.get(field, ErrorCode.VALIDATION_ERROR),
        field=None if whole else field,
        errors=errors,
    )


def where(location: Sequence[int | str]) -> str:
    """('points', 0, 'x') -> points[0].x"""
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else f"{'.' if text else ''}{part}"
    return text


def _message(model: type[Body], problem: ErrorDetails) -> str:
    if problem["type"] == "extra_forbidden":
        return "is not a field this request takes; it takes " + ", ".join(_fields_at(model, problem["loc"])) + "."
    if problem["type"] == "value_error":  # a model's own check: its sentence, without pydantic's "Value error, "
        return str(problem.get("ctx", {}).get("error", problem["msg"]))
    if problem["type"] == "missing":
        return "This field is required."
    if not problem["loc"] and problem["type"] in ("model_type", "model_attributes_type", "dict_type"):
        return "The body must be a JSON object of this request's fields."
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
