"""The change in peak depth at each gauge of two runs: the numbers of a mesh-convergence check."""

import pytest

from hydrata.compute.impact import gauge_changes


def test_each_gauge_both_runs_recorded_changes_by_other_minus_run_in_metres_and_percent_of_the_run():
    fine = {"bridge": 0.80, "weir": 0.20, "only here": 0.5}
    coarse = {"weir": 0.25, "bridge": 0.72, "only there": 1.0}

    changes = gauge_changes(fine, coarse)

    assert [change["name"] for change in changes] == ["bridge", "weir"]  # the run's order, shared names only
    bridge, weir = changes
    assert bridge["run_peak_depth_m"] == 0.80 and bridge["other_peak_depth_m"] == 0.72
    assert bridge["change_m"] == pytest.approx(-0.08) and bridge["change_pct"] == pytest.approx(-10.0)
    assert weir["change_m"] == pytest.approx(0.05) and weir["change_pct"] == pytest.approx(25.0)


def test_a_gauge_dry_or_off_the_mesh_in_the_run_has_no_percentage_and_off_the_mesh_no_change():
    changes = gauge_changes({"dry": 0.009, "wet": 0.01, "off": None}, {"dry": 0.3, "wet": 0.3, "off": 0.3})

    by_name = {change["name"]: change for change in changes}
    assert by_name["dry"]["change_m"] == pytest.approx(0.291) and by_name["dry"]["change_pct"] is None
    assert by_name["wet"]["change_pct"] == pytest.approx(2900.0)
    assert by_name["off"]["change_m"] is None and by_name["off"]["change_pct"] is None


def test_runs_without_gauges_have_no_changes():
    assert gauge_changes({}, {"a": 1.0}) == [] and gauge_changes({"a": 1.0}, {}) == []
