"""The API's one JSON parser: DRF's, reading through hydrata/compute/numbers.py, so that no JSON body of any
endpoint reaches a field with NaN, Infinity, a number beyond the float range, a lone surrogate or a NUL, or
nesting deep enough to exhaust the interpreter's recursion (each was a 500 somewhere: a choice field echoing a
lone surrogate could not be rendered as UTF-8, a 400-digit integer overflowed float(), 100,000 brackets raised
RecursionError). Each refusal is a 400 with a machine code naming where in the body the value is."""

from collections.abc import Mapping
from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError

from hydrata.compute.numbers import JSONRefused, json_read
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
