"""A worker's simulation child takes on its run's limits through the compute floor's one function, as a compute
node's child does (tests/hydrata/compute/processes/test_process_limits.py)."""

from hydrata.backends.local import ChildLimits, child_setup
from hydrata.compute.processes.process_limits import child_preexec
from tests.hydrata.compute.processes.test_process_limits import LIMITS, limits_in


def test_a_workers_child_gets_the_limits_of_its_run_as_a_compute_nodes_child_does():
    limits = ChildLimits(wall_seconds=900, **LIMITS)

    assert limits_in(child_setup(limits)) == limits_in(child_preexec(**LIMITS))
