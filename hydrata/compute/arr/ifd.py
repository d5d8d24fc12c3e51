"""The Bureau of Meteorology's 2016 IFD table of design rainfall depths, as its CSV download lays it out.

A few quoted lines of title and location, then the header `"Duration","Duration in min","63.2%","50%#","20%*",...`
(one column per annual exceedance probability; `#` and `*` mark the Bureau's footnotes about ARI), one row per
duration (`"1 min",1,2.03,...`, the depth in mm), a blank line, and the footnotes. The Very Frequent (`12EY`,
`0.5EY`...) and Rare (`1 in 200`...) tables have the same layout with their own column names. The intensity table
(mm/h) has it too, so its title is checked: a study needs depths.
"""

import math
import re
from dataclasses import dataclass

from hydrata.compute.arr.files import (
    DEEPEST_RAIN_MM,
    LONGEST_STORM_MIN,
    BadRows,
    csv_rows,
    file_refusal,
    not_this_file,
    number,
)

WHAT = "IFD depths table"
FOOTNOTE_MARKS = "#*^"
TITLE_ROWS = 50  # the rows above the header read for the table's title (the Bureau's file has about ten)
_ONE_IN = re.compile(r"^1\s*in\s*([0-9.]+)$", re.IGNORECASE)


@dataclass(frozen=True)
class IfdTable:
    aeps: tuple[str, ...]  # the columns' labels without footnote marks: "63.2%", "1%", "0.5EY", "1 in 200"
    durations_min: tuple[int, ...]
    depths_mm: tuple[tuple[float, ...], ...]  # [duration][aep]

    def depth(self, *, aep: str, duration_min: int) -> float | None:
        if aep not in self.aeps or duration_min not in self.durations_min:
            return None
        return self.depths_mm[self.durations_min.index(duration_min)][self.aeps.index(aep)]


def aep_label(cell: str) -> str:
    """A column's AEP as the engineer names it: the Bureau's footnote marks dropped, spacing normalised."""
    label = cell.strip().rstrip(FOOTNOTE_MARKS).strip()
    one_in = _ONE_IN.match(label)
    return f"1 in {one_in.group(1)}" if one_in else label.replace(" ", "")


def aep_percent(label: str) -> float:
    """The annual exceedance probability in % of a label: `1%`, `1 in 200` (0.5 %) or `0.5EY` (events a year,
    1 - exp(-EY)); ValueError for anything else."""
    one_in = _ONE_IN.match(label)
    try:
        if one_in:
            percent = 100.0 / float(one_in.group(1))
        elif label.endswith("%"):
            percent = float(label[:-1])
        elif label.upper().endswith("EY"):
            percent = 100.0 * (1.0 - math.exp(-float(label[:-2])))
        else:
            percent = math.nan
    except (ValueError, ZeroDivisionError, OverflowError):
        percent = math.nan
    if not 0.0 < percent < 100.0:
        raise ValueError(f"{label[:30]!r} is not an AEP (as 1%, 1 in 200 or 0.5EY)")
    return percent


def ifd_parse(text: str) -> IfdTable:
    rows = csv_rows(text, what=WHAT)
    title: list[str] = []
    header: tuple[int, list[str]] | None = None
    for line, cells in rows:
        if len(cells) > 2 and cells[1].lower() == "duration in min":
            header = line, cells
            break
        if any(cells) and len(title) < TITLE_ROWS:
            title.append(" ".join(cells))
    if header is None:
        raise not_this_file(
            what="a BoM IFD depths table",
            reason="it has no header row 'Duration,Duration in min,<AEPs>'. Download the depths table (mm) as CSV "
            "from the Bureau's Design Rainfall Data System.",
        )
    title_text = " ".join(title).lower()
    if "intensit" in title_text and "depth" not in title_text:
        raise not_this_file(
            what="a BoM IFD depths table", reason="it is the intensity table (mm/h); download the depths (mm)."
        )
    header_line, header_cells = header
    bad = BadRows()
    aeps = _aep_columns(header_line, header_cells[2:], bad)
    durations: list[int] = []
    seen: set[int] = set()
    depths: list[tuple[float, ...]] = []
    for line, cells in rows:
        if not any(cells):
            break  # the footnotes follow the first blank line
        try:
            duration, row = _row(cells, columns=len(header_cells), seen=seen)
        except ValueError as problem:
            bad.add(line, str(problem))
            continue
        durations.append(duration)
        seen.add(duration)
        depths.append(row)
    if not durations and not bad:
        bad.add(header_line, "no duration rows follow the header")
    if bad:
        raise file_refusal(what=WHAT, bad=bad)
    return IfdTable(aeps=tuple(aeps), durations_min=tuple(durations), depths_mm=tuple(depths))


def _aep_columns(line: int, cells: list[str], bad: BadRows) -> list[str]:
    labels = [aep_label(cell) for cell in cells]
    for label in labels:
        try:
            aep_percent(label)
        except ValueError as problem:
            bad.add(line, str(problem))
    if len(set(labels)) != len(labels):
        bad.add(line, "an AEP column appears twice")
    return labels


def _row(cells: list[str], *, columns: int, seen: set[int]) -> tuple[int, tuple[float, ...]]:
    if len(cells) != columns:
        raise ValueError(f"it has {len(cells)} cells where the header has {columns}")
    minutes = number(cells[1], name="Duration in min", above=0, maximum=LONGEST_STORM_MIN)
    if minutes != int(minutes):
        raise ValueError(f"Duration in min {minutes:g} is not a whole number of minutes")
    if int(minutes) in seen:
        raise ValueError(f"the duration {int(minutes)} min appears twice")
    return int(minutes), tuple(number(cell, name="depth", minimum=0, maximum=DEEPEST_RAIN_MM) for cell in cells[2:])
