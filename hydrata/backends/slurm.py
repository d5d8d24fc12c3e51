"""The Slurm cluster client: a run's job submitted with sbatch, followed with squeue (sacct or scontrol once it has
left the queue) and cancelled with scancel. The cluster's own commands do the work; SLURM_CONF in the worker's
environment says which cluster.

The job's environment is not the worker's (`--export=NONE`): the script sets the little the runner needs, and
the runner's spec, with its signed links, reaches it on stdin from a here-document, never on a command line.
"""

import json
import re
import shlex
import subprocess
from typing import Any

from django.conf import settings

from hydrata.backends.cluster_jobs import UNKNOWN, Cluster, ClusterError, JobState

COMMAND_TIMEOUT_SECONDS = 30
# Slurm's states of a job that has not ended (squeue's %T).
ACTIVE_STATES = frozenset(
    {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING", "STAGE_OUT", "SIGNALING"}
)
SPEC_END = "HYDRATA_SPEC_END"
PARTITION_NAME = re.compile(r"[A-Za-z0-9_.,-]+")  # one or more partitions, comma-separated: nothing sh would read


def job_script(*, name: str, spec_json: str, tasks: int, threads: int, wall_seconds: int) -> str:
    """The batch script: one task per MPI rank, each with its threads; the runner reads its spec from stdin."""
    if "\n" in spec_json:
        raise ValueError("the spec must be one line of JSON")
    directives = [
        f"--job-name={name}",
        f"--ntasks={tasks}",
        f"--cpus-per-task={threads}",
        f"--time={max(1, -(-wall_seconds // 60))}",
        "--export=NONE",
        "--output=/dev/null",
    ]
    if settings.HYDRATA_SLURM_PARTITION:
        if not PARTITION_NAME.fullmatch(settings.HYDRATA_SLURM_PARTITION):
            raise ClusterError("HYDRATA_SLURM_PARTITION must be partition names separated by commas.")
        directives.append(f"--partition={settings.HYDRATA_SLURM_PARTITION}")
    exports = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "PYTHONPATH": settings.HYDRATA_SLURM_SOURCE_ROOT,
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": str(threads),
        "LANG": "C.UTF-8",
    }
    lines = [
        "#!/bin/sh",
        *(f"#SBATCH {directive}" for directive in directives),
        *(f"export {variable}={shlex.quote(value)}" for variable, value in exports.items()),
        'cd "${TMPDIR:-/tmp}"',
        f"exec {shlex.quote(settings.HYDRATA_SLURM_PYTHON)} -m hydrata.compute.processes.remote_run <<'{SPEC_END}'",
        spec_json,
        SPEC_END,
    ]
    return "\n".join(lines) + "\n"


def submit(*, name: str, spec: dict[str, Any], spec_url: str, tasks: int, threads: int, wall_seconds: int) -> str:
    script = job_script(name=name, spec_json=json.dumps(spec), tasks=tasks, threads=threads, wall_seconds=wall_seconds)
    output = _slurm(["sbatch", "--parsable"], stdin=script)
    job_id = output.strip().split(";")[0]
    if not job_id.isdigit():
        raise ClusterError(f"sbatch answered no job id: {output.strip()[:200]}")
    return job_id


def job_state(job_id: str) -> JobState:
    """squeue while the job is queued or running; once it has left the queue, sacct where the cluster keeps
    accounting, else scontrol (which remembers an ended job for the cluster's MinJobAge)."""
    queued = _slurm(["squeue", "--noheader", "--jobs", job_id, "--format", "%T"], check=False).strip()
    if queued:
        return _state(queued.split()[0])
    accounted = _slurm(["sacct", "--noheader", "-X", "--parsable2", "--jobs", job_id, "--format", "State"], check=False)
    if accounted.strip():
        return _state(accounted.split()[0])
    shown = _slurm(["scontrol", "--oneliner", "show", "job", job_id], check=False)
    for field in shown.split():
        if field.startswith("JobState="):
            return _state(field.removeprefix("JobState="))
    return UNKNOWN


def cancel_job(job_id: str) -> None:
    _slurm(["scancel", job_id], check=False)


def _state(word: str) -> JobState:
    return JobState(state=word, running=word == "RUNNING", ended=word not in ACTIVE_STATES)


def _slurm(command: list[str], *, stdin: str | None = None, check: bool = True) -> str:
    try:
        done = subprocess.run(
            command, input=stdin, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as failure:
        if check:
            raise ClusterError(f"{command[0]} could not be run: {failure}") from failure
        return ""
    if done.returncode != 0:
        if check:
            first = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[0]
            raise ClusterError(f"{command[0]}: {first[:300]}")
        return ""
    return done.stdout


SLURM = Cluster(name="Slurm", submit=submit, state=job_state, cancel=cancel_job)
