"""The API's parsers. The one JSON parser: DRF's, reading through hydrata/compute/inputs/numbers.py, so that no JSON
body of any endpoint reaches a field with NaN, Infinity, a number beyond the float range, a lone surrogate or a NUL, or
nesting deep enough to exhaust the interpreter's recursion (each was a 500 somewhere: a choice field echoing a
lone surrogate could not be rendered as UTF-8, a 400-digit integer overflowed float(), 100,000 brackets raised
RecursionError). Each refusal is a 400 with a machine code naming where in the body the value is.

The form and multipart parsers hold a form to the JSON bodies' rule on text (`text_problem`: no NUL, no lone
surrogate, which neither UTF-8 nor PostgreSQL holds): every field's name and value and every file's field name and
file name, before any view reads them (a NUL in a file's name was stored on SQLite and a 500 on PostgreSQL). A
file's contents, where they are read as text, meet the same rule in `file_text` (hydrata/core/bodies.py)."""

from collections.abc import Mapping
from typing import Any

from django.http import QueryDict
from django.utils.datastructures import MultiValueDict
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from hydrata.compute.inputs.numbers import INVALID_TEXT, JSONRefused, excerpt, json_read, text_problem
from hydrata.core.errors import ValidationFailed


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        # DRF's own choice of charset, which refuses codecs that are not text (bz2_codec would inflate the body
        # past the size limit); newer than the type stubs.
        encoding = parsers.get_encoding(parser_context or {})  # type: ignore[attr-defined]
        try:
            text = stream.read().decode(encoding)
        except UnicodeDecodeError as error:
            raise ParseError(f"JSON parse error - the body is not {encoding} text ({error.reason}).") from None
        try:
            return json_read(text)
        except JSONRefused as refused:
            raise body_refusal(refused) from None
        except ValueError as error:  # json.JSONDecodeError, as DRF's own parser reports it
            raise ParseError(f"JSON parse error - {error}") from None


def body_refusal(refused: JSONRefused) -> ValidationFailed:
    where = f"{refused.where}: " if refused.where else ""
    return ValidationFailed(
        f"The request body cannot be used: {where}{refused.reason}.", code=refused.code, field=refused.where or None
    )


class FormParser(parsers.FormParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        data = super().parse(stream, media_type, parser_context)
        form_text_check(data, MultiValueDict())
        return data


class MultiPartParser(parsers.MultiPartParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        parsed = super().parse(stream, media_type, parser_context)
        form_text_check(parsed.data, parsed.files)
        return parsed


def form_text_check(data: QueryDict, files: MultiValueDict) -> None:
    """400 INVALID_TEXT for the first field name, field value, file field name or file name holding text that
    cannot be stored, naming where it is."""
    for key, values in data.lists():
        _text_check(key, key, what="the field name")
        for value in values:
            _text_check(value, key, what="the value")
    for key, uploaded in files.lists():
        _text_check(key, key, what="the field name")
        for one in uploaded:
            _text_check(one.name or "", key, what="the file name")


def _text_check(text: str, field: str, *, what: str) -> None:
    if problem := text_problem(text):
        where = excerpt(field) if text_problem(field) else field
        raise ValidationFailed(
            f"The request body cannot be used: {where}: {what} {excerpt(text)}: {problem}.",
            code=INVALID_TEXT,
            field=where,
        )
