"""Every design-input reader is linear in its file: an honest file and every hostile shape of the largest size the
route accepts (`HYDRATA_ARR_FILE_MAX_BYTES`, 4 MiB) is read, or refused naming its bad rows, within the CPU limit
the platform reads a file under (hydrata/compute/processes/bounded.py); no shape ends as anything else. The cost of
each, as a ratio to an honest file of the same size: benchmarks/parsers.py."""

import pytest

from hydrata.compute.errors import CodedError
from hydrata.compute.processes.bounded import Limits, OverLimit, call_bounded
from tests.hostile_files import DESIGN_INPUTS, KIB

LARGEST = 4 * 1024 * KIB  # HYDRATA_ARR_FILE_MAX_BYTES's default
# The platform's defaults (HYDRATA_FILE_READ_*), the wall clock generous for a busy test machine.
LIMITS = Limits(cpu_seconds=10, wall_seconds=300, memory_bytes=1024**3)
READER = "hydrata.compute.arr.reading:design_input_read_json"

# What each hostile file must come to: None when it is read, else (the first bad row's line, words of its reason).
EXPECTED = {
    ("ifd", "every duration twice and more"): (20162, "the duration 1 min appears twice"),
    ("ifd", "depth cells of spaces"): (2, "is not a number"),
    ("ifd", "a quoted cell longer than csv takes"): (2, "longer than"),
    ("ifd", "classic Mac line endings"): None,
    ("ifd", "every row bad"): (2, "depth 'deep' is not a number"),
    ("ifd", "blank lines before the header"): None,
    ("temporal_patterns", "trailing empty cells"): None,
    ("temporal_patterns", "one event id on every row"): (3, "event 7 appears twice"),
    ("temporal_patterns", "increment cells of spaces"): (2, "is not a number"),
    ("temporal_patterns", "a quoted cell longer than csv takes"): (2, "longer than"),
    ("temporal_patterns", "classic Mac line endings"): None,
    ("temporal_patterns", "every row bad"): (2, "not a whole number of 7-minute steps"),
    ("storm_losses", "pre-burst depth cells of spaces"): (7, "is not 'depth (ratio)'"),
    ("storm_losses", "pre-burst ratios of spaces"): (7, "is not 'depth (ratio)'"),
    ("storm_losses", "duration cells of spaces"): (7, "is not 'minutes (hours)'"),
    ("storm_losses", "a quoted cell longer than csv takes"): (5, "longer than"),
    ("storm_losses", "a block name on every line"): None,
    ("storm_losses", "classic Mac line endings"): None,
    ("storm_losses", "every pre-burst row bad"): (7, "'much' is not 'depth (ratio)'"),
}


def read(kind: str, text: str):
    return call_bounded(READER, {"kind": kind, "text": text}, limits=LIMITS)


def outcome(kind: str, text: str) -> tuple[str, object]:
    """("read", what was read), ("refused", the refusal) or ("over", the limit it went over)."""
    try:
        return "read", read(kind, text)
    except OverLimit as over:
        return "over", over.limit
    except CodedError as refused:
        return "refused", refused


def test_every_hostile_shape_of_every_reader_is_expected_here():
    assert set(EXPECTED) == {(kind, shape) for kind, (_, hostile) in DESIGN_INPUTS.items() for shape in hostile}


@pytest.mark.parametrize("kind", list(DESIGN_INPUTS))
def test_an_honest_file_of_the_largest_size_is_read(kind):
    honest, _ = DESIGN_INPUTS[kind]
    text = honest(LARGEST)
    assert LARGEST - 64 * KIB < len(text.encode()) <= LARGEST

    read_back = read(kind, text)

    assert read_back["summary"], read_back


@pytest.mark.parametrize(("kind", "shape"), list(EXPECTED))
def test_a_hostile_file_of_the_largest_size_is_read_or_refused_by_its_rows_within_the_limits(kind, shape):
    text = DESIGN_INPUTS[kind][1][shape](LARGEST)
    assert LARGEST - 64 * KIB < len(text.encode()) <= LARGEST

    ending, value = outcome(kind, text)

    assert ending != "over", f"reading it went over the {value} limit: the reader is not linear in its file"
    expected = EXPECTED[(kind, shape)]
    if expected is None:
        assert ending == "read", value
        if shape == "classic Mac line endings":  # the same file as with Unix line endings
            assert value == read(kind, text.replace("\r", "\n"))
        return
    assert ending == "refused" and isinstance(value, CodedError), value
    line, words = expected
    rows = value.extra["rows"]
    assert value.code == "ARR_FILE_INVALID", value.message[:300]
    assert rows[0]["line"] == line and words in rows[0]["reason"], rows[:2]
    assert len(rows) <= 50 and len(value.message) < 2000
