"""A write's body, parsed through its model in the contract (hydrata_contract/requests). A refusal is a 400 in the
shape DRF's serializers gave (hydrata_contract/requests/refusals.py says it): VALIDATION_ERROR, or the code a
service published for that field, with the messages by field."""

from typing import Any, TypeVar, get_args, get_origin

from django.http import QueryDict
from pydantic import ValidationError
from rest_framework.request import Request

from hydrata.core.errors import ValidationFailed
from hydrata_contract.requests.base import Body
from hydrata_contract.requests.refusals import body_refusal

BodyModel = TypeVar("BodyModel", bound=Body)


def parsed(model: type[BodyModel], request: Request) -> BodyModel:
    """`request.data` as `model`, or a 400 saying which fields are wrong and why."""
    try:
        return model.model_validate(_plain(model, request.data))
    except ValidationError as error:
        refusal = body_refusal(model, error)
        raise ValidationFailed(refusal.detail, code=refusal.code, field=refusal.field, errors=refusal.errors) from None


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
