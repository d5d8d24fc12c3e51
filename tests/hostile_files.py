"""Files for the parsers of user files, honest and hostile, of about a given size: the tests of their linearity
(tests/hydrata/compute/arr/test_hostile_files.py) and benchmarks/parsers.py build them here.

Each builder takes the size in bytes and returns text of at most that size. An honest file of that size is the
yardstick; a hostile one is shaped to make a careless reader slow: a cell of spaces a backtracking pattern walks
again and again, rows a list is searched for, trailing cells removed one slice at a time, a cell longer than the
csv module takes, line endings only classic Mac OS wrote, a file of bad rows.
"""

from collections.abc import Callable

KIB = 1024
Builder = Callable[[int], str]


def _fill(head: str, row: Callable[[int], str], size: int, *, tail: str = "", first: int = 1) -> str:
    """head, then row(first), row(first + 1), ... for as long as the text stays within size."""
    parts, used, index = [head], len(head) + len(tail), first
    while True:
        line = row(index)
        if used + len(line) > size:
            break
        parts.append(line)
        used += len(line)
        index += 1
    parts.append(tail)
    return "".join(parts)


def _one_long_cell(head: str, before: str, cell: str, after: str, size: int) -> str:
    """head, then one row whose cell is `cell` repeated to fill the file."""
    room = size - len(head) - len(before) - len(after)
    return head + before + cell * (room // len(cell)) + after


LONG_CELL = 131_000  # characters: just within the 131,072 the csv module takes in a cell


def _long_cells(head: str, before: str, filler: str, after: str, size: int) -> str:
    """head, then as many rows as fit of `before`, `filler` for LONG_CELL characters, `after`: the review's file
    held dozens of such cells, each costing a backtracking pattern about a minute."""
    row = before + filler * LONG_CELL + after
    return head + row * ((size - len(head)) // len(row))


# --- the Bureau's IFD depths table ------------------------------------------------------------------------------

IFD_COLUMNS = 200  # AEP columns of an honest table blown up to size: each a distinct probability
IFD_HEAD = "Duration,Duration in min," + ",".join(f"{50 - i * 0.2:.1f}%" for i in range(IFD_COLUMNS)) + "\n"


def ifd_honest(size: int) -> str:
    cells = ",".join(f"{10 + i * 0.5:.1f}" for i in range(IFD_COLUMNS))
    return _fill(IFD_HEAD, lambda minute: f"{minute} min,{minute},{cells}\n", size)


IFD_HOSTILE: dict[str, Builder] = {
    # every duration ARR could tabulate, over and over: each repeat searched the durations read so far
    "every duration twice and more": lambda size: _fill(
        "Duration,Duration in min,1%\n", lambda i: f"d,{(i - 1) % 20160 + 1},1.5\n", size
    ),
    "depth cells of spaces": lambda size: _long_cells("Duration,Duration in min,1%\n", "1 min,1,1", " ", "x\n", size),
    "a quoted cell longer than csv takes": lambda size: _one_long_cell(
        "Duration,Duration in min,1%\n", '1 min,1,"', "9", '"\n', size
    ),
    "classic Mac line endings": lambda size: ifd_honest(size).replace("\n", "\r"),
    "every row bad": lambda size: _fill("Duration,Duration in min,1%\n", lambda i: f"d,{i},deep\n", size),
    "blank lines before the header": lambda size: (
        "\n" * (size - len(IFD_HEAD) - 420) + IFD_HEAD + "1 min,1" + ",1" * IFD_COLUMNS
    ),
}


# --- the Data Hub's temporal patterns ---------------------------------------------------------------------------

PATTERNS_HEAD = "EventID,Duration,TimeStep,Region,AEP,Increments\n"
_INCREMENTS = ",".join(["8.33"] * 11 + ["8.37"])  # twelve 5-minute steps adding up to 100 %


def patterns_honest(size: int) -> str:
    bins = ("frequent", "intermediate", "rare")
    return _fill(PATTERNS_HEAD, lambda i: f"{i},60,5,Synthetic Region,{bins[i % 3]},{_INCREMENTS}\n", size)


PATTERNS_HOSTILE: dict[str, Builder] = {
    # a pattern followed by every trailing empty cell the file holds: each was sliced off one at a time
    "trailing empty cells": lambda size: _one_long_cell(PATTERNS_HEAD, "1,5,5,R,rare,100", ",", "\n", size),
    "one event id on every row": lambda size: _fill(PATTERNS_HEAD, lambda _: "7,5,5,R,rare,100\n", size),
    "increment cells of spaces": lambda size: _long_cells(PATTERNS_HEAD, "1,5,5,R,rare,1", " ", "x\n", size),
    "a quoted cell longer than csv takes": lambda size: _one_long_cell(
        PATTERNS_HEAD, '1,5,5,"', "R", '",rare,100\n', size
    ),
    "classic Mac line endings": lambda size: patterns_honest(size).replace("\n", "\r"),
    "every row bad": lambda size: _fill(PATTERNS_HEAD, lambda i: f"{i},60,7,R,rare,100\n", size),
}


# --- the Data Hub's text output (losses and pre-burst) ----------------------------------------------------------

LOSSES_HEAD = "[LOSSES]\nStorm Initial Losses (mm),28.0\nStorm Continuing Losses (mm/h),2.5\n[END_LOSSES]\n"
PREBURST_COLUMNS = 150
PREBURST_HEAD = "[PREBURST]\nmin (h)\\AEP(%)," + ",".join(f"{50 - i * 0.3:.1f}" for i in range(PREBURST_COLUMNS)) + "\n"


def losses_honest(size: int) -> str:
    cells = ",".join(f"{1 + i * 0.01:.2f} ({0.05 + i * 0.001:.3f})" for i in range(PREBURST_COLUMNS))
    return _fill(
        LOSSES_HEAD + PREBURST_HEAD,
        lambda minute: f"{minute} ({minute / 60:.2f}),{cells}\n",
        size,
        tail="[PREBURST_META]\n",
    )


LOSSES_HOSTILE: dict[str, Builder] = {
    # the review's finding: `depth (ratio)` matched by a pattern that backtracked over every space
    "pre-burst depth cells of spaces": lambda size: _long_cells(
        LOSSES_HEAD + "[PREBURST]\nmin (h)\\AEP(%),50\n", "60 (1.0),1", " ", "x\n", size
    ),
    "pre-burst ratios of spaces": lambda size: _long_cells(
        LOSSES_HEAD + "[PREBURST]\nmin (h)\\AEP(%),50\n", "60 (1.0),1 ( 1", " ", "x\n", size
    ),
    "duration cells of spaces": lambda size: _long_cells(
        LOSSES_HEAD + "[PREBURST]\nmin (h)\\AEP(%),50\n", "60", " ", "x,1.0\n", size
    ),
    "a quoted cell longer than csv takes": lambda size: _one_long_cell(LOSSES_HEAD, '"', "x", '"\n', size),
    "a block name on every line": lambda size: _fill(LOSSES_HEAD, lambda i: f"[BLOCK_{i}]\n", size),
    "classic Mac line endings": lambda size: losses_honest(size).replace("\n", "\r"),
    "every pre-burst row bad": lambda size: _fill(
        LOSSES_HEAD + "[PREBURST]\nmin (h)\\AEP(%),50\n", lambda i: f"{i} ({i}),much\n", size
    ),
}

DESIGN_INPUTS: dict[str, tuple[Builder, dict[str, Builder]]] = {
    "ifd": (ifd_honest, IFD_HOSTILE),
    "temporal_patterns": (patterns_honest, PATTERNS_HOSTILE),
    "storm_losses": (losses_honest, LOSSES_HOSTILE),
}
