"""Where a simulation child runs: this worker (exec, fork server, mpiexec), Slurm, AWS Batch. May import:
hydrata.compute, hydrata.core, hydrata.storage, hydrata.anuga.models, hydrata.anuga.selectors."""
