import pytest

from hydrata.compute.arr.files import ArrFileError
from hydrata.compute.arr.ifd import aep_label, aep_percent, ifd_parse
from hydrata_contract.errors import ErrorCode
from tests.data import ARR


def test_the_bureaus_depths_table_is_read_with_its_footnote_marks_dropped():
    table = ifd_parse((ARR / "Synthetic_IFD_Depths.csv").read_text())
    assert table.aeps == ("63.2%", "50%", "20%", "10%", "5%", "2%", "1%")
    assert table.durations_min == (10, 30, 60, 120)
    assert table.depth(aep="1%", duration_min=60) == 91.5
    assert table.depth(aep="50%", duration_min=10) == 15.7
    assert table.depth(aep="1%", duration_min=45) is None


def test_every_bad_row_is_named_by_its_line_and_nothing_is_read():
    with pytest.raises(ArrFileError) as refused:
        ifd_parse((ARR / "Malformed_IFD_Depths.csv").read_text())
    assert refused.value.code == ErrorCode.ARR_FILE_INVALID
    assert [row["line"] for row in refused.value.extra["rows"]] == [10, 11, 13]
    reasons = " ".join(row["reason"] for row in refused.value.extra["rows"])
    assert "'n/a' is not a number" in reasons
    assert "8 cells where the header has 9" in reasons
    assert "60 min appears twice" in reasons
    assert "line 10" in refused.value.message and "line 13" in refused.value.message


def test_the_intensity_table_is_refused_because_a_study_needs_depths():
    text = (ARR / "Synthetic_IFD_Depths.csv").read_text().replace("Rainfall Depth (mm)", "Rainfall Intensity (mm/h)")
    with pytest.raises(ArrFileError, match="intensity table"):
        ifd_parse(text)


def test_a_file_without_the_header_row_is_not_an_ifd_table():
    with pytest.raises(ArrFileError, match="Duration in min"):
        ifd_parse("EventID,Duration,TimeStep\n1,2,3\n")


def test_a_long_list_of_bad_rows_is_capped_in_the_message_and_in_the_rows_carried():
    header = '"Duration","Duration in min","1%"\n'
    text = header + "".join(f'"{m} min",{m},bad\n' for m in range(1, 81))
    with pytest.raises(ArrFileError) as refused:
        ifd_parse(text)
    assert refused.value.extra["bad_row_count"] == 80
    assert len(refused.value.extra["rows"]) == 50
    assert "and 75 more" in refused.value.message


@pytest.mark.parametrize(
    ("label", "percent"), [("1%", 1.0), ("1 in 200", 0.5), ("63.2%", 63.2), ("1EY", 63.212055882855765)]
)
def test_an_aep_is_read_as_a_percentage_whichever_way_the_table_names_it(label, percent):
    assert aep_percent(aep_label(label)) == pytest.approx(percent)


def test_the_bureaus_footnote_marks_and_spacing_are_not_part_of_an_aep():
    assert aep_label("50%#") == "50%"
    assert aep_label("1 in  200*") == "1 in 200"


@pytest.mark.parametrize("label", ["1 in 0", "0%", "100%", "1e400%", "abc", "xEY", "-1EY"])
def test_a_column_that_is_no_probability_is_a_bad_header_not_a_crash(label):
    with pytest.raises(ArrFileError, match="is not an AEP"):
        ifd_parse(f'"Duration","Duration in min","{label}"\n"1 hour",60,20\n')


def test_a_duration_beyond_any_arr_tabulates_is_a_bad_row():
    with pytest.raises(ArrFileError, match="above 20160"):
        ifd_parse('"Duration","Duration in min","1%"\n"long",1e12,20\n')


def test_a_depth_deeper_than_any_rain_is_a_bad_row_so_no_storm_overflows():
    with pytest.raises(ArrFileError, match="depth 1e\\+300 is above 10000"):
        ifd_parse('"Duration","Duration in min","1%"\n"1 hour",60,1e300\n')
