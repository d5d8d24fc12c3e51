"""scripts/conformance_not_applicable.yaml: every check set aside or skipped has its reason and the specification's
words, the suite's baseline holds only the set-aside ones, and a reason the suite's report contradicts fails the run."""

from pathlib import Path

import yaml

from scripts.mcp_conformance import explain_not_applicable, not_applicable, write_expected_failures

LISTEN_ACK = "server-stateless:sep-2575-server-sends-subscription-ack"
FIXTURE_TOOL = "server-stateless:sep-2575-server-rejects-undeclared-capability"


def test_every_entry_gives_its_reason_and_the_specifications_words():
    for entry in not_applicable():
        assert entry["why"].strip()
        assert all(
            quote["source"].startswith("https://modelcontextprotocol.io/specification/") for quote in entry["spec"]
        )
        assert all(quote["words"].strip() for quote in entry["spec"])


def test_the_suite_is_handed_only_the_set_aside_checks(tmp_path: Path):
    baseline = yaml.safe_load(write_expected_failures(tmp_path / "expected.yaml").read_text())

    assert FIXTURE_TOOL in baseline["server"]
    assert LISTEN_ACK not in baseline["server"]  # the suite skips it by itself: it must not be an expected failure


def test_a_check_the_suite_skips_is_explained_and_one_it_ran_instead_fails_the_run():
    holds, lines = explain_not_applicable({LISTEN_ACK: "SKIPPED", FIXTURE_TOOL: "FAILURE"})
    ran, stale = explain_not_applicable({LISTEN_ACK: "SUCCESS"})

    assert holds
    assert f"  not applicable, skipped by the suite: {LISTEN_ACK}" in lines
    assert f"  not applicable, set aside (the suite reports FAILURE): {FIXTURE_TOOL}" in lines
    assert any("If the server does not implement the requested RPC method" in line for line in lines)
    assert not ran and any("STALE" in line for line in stale)


def test_checks_a_run_did_not_report_are_not_explained():
    assert explain_not_applicable({}) == (True, [])
