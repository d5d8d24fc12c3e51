"""The one defensive reading of the numbers and JSON that callers send, without Django.

Python's `float()` raises OverflowError on an integer beyond the float range (a 400-digit integer) and returns
inf or nan for the strings "1e400", "inf" and "nan"; `json.loads` accepts NaN and Infinity, turns 1e400 into inf,
keeps lone surrogates ("\\ud800", which no UTF-8 text and no database holds) and recurses until RecursionError on
deep nesting. Every place that reads a number or a JSON document a caller wrote goes through here, and gets either
a finite float (or the document) or a refusal with a machine code and a reason a person can act on. The platform
wraps the refusals into its errors (hydrata/core/parsers.py, the services); compute uses them as they are.
"""

import json
import math
import numbers
import re
import sys
from dataclasses import dataclass
from typing import Any

from hydrata_contract.errors import ErrorCode

# A number written as text is at most this long: far more than any honest number needs, little enough that
# converting it costs nothing (int() of a long string is quadratic; Python refuses beyond 4,300 digits).
MAX_NUMBER_CHARACTERS = 100
# JSON integer literals up to this many digits are converted and checked against the float range; longer ones
# (which cannot be in range) are refused without being converted.
MAX_INTEGER_DIGITS = 400
# How deep arrays and objects may nest: real bodies and GeoJSON files nest less than ten deep.
MAX_JSON_DEPTH = 64
LARGEST = sys.float_info.max

NOT_A_NUMBER = ErrorCode.NOT_A_NUMBER
NUMBER_NOT_FINITE = ErrorCode.NUMBER_NOT_FINITE  # NaN or Infinity
NUMBER_OUT_OF_RANGE = ErrorCode.NUMBER_OUT_OF_RANGE  # finite, but beyond ±1.8e308 (1e400, a 400-digit integer)
NUMBER_TOO_LONG = ErrorCode.NUMBER_TOO_LONG  # text of more than MAX_NUMBER_CHARACTERS characters
INVALID_TEXT = ErrorCode.INVALID_TEXT  # a lone surrogate or a NUL character
JSON_TOO_DEEP = ErrorCode.JSON_TOO_DEEP

# Both are single characters of a class: the search is linear, nothing to backtrack.
_UNSTORABLE_CHARACTER = re.compile("[\x00\ud800-\udfff]")
# In JSON text a NUL or a surrogate can only come from a \u escape (UTF-8 holds no surrogates and JSON no raw NUL),
# so text without such an escape needs no look at its strings.
_UNSTORABLE_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")
_FLOAT_RANGE = "±1.8e308, the range of a number"


class NumberRefused(ValueError):
    """A value that is not a finite number; `reason` describes the value, e.g. "'abc' is not a number"."""

    def __init__(self, code: ErrorCode, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class JSONRefused(ValueError):
    """JSON that parses but cannot be used; `where` is the path to the value ("data.rowData[3].value"), "" for the
    document itself."""

    def __init__(self, code: ErrorCode, reason: str, *, where: str) -> None:
        super().__init__(f"{where}: {reason}" if where else reason)
        self.code = code
        self.reason = reason
        self.where = where


def excerpt(value: Any, limit: int = 40) -> str:
    """A value as a person reads it in a message, cut short: never the whole of a 100,000-character string."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _integer_text(value)
    return excerpt_text(repr(value), limit)


def excerpt_text(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def finite_number(value: Any) -> float:
    """A JSON number or a numeric string as a finite float, or NumberRefused saying why. Booleans are no numbers
    (float(True) is 1.0)."""
    if isinstance(value, str):
        return _number_from_text(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise NumberRefused(NOT_A_NUMBER, f"{excerpt(value)} is not a number")
    if isinstance(value, numbers.Integral):  # int, and numpy's integers
        if abs(int(value)) > LARGEST:
            raise NumberRefused(NUMBER_OUT_OF_RANGE, f"{excerpt(int(value))} is beyond {_FLOAT_RANGE}")
        return float(value)
    number = float(value)
    if not math.isfinite(number):
        raise NumberRefused(NUMBER_NOT_FINITE, f"{value!r} is not a finite number")
    return number


def finite_number_or_none(value: Any) -> float | None:
    """finite_number, with None for anything that is not a finite number (e.g. the name of a time series)."""
    try:
        return finite_number(value)
    except NumberRefused:
        return None


def whole_number(text: str) -> int:
    """Digits (an id in a query string) as an int, refusing anything else before converting it."""
    text = text.strip()
    if len(text) > MAX_NUMBER_CHARACTERS:
        raise NumberRefused(NUMBER_TOO_LONG, f"a number of {len(text):,} characters (at most {MAX_NUMBER_CHARACTERS})")
    if not (text.isascii() and text.isdigit()):
        raise NumberRefused(NOT_A_NUMBER, f"{excerpt(text)} is not a whole number")
    return int(text)


def unstorable_at(text: str) -> int | None:
    """The position of the first character `text_problem` refuses, or None."""
    found = _UNSTORABLE_CHARACTER.search(text)
    return None if found is None else found.start()


def text_problem(text: str) -> str | None:
    """Why a string cannot be stored or sent as UTF-8 text (a lone surrogate or a NUL), or None when it can."""
    found = _UNSTORABLE_CHARACTER.search(text)
    if found is None:
        return None
    character = found.group()
    what = "a NUL character" if character == "\x00" else f"a lone surrogate (U+{ord(character):04X})"
    return f"the text holds {what} at position {found.start()}, which neither UTF-8 nor a database can hold"


def json_read(text: str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse JSON text as json.loads does, but refuse (JSONRefused) what it accepts and nothing downstream can use:
    NaN and Infinity, numbers beyond the float range, lone surrogates and NUL in strings or keys, and nesting
    deeper than max_depth. Text that is not JSON raises json.JSONDecodeError, as json.loads does."""
    literals = _Literals()
    try:
        document = json.loads(
            text, parse_float=literals.decimal, parse_int=literals.integer, parse_constant=literals.constant
        )
    except RecursionError:
        # json's scanner recurses once per level and stops at the interpreter's limit, long before the end of
        # a body of 100,000 brackets: linear in what it read.
        raise JSONRefused(JSON_TOO_DEEP, _too_deep(max_depth), where="") from None
    if isinstance(document, _RefusedLiteral):
        raise JSONRefused(document.code, document.reason, where="")
    texts = _UNSTORABLE_ESCAPE.search(text) is not None
    if texts and isinstance(document, str):
        _check_text(document, ())
    deep = text.count("[") + text.count("{") > max_depth
    if isinstance(document, dict | list) and (deep or texts or literals.refused):
        _check_values(document, max_depth=max_depth, texts=texts, literals=literals.refused)
    return document


@dataclass(frozen=True)
class _RefusedLiteral:
    """Stands in for a number json.loads read but must not be used, until the walk names where it is."""

    code: ErrorCode
    reason: str


class _Literals:
    """json.loads' hooks for number literals: in range, or a _RefusedLiteral (the hooks do not know the path)."""

    def __init__(self) -> None:
        self.refused = False

    def decimal(self, literal: str) -> float | _RefusedLiteral:
        value = float(literal)
        if math.isfinite(value):
            return value
        return self._refuse(NUMBER_OUT_OF_RANGE, f"{excerpt_text(literal)} is beyond {_FLOAT_RANGE}")

    def integer(self, literal: str) -> int | _RefusedLiteral:
        digits = len(literal.lstrip("-"))
        if digits > MAX_INTEGER_DIGITS:
            return self._refuse(NUMBER_OUT_OF_RANGE, f"an integer of {digits:,} digits is beyond {_FLOAT_RANGE}")
        value = int(literal)
        if abs(value) > LARGEST:
            return self._refuse(NUMBER_OUT_OF_RANGE, f"an integer of {digits:,} digits is beyond {_FLOAT_RANGE}")
        return value

    def constant(self, name: str) -> _RefusedLiteral:
        return self._refuse(NUMBER_NOT_FINITE, f"{name} is not a number JSON allows; send a finite number or null")

    def _refuse(self, code: ErrorCode, reason: str) -> _RefusedLiteral:
        self.refused = True
        return _RefusedLiteral(code, reason)


def _check_values(document: Any, *, max_depth: int, texts: bool, literals: bool) -> None:
    """Walk the document without recursion and refuse an unusable value: too deep always, strings and keys when
    `texts`, refused number literals when `literals`. Only containers are pushed, so a long list of small objects
    costs one pass over its values."""
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(document, 0, ())]
    while stack:
        container, depth, path = stack.pop()
        if type(container) is str:
            _check_text(container, path)
            continue
        if depth >= max_depth:
            raise JSONRefused(JSON_TOO_DEEP, _too_deep(max_depth), where="")
        items = container.items() if type(container) is dict else enumerate(container)
        for key, item in items:
            kind = type(item)
            if kind is dict or kind is list:
                stack.append((item, depth + 1, (*path, key)))
            elif texts and kind is str:
                _check_text(item, (*path, key))
            elif literals and kind is _RefusedLiteral:
                raise JSONRefused(item.code, item.reason, where=json_path((*path, key)))
            if texts and type(key) is str and (problem := text_problem(key)):
                raise JSONRefused(INVALID_TEXT, f"the key {excerpt(key)}: {problem}", where=json_path(path))


def _check_text(text: str, path: tuple[str | int, ...]) -> None:
    if problem := text_problem(text):
        raise JSONRefused(INVALID_TEXT, problem, where=json_path(path))


def json_path(path: tuple[str | int, ...]) -> str:
    """("data", "rowData", 3, "value") -> "data.rowData[3].value"."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            name = part if part.isidentifier() else json.dumps(excerpt_text(part, 30))
            text += f".{name}" if text else name
    return text


def _number_from_text(value: str) -> float:
    text = value.strip()
    if len(text) > MAX_NUMBER_CHARACTERS:
        raise NumberRefused(NUMBER_TOO_LONG, f"a number of {len(text):,} characters (at most {MAX_NUMBER_CHARACTERS})")
    try:
        number = float(text)
    except ValueError:
        raise NumberRefused(NOT_A_NUMBER, f"{excerpt(value)} is not a number") from None
    if math.isfinite(number):
        return number
    if text.lstrip("+-")[:1].lower() in ("i", "n"):  # "inf", "Infinity", "nan"
        raise NumberRefused(NUMBER_NOT_FINITE, f"{excerpt(value)} is not a finite number")
    raise NumberRefused(NUMBER_OUT_OF_RANGE, f"{excerpt(value)} is beyond {_FLOAT_RANGE}")


def _integer_text(value: int) -> str:
    try:
        text = str(value)
    except ValueError:  # Python refuses to write out integers past 4,300 digits
        return "an integer of over 4,300 digits"
    digits = len(text.lstrip("-"))
    return text if digits <= 40 else f"{'a negative' if value < 0 else 'an'} integer of {digits:,} digits"


def _too_deep(max_depth: int) -> str:
    return f"arrays and objects nest more than {max_depth} deep; no request or file needs that"
