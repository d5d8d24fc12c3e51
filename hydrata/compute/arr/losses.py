"""Storm losses from the ARR Data Hub's text output (the `.txt` it downloads), as its blocks lay them out:

    [LOSSES]
    Storm Initial Losses (mm),30.0
    Storm Continuing Losses (mm/h),2.0
    [LOSSES_META]
    ...
    [END_LOSSES]

and, when the file has it, the median pre-burst depths, one row per duration and one column per AEP (%), each cell
`depth (ratio)`:

    [PREBURST]
    min (h)\\AEP(%),50,20,10,5,2,1
    60 (1.0),1.2 (0.020),...
    [PREBURST_META]

Every other block of the file is ignored.
"""

from dataclasses import dataclass

import numpy as np

from hydrata.compute.arr.files import (
    DEEPEST_RAIN_MM,
    LONGEST_STORM_MIN,
    BadRows,
    csv_rows,
    file_refusal,
    not_this_file,
    number,
)

WHAT = "Data Hub losses file"
INITIAL = "storm initial losses (mm)"
CONTINUING = "storm continuing losses (mm/h)"
BLOCK_NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# Only these blocks' rows are kept; a file's other blocks (temporal patterns, areal reduction, ...) are skipped.
BLOCKS_READ = ("LOSSES", "PREBURST")


@dataclass(frozen=True)
class PreBurst:
    aeps_pct: tuple[float, ...]
    durations_min: tuple[float, ...]
    depths_mm: tuple[tuple[float, ...], ...]  # [duration][aep]

    def depth(self, *, aep_pct: float, duration_min: float) -> float | None:
        """The median pre-burst depth, linear in duration between the table's rows and held at its ends; None when
        the table has no column for this AEP."""
        column = next((i for i, aep in enumerate(self.aeps_pct) if abs(aep - aep_pct) < 1e-6), None)
        if column is None:
            return None
        depths = [row[column] for row in self.depths_mm]
        return float(np.interp(duration_min, self.durations_min, depths))


@dataclass(frozen=True)
class StormLosses:
    initial_loss_mm: float
    continuing_loss_mm_h: float
    preburst: PreBurst | None


def losses_parse(text: str) -> StormLosses:
    blocks = _blocks(text)
    if "LOSSES" not in blocks:
        raise not_this_file(
            what="an ARR Data Hub output",
            reason="it has no [LOSSES] block. Send the text file the Data Hub downloads for the catchment.",
        )
    bad = BadRows()
    losses = _losses(blocks["LOSSES"], bad)
    preburst = _preburst(blocks["PREBURST"], bad) if "PREBURST" in blocks else None
    if bad:
        raise file_refusal(what=WHAT, bad=bad)
    return StormLosses(initial_loss_mm=losses[INITIAL], continuing_loss_mm_h=losses[CONTINUING], preburst=preburst)


def _blocks(text: str) -> dict[str, list[tuple[int, list[str]]]]:
    """The rows of each block read, by name, from its [NAME] line to the next bracketed line; the first block of
    a name counts."""
    blocks: dict[str, list[tuple[int, list[str]]]] = {}
    current: list[tuple[int, list[str]]] | None = None
    for line, cells in csv_rows(text, what=WHAT):
        name = _block_name(cells[0]) if cells else None
        if name is not None:
            current = blocks.setdefault(name, []) if name in BLOCKS_READ and name not in blocks else None
            continue
        if current is not None and any(cells):
            current.append((line, cells))
    return blocks


def _block_name(cell: str) -> str | None:
    """NAME of a cell that opens with `[NAME]`, else None."""
    if not cell.startswith("["):
        return None
    name, closed, _ = cell[1:].partition("]")
    return name if closed and name and BLOCK_NAME_CHARACTERS.issuperset(name) else None


def _losses(rows: list[tuple[int, list[str]]], bad: BadRows) -> dict[str, float]:
    """The two losses by their row's name; a missing or unreadable one is a bad row."""
    found: dict[str, float] = {}
    for line, cells in rows:
        key = cells[0].lower()
        if key in (INITIAL, CONTINUING):
            try:
                cell = cells[1] if len(cells) > 1 else ""
                found[key] = number(cell, name=cells[0], minimum=0, maximum=DEEPEST_RAIN_MM)
            except ValueError as problem:
                bad.add(line, str(problem))
                found[key] = 0.0
    first = rows[0][0] if rows else 0
    for key in (INITIAL, CONTINUING):
        if key not in found:
            bad.add(first, f"the [LOSSES] block has no '{key}' row (urban areas have none: give the losses)")
    return found


def _preburst(rows: list[tuple[int, list[str]]], bad: BadRows) -> PreBurst | None:
    if not rows:
        return None
    (header_line, header), body = rows[0], rows[1:]
    try:
        aeps = tuple(number(cell, name="AEP (%)", above=0) for cell in header[1:])
    except ValueError as problem:
        bad.add(header_line, f"the [PREBURST] header: {problem}")
        return None
    durations: list[float] = []
    depths: list[tuple[float, ...]] = []
    for line, cells in body:
        try:
            duration, row = _preburst_row(cells, columns=len(header), after=durations[-1] if durations else 0.0)
        except ValueError as problem:
            bad.add(line, str(problem))
            continue
        durations.append(duration)
        depths.append(row)
    if not durations:
        return None
    return PreBurst(aeps_pct=aeps, durations_min=tuple(durations), depths_mm=tuple(depths))


def _preburst_row(cells: list[str], *, columns: int, after: float) -> tuple[float, tuple[float, ...]]:
    if len(cells) != columns:
        raise ValueError(f"it has {len(cells)} cells where the [PREBURST] header has {columns}")
    duration, _ = _with_bracket(cells[0])
    if duration is None or not _is_number(duration):
        raise ValueError(f"the duration {cells[0][:30]!r} is not 'minutes (hours)'")
    minutes = number(duration, name="duration", above=after, maximum=LONGEST_STORM_MIN)
    depths = []
    for cell in cells[1:]:
        depth, ratio = _with_bracket(cell)
        if depth is None or (ratio is not None and not _is_number(ratio)) or not _is_number(depth):
            raise ValueError(f"the cell {cell[:30]!r} is not 'depth (ratio)'")
        depths.append(number(depth, name="pre-burst depth", minimum=0, maximum=DEEPEST_RAIN_MM))
    return minutes, tuple(depths)


def _with_bracket(cell: str) -> tuple[str | None, str | None]:
    """`value (note)` -> ("value", "note"), `value` -> ("value", None); (None, None) when the brackets are not one
    pair closing the cell. Split, not matched: a pattern with two runs of spaces backtracked over a cell of spaces
    (a minute for 128 KB)."""
    value, opened, rest = cell.partition("(")
    value = value.strip()
    if not opened:
        return value or None, None
    if not rest.endswith(")") or "(" in rest or ")" in rest[:-1] or not value:
        return None, None
    return value, rest[:-1].strip()


def _is_number(text: str) -> bool:
    """Digits and points with at most a leading minus sign, as the Data Hub writes its depths and ratios."""
    digits = text[1:] if text.startswith("-") else text
    return bool(digits) and all(character in "0123456789." for character in digits)
