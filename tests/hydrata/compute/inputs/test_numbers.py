"""The one defensive reading of numbers and JSON (hydrata/compute/inputs/numbers.py)."""

import json
import math

import numpy as np
import pytest

from hydrata.compute.inputs.numbers import (
    MAX_JSON_DEPTH,
    JSONRefused,
    NumberRefused,
    excerpt,
    finite_number,
    finite_number_or_none,
    json_read,
    text_problem,
    whole_number,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, 1.0),
        (-2.5, -2.5),
        ("3.25", 3.25),
        (" 4 ", 4.0),
        (10**300, 1e300),
        ("1.7976931348623157e308", 1.7976931348623157e308),
        (np.int64(7), 7.0),  # numpy's numbers, as compute hands them on
        (np.float32(0.5), 0.5),
    ],
)
def test_a_finite_number_or_numeric_text_reads_as_its_float(value, expected):
    assert finite_number(value) == expected


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (10**400, "NUMBER_OUT_OF_RANGE"),  # float() raises OverflowError
        (-(10**400), "NUMBER_OUT_OF_RANGE"),
        ("1e400", "NUMBER_OUT_OF_RANGE"),  # float() answers inf
        ("1" * 400, "NUMBER_TOO_LONG"),
        ("9" * 100_000, "NUMBER_TOO_LONG"),  # refused before it is converted
        (math.nan, "NUMBER_NOT_FINITE"),
        (-math.inf, "NUMBER_NOT_FINITE"),
        ("nan", "NUMBER_NOT_FINITE"),
        ("-Infinity", "NUMBER_NOT_FINITE"),
        (True, "NOT_A_NUMBER"),  # float(True) is 1.0
        (None, "NOT_A_NUMBER"),
        ([1.0], "NOT_A_NUMBER"),
        ("twelve", "NOT_A_NUMBER"),
    ],
)
def test_anything_else_is_refused_with_its_code_and_a_short_reason(value, code):
    with pytest.raises(NumberRefused) as refused:
        finite_number(value)

    assert refused.value.code == code and len(refused.value.reason) < 120
    assert finite_number_or_none(value) is None


def test_a_huge_integer_is_described_by_its_digits_not_written_out():
    assert excerpt(10**400) == "an integer of 401 digits" and excerpt(-(10**400)) == "a negative integer of 401 digits"
    assert excerpt("x" * 1000) == repr("x" * 1000)[:40] + "... (1,002 characters)"


@pytest.mark.parametrize("text", ["12", " 7 "])
def test_a_whole_number_is_plain_ascii_digits(text):
    assert whole_number(text) == int(text)


@pytest.mark.parametrize("text", ["9" * 5000, "-1", "1e3", "\u0663", "1.0", ""])
def test_a_whole_number_refuses_anything_but_a_short_run_of_ascii_digits(text):
    with pytest.raises(NumberRefused):
        whole_number(text)


def test_text_that_utf8_and_databases_cannot_hold_is_named():
    assert text_problem("été 😀") is None
    assert "lone surrogate (U+D800) at position 1" in (text_problem("a\ud800") or "")
    assert "NUL character at position 0" in (text_problem("\x00") or "")


def test_json_within_the_limits_reads_as_json_loads_reads_it():
    text = json.dumps({"a": [1, 2.5, "\u00e9\U0001f600", None, True, {"b": [[[]]]}], "c": 10**300})

    assert json_read(text) == json.loads(text)
    assert json_read("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) == json.loads("[" * 64 + "]" * 64)
    assert json_read('"\\ud83d\\ude00"') == "😀"  # a surrogate pair is one character


@pytest.mark.parametrize(
    ("text", "code", "where"),
    [
        ('{"a": [1, NaN]}', "NUMBER_NOT_FINITE", "a[1]"),
        ('{"a": {"b": -Infinity}}', "NUMBER_NOT_FINITE", "a.b"),
        ("[1e400]", "NUMBER_OUT_OF_RANGE", "[0]"),
        ('{"rows": [{"value": 1' + "0" * 400 + "}]}", "NUMBER_OUT_OF_RANGE", "rows[0].value"),
        ("9" * 5000, "NUMBER_OUT_OF_RANGE", ""),  # past Python's 4,300-digit limit: never converted
        ('{"x": ["ok", "\\udc00"]}', "INVALID_TEXT", "x[1]"),
        ('{"x": {"\\ud800": 1}}', "INVALID_TEXT", "x"),
        ('{"a b": "\\u0000"}', "INVALID_TEXT", '"a b"'),
        ('"\\ud800"', "INVALID_TEXT", ""),
        ("[" * 65 + "]" * 65, "JSON_TOO_DEEP", ""),
        ("[" * 100_000, "JSON_TOO_DEEP", ""),  # json's scanner would raise RecursionError
        ('{"a": ' * 100_000, "JSON_TOO_DEEP", ""),
    ],
)
def test_json_that_parses_but_cannot_be_used_is_refused_naming_where(text, code, where):
    with pytest.raises(JSONRefused) as refused:
        json_read(text)

    assert (refused.value.code, refused.value.where) == (code, where)


def test_text_that_is_not_json_raises_json_decode_error_as_json_loads_does():
    with pytest.raises(json.JSONDecodeError):
        json_read('{"a": }')
