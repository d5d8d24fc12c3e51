import numpy as np
import pytest

from hydrata.compute.arr.ensemble import Factors, ensemble, member_storm
from hydrata.compute.arr.ifd import ifd_parse
from hydrata.compute.arr.losses import losses_parse
from hydrata.compute.arr.patterns import patterns_parse
from tests.data import ARR

IFD = ifd_parse((ARR / "Synthetic_IFD_Depths.csv").read_text())
PATTERNS = patterns_parse((ARR / "Synthetic_Increments.csv").read_text())
LOSSES = losses_parse((ARR / "Synthetic_DataHub.txt").read_text())
FACTORS = Factors(areal_reduction_factor=0.95, climate_factor=1.1, initial_loss_mm=28.0, continuing_loss_mm_h=2.5)


def test_one_member_per_aep_duration_and_pattern_of_the_aeps_bin():
    members, problems = ensemble(
        ifd=IFD,
        patterns=PATTERNS,
        preburst=LOSSES.preburst,
        aeps=["1%", "20%"],
        durations_min=[30, 60],
        factors=FACTORS,
    )
    assert problems == []
    assert len(members) == 2 * 2 * 10
    assert {m.aep_bin for m in members if m.aep == "1%"} == {"rare"}
    assert {m.aep_bin for m in members if m.aep == "20%"} == {"frequent"}
    rare_60 = {p.event_id for p in PATTERNS if p.aep_bin == "rare" and p.duration_min == 60}
    assert {m.pattern for m in members if m.aep == "1%" and m.duration_min == 60} == rare_60


def test_each_members_total_is_the_ifd_depth_times_the_factors_and_its_excess_that_less_the_losses():
    members, _ = ensemble(
        ifd=IFD, patterns=PATTERNS, preburst=LOSSES.preburst, aeps=["1%"], durations_min=[60], factors=FACTORS
    )
    continuing_per_step = 2.5 * 5 / 60
    for member in members:
        storm = member_storm(member, factors=FACTORS)
        assert storm.rain_depth_mm == pytest.approx(91.5 * 0.95 * 1.1)
        assert member.burst_initial_loss_mm == pytest.approx(28.0 - 8.0)  # the 1 %, 60 min pre-burst is 8 mm
        # Independently, in cumulative form: a step keeps what the storm had rained beyond the initial loss by its end
        # (at most its own rain), less the continuing loss, never below zero.
        cumulative = np.cumsum(storm.rain_mm)
        kept = np.clip(np.minimum(storm.rain_mm, cumulative - 20.0), 0.0, None)
        expected = float(np.clip(kept - continuing_per_step, 0.0, None).sum())
        assert storm.excess_depth_mm == pytest.approx(expected)


def test_what_the_inputs_lack_is_named_instead_of_a_member_skipped():
    _, problems = ensemble(
        ifd=IFD,
        patterns=PATTERNS,
        preburst=LOSSES.preburst,
        aeps=["1%", "0.5%", "63.2%"],
        durations_min=[60, 120],
        factors=FACTORS,
    )
    assert "the IFD table has no AEP 0.5% (it has 63.2%, 50%, 20%, 10%, 5%, 2%, 1%)" in problems
    assert "the temporal patterns have none of 120 min in the rare bin (for 1%)" in problems
    assert "the pre-burst table has no column for 63.2%" in problems
