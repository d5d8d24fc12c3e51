"""The ARR Data Hub's temporal patterns, as its `<Region>_Increments.csv` lays them out.

Header `EventID,Duration,TimeStep,Region,AEP,Increments`, then one row per pattern: the event id, the duration
and the time step in minutes, the region's name, the AEP bin (`frequent`, `intermediate` or `rare`) and the
rainfall of each time step in % of the burst, in as many further cells as the duration has time steps (a shorter
pattern leaves the trailing cells empty). Ten patterns per duration and bin.
"""

from dataclasses import dataclass

from hydrata.compute.arr.files import (
    LARGEST_ID,
    LONGEST_STORM_MIN,
    BadRows,
    csv_rows,
    file_refusal,
    not_this_file,
    number,
)

WHAT = "temporal patterns file"
HEADER = ("eventid", "duration", "timestep", "region", "aep")
AEP_BINS = ("frequent", "intermediate", "rare")
# Patterns are published to two decimals, so their sum may miss 100 by rounding; more than this is a broken row.
SUM_TOLERANCE_PCT = 0.5
# ARR 2019 Book 2 Table 2.5.7: the bin an AEP's patterns come from (frequent above 14.4 %, rare at 3.2 % and below).
FREQUENT_ABOVE_PCT = 14.4
RARE_AT_OR_BELOW_PCT = 3.2


@dataclass(frozen=True)
class TemporalPattern:
    event_id: int
    duration_min: int
    time_step_min: int
    region: str
    aep_bin: str
    increments_pct: tuple[float, ...]


def aep_bin(aep_pct: float) -> str:
    if aep_pct > FREQUENT_ABOVE_PCT:
        return "frequent"
    return "rare" if aep_pct <= RARE_AT_OR_BELOW_PCT else "intermediate"


def patterns_parse(text: str) -> list[TemporalPattern]:
    rows = ((line, cells) for line, cells in csv_rows(text, what=WHAT) if any(cells))
    header_line, header = next(rows, (0, []))
    if tuple(cell.lower() for cell in header[: len(HEADER)]) != HEADER:
        raise not_this_file(
            what="an ARR Data Hub temporal patterns file",
            reason="its first row is not 'EventID,Duration,TimeStep,Region,AEP,Increments'. Send the region's "
            "*_Increments.csv from the Data Hub's temporal patterns download.",
        )
    patterns: list[TemporalPattern] = []
    bad = BadRows()
    seen: set[int] = set()
    for line, cells in rows:
        try:
            pattern = _pattern(cells)
            if pattern.event_id in seen:
                raise ValueError(f"event {pattern.event_id} appears twice")
        except ValueError as problem:
            bad.add(line, str(problem))
            continue
        seen.add(pattern.event_id)
        patterns.append(pattern)
    if not patterns and not bad:
        bad.add(header_line, "no pattern rows follow the header")
    if bad:
        raise file_refusal(what=WHAT, bad=bad)
    return patterns


def _pattern(cells: list[str]) -> TemporalPattern:
    if len(cells) < len(HEADER) + 1:
        raise ValueError(f"it has {len(cells)} cells; a pattern needs the five columns and its increments")
    event_id = _whole(cells[0], "EventID", LARGEST_ID)
    duration = _whole(cells[1], "Duration", LONGEST_STORM_MIN)
    step = _whole(cells[2], "TimeStep", LONGEST_STORM_MIN)
    region = cells[3]
    if not region:
        raise ValueError("Region is empty")
    bin_name = cells[4].lower()
    if bin_name not in AEP_BINS:
        raise ValueError(f"AEP {cells[4][:30]!r} is not one of {', '.join(AEP_BINS)}")
    if duration % step:
        raise ValueError(f"Duration {duration} is not a whole number of {step}-minute steps")
    increments = _increments(cells[len(HEADER) :], expected=duration // step)
    return TemporalPattern(event_id, duration, step, region, bin_name, increments)


def _whole(cell: str, name: str, maximum: int) -> int:
    value = number(cell, name=name, above=0, maximum=maximum)
    if value != int(value):
        raise ValueError(f"{name} {value:g} is not a whole number")
    return int(value)


def _increments(cells: list[str], *, expected: int) -> tuple[float, ...]:
    end = len(cells)
    while end and not cells[end - 1]:  # a shorter pattern leaves trailing cells empty: counted, never sliced
        end -= 1
    cells = cells[:end]
    if len(cells) != expected:
        raise ValueError(f"it has {len(cells)} increments where its duration and time step make {expected}")
    increments = tuple(number(cell, name="increment", minimum=0, maximum=100) for cell in cells)
    total = sum(increments)
    if abs(total - 100.0) > SUM_TOLERANCE_PCT:
        raise ValueError(f"its increments add up to {total:.2f} %, not 100 %")
    return increments
