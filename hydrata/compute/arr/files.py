"""What the ARR readers share: CSV rows with their line numbers, numbers read strictly, and the one refusal that
names every bad row."""

import csv
import io
import math
from dataclasses import dataclass

from hydrata.compute.errors import CodedError
from hydrata_contract.errors import ErrorCode

LISTED_IN_MESSAGE = 5  # bad rows spelt out in the message; the refusal's `rows` carries up to ROWS_CARRIED
ROWS_CARRIED = 50
LONGEST_STORM_MIN = 20160  # two weeks: longer than any duration ARR tabulates
LARGEST_ID = 2**31 - 1  # what a database integer column holds everywhere
DEEPEST_RAIN_MM = 10_000.0  # above any probable maximum precipitation: a larger depth is a broken cell


class ArrFileError(CodedError):
    """A design-input file that cannot be read; `rows` names every bad row (its line in the file) and why."""


@dataclass(frozen=True)
class BadRow:
    line: int
    reason: str


def file_refusal(*, what: str, bad: list[BadRow]) -> ArrFileError:
    """One refusal for every bad row of a file, the first few spelt out in the message."""
    listed = "; ".join(f"line {row.line}: {row.reason}" for row in bad[:LISTED_IN_MESSAGE])
    more = len(bad) - LISTED_IN_MESSAGE
    return ArrFileError(
        ErrorCode.ARR_FILE_INVALID,
        f"The {what} has {len(bad)} bad row(s), so nothing was stored: {listed}"
        + (f"; and {more} more." if more > 0 else ".")
        + " Fix them (or download the file again) and send it again.",
        rows=[{"line": row.line, "reason": row.reason} for row in bad[:ROWS_CARRIED]],
        bad_row_count=len(bad),
    )


def not_this_file(*, what: str, reason: str) -> ArrFileError:
    return ArrFileError(ErrorCode.ARR_FILE_INVALID, f"This is not {what}: {reason}", rows=[], bad_row_count=0)


def csv_lines(text: str) -> list[tuple[int, list[str]]]:
    """Each CSV row with its line number (from 1), cells stripped; blank rows kept as empty lists."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    return [(reader.line_num, [cell.strip() for cell in row]) for row in reader]


def number(
    cell: str, *, name: str, minimum: float | None = None, above: float | None = None, maximum: float | None = None
) -> float:
    """A finite number, or ValueError saying what is wrong with the cell."""
    try:
        value = float(cell)
    except ValueError:
        raise ValueError(f"{name} {cell[:30]!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} {cell[:30]!r} is not a finite number")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} {value:g} is below {minimum:g}")
    if above is not None and value <= above:
        raise ValueError(f"{name} {value:g} must be above {above:g}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} {value:g} is above {maximum:g}")
    return value
