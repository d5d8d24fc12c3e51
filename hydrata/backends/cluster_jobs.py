"""What the platform needs of a cluster that runs a run as a job: submit it, read its state, cancel it. Slurm
(slurm.py) and AWS Batch (aws_batch.py) each answer these; simulation_cluster.py follows either the same way."""

from collections.abc import Callable
from dataclasses import dataclass


class ClusterError(Exception):
    """The cluster did not take a command; the message is its own first line (it names no link)."""


@dataclass(frozen=True)
class JobState:
    state: str  # the cluster's own word: Slurm's RUNNING, CANCELLED, ...; Batch's RUNNABLE, SUCCEEDED, ...
    running: bool
    ended: bool


@dataclass(frozen=True)
class Cluster:
    name: str  # for the engineer: "Slurm", "AWS Batch"
    # (*, name, spec, spec_url, tasks, threads, wall_seconds) -> the job's id: the spec itself, and a signed link
    # to the same spec in storage for a cluster that cannot hand a job its stdin
    submit: Callable[..., str]
    state: Callable[[str], JobState]
    cancel: Callable[[str], None]


UNKNOWN = JobState(state="UNKNOWN", running=False, ended=True)  # forgotten by the cluster: not running any more
NOT_SUBMITTED = JobState(state="NOT_SUBMITTED", running=False, ended=False)
