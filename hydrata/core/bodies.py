"""A write's body, parsed through its model in the contract (hydrata_contract/requests). A refusal is a 400 in the
shape DRF's serializers gave (hydrata_contract/requests/refusals.py says it): VALIDATION_ERROR, or the code a
service published for that field, with the messages by field. And a file of the body read as text (`file_text`),
held to the same rule on characters as every other text of a body."""

from typing import Any, TypeVar, get_args, get_origin

from django.core.files.uploadedfile import UploadedFile
from django.http import QueryDict
from pydantic import ValidationError
from rest_framework.request import Request

from hydrata.compute.inputs.numbers import INVALID_TEXT, text_problem, unstorable_at
from hydrata.core.errors import ValidationFailed
from hydrata_contract.errors import ErrorCode
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


def file_text(*, uploaded: UploadedFile | None, content: str | None, limit: int, field: str) -> str:
    """A text file sent as a multipart file or as a JSON string: UTF-8 (with or without its byte-order mark), else
    Windows-1252, as spreadsheets save CSV; at most `limit` bytes (400 UPLOAD_TOO_LARGE); and no character a
    database cannot store (400 INVALID_TEXT naming its line: the JSON bodies' rule, `text_problem`)."""
    if uploaded is not None:
        data = uploaded.read(limit + 1)
        size = len(data)
    else:
        text = content or ""
        size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise ValidationFailed(
            f"The file is more than {limit:,} bytes; a file here may be at most that.",
            code=ErrorCode.UPLOAD_TOO_LARGE,
            max_bytes=limit,
        )
    if uploaded is not None:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("cp1252", errors="replace")
    position = unstorable_at(text)
    if position is not None:
        before = text[:position]
        line = before.count("\n") + before.count("\r") - before.count("\r\n") + 1  # as the CSV readers count
        raise ValidationFailed(
            f"The file cannot be stored: line {line}: {text_problem(text)}. Save it again as plain text and send it "
            "again.",
            code=INVALID_TEXT,
            field=field,
            line=line,
        )
    return text
