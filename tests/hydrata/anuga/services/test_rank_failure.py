"""What the worker makes of mpiexec's report of a rank that ended badly."""

from hydrata.backends.local import rank_failure

HYDRA_REPORT = """
===================================================================================
=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES
=   PID 4242 RUNNING AT vm
=   EXIT CODE: 9
=   CLEANING UP REMAINING PROCESSES
=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES
===================================================================================
YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)\t\x20
This typically refers to a problem with your application.
"""


def test_a_rank_killed_by_a_signal_is_named_with_its_process_and_the_signal():
    message, signal = rank_failure(HYDRA_REPORT, ranks=2)

    assert signal == 9
    assert message.startswith("One of the run's 2 MPI ranks (process 4242) ended unexpectedly: Killed (signal 9).")


def test_an_exit_string_without_a_signal_gives_the_reason_and_no_signal():
    found = rank_failure("TERMINATED WITH THE EXIT STRING: Segmentation fault\n", ranks=4)

    assert found is not None and found[1] is None and "ended unexpectedly: Segmentation fault." in found[0]


def test_output_without_an_exit_string_is_no_rank_failure_even_a_long_line_of_spaces():
    assert rank_failure("mpiexec: all ranks done\n", ranks=2) is None
    found = rank_failure("TERMINATED WITH THE EXIT STRING:" + " " * 100_000 + "x", ranks=2)
    assert found is not None and found[0].endswith("ended unexpectedly: x. mpiexec stopped every other rank.")
