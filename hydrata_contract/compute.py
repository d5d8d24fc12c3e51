"""Where a run computes and what its simulation process says when it ends."""

from hydrata_contract.labelled import Labelled


class ComputeBackend(Labelled):
    LOCAL = "local", "This site's workers"
    SLURM = "slurm", "A Slurm cluster"
    EC2 = "ec2", "AWS EC2"
    BATCH = "batch", "AWS Batch"


# The simulation child's exit code when the model went unstable (the run ends in error saying so).
EXIT_UNSTABLE = 3
