import pytest

from hydrata.compute.arr.files import ArrFileError
from hydrata.compute.arr.patterns import aep_bin, patterns_parse
from hydrata_contract.errors import ErrorCode
from tests.data import ARR


def test_the_data_hubs_increments_file_is_read_pattern_by_pattern():
    patterns = patterns_parse((ARR / "Synthetic_Increments.csv").read_text())
    assert len(patterns) == 90
    first = patterns[0]
    assert (first.event_id, first.duration_min, first.time_step_min, first.aep_bin) == (1001, 10, 5, "frequent")
    assert first.increments_pct == (64.21, 35.79)
    assert {p.region for p in patterns} == {"Synthetic Region"}
    for pattern in patterns:
        assert len(pattern.increments_pct) == pattern.duration_min // pattern.time_step_min
        assert sum(pattern.increments_pct) == pytest.approx(100.0, abs=0.01)


def test_every_bad_pattern_is_named_by_its_line():
    with pytest.raises(ArrFileError) as refused:
        patterns_parse((ARR / "Malformed_Increments.csv").read_text())
    assert refused.value.code == ErrorCode.ARR_FILE_INVALID
    rows = {row["line"]: row["reason"] for row in refused.value.extra["rows"]}
    assert sorted(rows) == [2, 4, 13, 41]
    assert "'sometimes' is not one of frequent, intermediate, rare" in rows[2]
    assert "add up to 90.00 %" in rows[4]
    assert "not a whole number of 7-minute steps" in rows[13]
    assert "'x' is not a number" in rows[41]


def test_a_file_with_another_header_is_not_a_patterns_file():
    with pytest.raises(ArrFileError, match="EventID,Duration,TimeStep,Region,AEP"):
        patterns_parse('"Duration","Duration in min","1%"\n"1 hour",60,20\n')


def test_a_pattern_with_more_increments_than_its_time_steps_is_refused():
    text = "EventID,Duration,TimeStep,Region,AEP,Increments\n7,10,5,R,rare,50,25,25\n"
    with pytest.raises(ArrFileError, match="3 increments where its duration and time step make 2"):
        patterns_parse(text)


@pytest.mark.parametrize(
    ("aep_pct", "expected"),
    [
        (63.2, "frequent"),
        (20.0, "frequent"),
        (14.4, "intermediate"),
        (5.0, "intermediate"),
        (3.2, "rare"),
        (1.0, "rare"),
    ],
)
def test_an_aeps_patterns_come_from_the_bin_arr_assigns_it(aep_pct, expected):
    assert aep_bin(aep_pct) == expected


def test_an_event_id_no_database_column_holds_is_a_bad_row():
    text = "EventID,Duration,TimeStep,Region,AEP,Increments\n99999999999,10,5,R,rare,50,50\n"
    with pytest.raises(ArrFileError, match="EventID 1e\\+11 is above"):
        patterns_parse(text)
