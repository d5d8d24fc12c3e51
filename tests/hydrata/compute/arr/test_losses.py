import pytest

from hydrata.compute.arr.files import ArrFileError
from hydrata.compute.arr.losses import losses_parse
from hydrata_contract.errors import ErrorCode
from tests.data import ARR


def test_the_storm_losses_and_median_preburst_are_read_from_the_data_hubs_text():
    losses = losses_parse((ARR / "Synthetic_DataHub.txt").read_text())
    assert (losses.initial_loss_mm, losses.continuing_loss_mm_h) == (28.0, 2.5)
    assert losses.preburst is not None
    assert losses.preburst.aeps_pct == (50.0, 20.0, 10.0, 5.0, 2.0, 1.0)
    assert losses.preburst.durations_min == (60.0, 120.0, 360.0)
    assert losses.preburst.depth(aep_pct=1.0, duration_min=60) == 8.0


def test_preburst_between_two_durations_is_linear_and_held_beyond_the_table():
    preburst = losses_parse((ARR / "Synthetic_DataHub.txt").read_text()).preburst
    assert preburst is not None
    assert preburst.depth(aep_pct=1.0, duration_min=90) == pytest.approx(9.0)  # halfway from 8 to 10
    assert preburst.depth(aep_pct=1.0, duration_min=10) == 8.0
    assert preburst.depth(aep_pct=1.0, duration_min=4320) == 12.0
    assert preburst.depth(aep_pct=63.2, duration_min=60) is None


def test_a_file_without_preburst_has_only_the_losses():
    text = "[LOSSES]\nStorm Initial Losses (mm),15\nStorm Continuing Losses (mm/h),1.5\n[END_LOSSES]\n"
    losses = losses_parse(text)
    assert (losses.initial_loss_mm, losses.continuing_loss_mm_h, losses.preburst) == (15.0, 1.5, None)


def test_bad_losses_and_preburst_rows_are_each_named():
    text = (ARR / "Synthetic_DataHub.txt").read_text()
    text = text.replace("Storm Continuing Losses (mm/h),2.5", "Storm Continuing Losses (mm/h),-2")
    text = text.replace("120 (2.0),4.0 (0.120)", "120 (2.0),four (0.120)")
    with pytest.raises(ArrFileError) as refused:
        losses_parse(text)
    assert refused.value.code == ErrorCode.ARR_FILE_INVALID
    reasons = [row["reason"] for row in refused.value.extra["rows"]]
    assert [row["line"] for row in refused.value.extra["rows"]] == [14, 24]
    assert "is below 0" in reasons[0]
    assert "'four (0.120)' is not 'depth (ratio)'" in reasons[1]


def test_an_urban_output_without_losses_says_to_give_them():
    text = "[LOSSES]\nID,1\n[END_LOSSES]\n"
    with pytest.raises(ArrFileError, match="give the losses"):
        losses_parse(text)


def test_a_file_without_a_losses_block_is_not_a_data_hub_output():
    with pytest.raises(ArrFileError, match=r"no \[LOSSES\] block"):
        losses_parse("EventID,Duration\n")
