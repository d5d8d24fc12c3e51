import subprocess
import sys

import pytest

from scripts.mutants import ROOT, baseline_tests, first_failure, load_mutants, parse_share, share_of


def test_the_shares_together_hold_every_mutant_exactly_once():
    mutants = load_mutants()
    shares = [share_of(mutants, turn=turn, shares=8) for turn in range(8)]
    names = [mutant.name for share in shares for mutant in share]
    assert sorted(names) == sorted(mutant.name for mutant in mutants)
    assert max(map(len, shares)) - min(map(len, shares)) <= 1


def test_a_share_of_one_is_every_mutant():
    mutants = load_mutants()
    assert share_of(mutants, turn=0, shares=1) == mutants


def test_a_fixed_share_is_parsed_and_an_out_of_range_turn_is_refused():
    assert parse_share("3/8") == (3, 8)
    assert parse_share("7/8") == (7, 8)
    with pytest.raises(ValueError):
        parse_share("8/8")
    with pytest.raises(ValueError):
        parse_share("0/0")


def test_the_automatic_share_rotates_with_the_commit_count(tmp_path):
    turn, shares = parse_share("auto/8")
    assert shares == 8 and 0 <= turn < 8
    # Outside a repository there is no count: the first share, not a crash.
    assert parse_share("auto/8", root=tmp_path) == (0, 8)


def test_the_killing_test_is_read_from_the_summary_not_from_a_captured_log_line_that_says_error():
    output = (
        "------ Captured log call ------\n"
        "ERROR    weasyprint:urls.py:254 Unsupported stylesheet type\n"
        "====== short test summary info ======\n"
        "FAILED tests/hydrata/reports/test_report_documents.py::test_the_pdf - assert 1 == 0\n"
    )
    assert first_failure(output) == "FAILED tests/hydrata/reports/test_report_documents.py::test_the_pdf"
    assert first_failure("ERROR    a log line only\n") == "(no summary line)"


def fixtures_not_found(tests: list[str]) -> list[str]:
    """The lines where pytest, planning the fixtures of these tests without running them, finds one missing."""
    plan = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--setup-plan", *tests]
    output = subprocess.run(plan, cwd=ROOT, capture_output=True, text=True).stdout
    return [line for line in output.splitlines() if "not found" in line]


@pytest.mark.long_running
def test_every_fixture_of_the_baselines_tests_is_found_in_the_order_it_asks_for_them():
    """pytest 9.1 lost the services folder's conftest fixture (queue_run) for a test of that folder asked for
    after a file of the anuga folder (test_aws_batch.py then, test_cleanup.py now): the baseline failed without any
    mutant."""
    interleaved = [
        "tests/hydrata/anuga/services/test_reap_edges.py",
        "tests/hydrata/anuga/test_launch_gates.py",
        "tests/hydrata/anuga/services/test_cleanup.py",
    ]
    if pytest.version_tuple[:2] == (9, 1):
        assert fixtures_not_found(interleaved), "pytest 9.1 loses the fixture in this order"

    assert fixtures_not_found(baseline_tests(load_mutants())) == []
