"""Where a run computes and what its simulation process says when it ends."""

from hydrata_contract.labelled import Labelled


class ComputeBackend(Labelled):
    LOCAL = "local", "This site's workers"
    SLURM = "slurm", "A Slurm cluster"
    EC2 = "ec2", "AWS EC2"
    BATCH = "batch", "AWS Batch"


# The simulation child's exit code when the model went unstable (the run ends in error saying so).
EXIT_UNSTABLE = 3


class RunOutputs(Labelled):
    """What a simulation keeps once it is complete (the child's --outputs)."""

    FULL = "full", "Every result: the rasters, the .sww, the depth at its saved times and the preview"
    ENVELOPE = (
        "envelope",
        (
            "What a design study's envelopes read of a member: the peak depth, stage, speed and hazard rasters, the "
            "statistics and the gauges' and flow lines' series"
        ),
    )
