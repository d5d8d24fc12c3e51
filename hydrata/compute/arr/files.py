"""What the ARR readers share: CSV rows with their line numbers, numbers read strictly, and the one refusal that
names every bad row.

Every reader is linear in its file, whatever the file holds (benchmarks/parsers.py times each on hostile files of
the largest size the route takes, tests/hydrata/compute/arr/test_hostile_files.py reads them): rows are streamed,
not kept; a cell is read by splitting it, never by a pattern that can backtrack; what a reader looks rows up in is a
set; a number is at most MAX_NUMBER_CHARACTERS long; and the bad rows kept are the first ROWS_CARRIED (the rest
are counted). A line may end in `\n`, `\r\n` or `\r` (classic Mac OS, as old spreadsheets still save CSV).
"""

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass, field

from hydrata.compute.errors import CodedError
from hydrata.compute.inputs.numbers import NumberRefused, finite_number
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


@dataclass
class BadRows:
    """The bad rows of a file as a reader finds them: the first ROWS_CARRIED kept, every one counted, so that a
    file of a million bad rows costs no more memory than one of fifty."""

    kept: list[BadRow] = field(default_factory=list)
    count: int = 0

    def add(self, line: int, reason: str) -> None:
        self.count += 1
        if len(self.kept) < ROWS_CARRIED:
            self.kept.append(BadRow(line, reason))

    def __bool__(self) -> bool:
        return self.count > 0


def file_refusal(*, what: str, bad: BadRows) -> ArrFileError:
    """One refusal for every bad row of a file, the first few spelt out in the message."""
    listed = "; ".join(f"line {row.line}: {row.reason}" for row in bad.kept[:LISTED_IN_MESSAGE])
    more = bad.count - LISTED_IN_MESSAGE
    return ArrFileError(
        ErrorCode.ARR_FILE_INVALID,
        f"The {what} has {bad.count} bad row(s), so nothing was stored: {listed}"
        + (f"; and {more} more." if more > 0 else ".")
        + " Fix them (or download the file again) and send it again.",
        rows=[{"line": row.line, "reason": row.reason} for row in bad.kept],
        bad_row_count=bad.count,
    )


def not_this_file(*, what: str, reason: str) -> ArrFileError:
    return ArrFileError(ErrorCode.ARR_FILE_INVALID, f"This is not {what}: {reason}", rows=[], bad_row_count=0)


def csv_rows(text: str, *, what: str) -> Iterator[tuple[int, list[str]]]:
    """Each CSV row with its line number (from 1), cells stripped; a blank row is an empty list. A row the csv
    module cannot read (a cell longer than it takes, a quote left open) refuses the file naming its line."""
    # newline="": the csv module splits the lines itself, at \n, \r\n and \r alike.
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""))
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            bad = BadRows()
            bad.add(reader.line_num, _csv_problem(error))
            raise file_refusal(what=what, bad=bad) from None
        yield reader.line_num, [cell.strip() for cell in row]


def _csv_problem(error: csv.Error) -> str:
    if "field limit" in str(error):
        return f"a cell is longer than {csv.field_size_limit():,} characters"
    return f"the row cannot be read as CSV ({error})"


def number(
    cell: str, *, name: str, minimum: float | None = None, above: float | None = None, maximum: float | None = None
) -> float:
    """A finite number of at most MAX_NUMBER_CHARACTERS characters, or ValueError saying what is wrong with the
    cell."""
    try:
        value = finite_number(cell)
    except NumberRefused as refused:
        if refused.code == ErrorCode.NUMBER_TOO_LONG:
            raise ValueError(f"{name} is not a number: {refused.reason}") from None
        raise ValueError(f"{name} {refused.reason}") from None
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} {value:g} is below {minimum:g}")
    if above is not None and value <= above:
        raise ValueError(f"{name} {value:g} must be above {above:g}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} {value:g} is above {maximum:g}")
    return value
