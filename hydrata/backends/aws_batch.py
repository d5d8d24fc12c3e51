"""The AWS Batch client: a run's job submitted as a multi-node parallel job of the operator's job definition,
followed with DescribeJobs and ended with TerminateJob (which cancels a job still queued, too).

A Batch job has no stdin, so its spec waits in storage and the job is given one signed link to it, in its main
node's environment. The job definition is the operator's: an image with this platform installed, whose nodes
run `python -m hydrata.compute.processes.remote_run` (the command is set here, on the main node).
"""

import contextlib
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError
from django.conf import settings

from hydrata.backends.cluster_jobs import UNKNOWN, Cluster, ClusterError, JobState

ACTIVE_STATES = frozenset({"SUBMITTED", "PENDING", "RUNNABLE", "STARTING", "RUNNING"})
MINIMUM_ATTEMPT_SECONDS = 60  # Batch's own floor for a job's timeout


def configured() -> bool:
    return bool(settings.HYDRATA_BATCH_JOB_QUEUE and settings.HYDRATA_BATCH_JOB_DEFINITION)


def submit(*, name: str, spec: dict[str, Any], spec_url: str, tasks: int, threads: int, wall_seconds: int) -> str:
    answer = _call(
        "submit_job",
        **job_request(name=name, spec_url=spec_url, tasks=tasks, threads=threads, wall_seconds=wall_seconds),
    )
    return str(answer["jobId"])


def job_request(*, name: str, spec_url: str, tasks: int, threads: int, wall_seconds: int) -> dict[str, Any]:
    """SubmitJob's parameters: the operator's definition on one node holding every rank, with its vCPUs reserved.
    mpiexec on the main node is given no other node's address, so further nodes would be paid for and sit idle
    (docs/compute-backends.md, `batch`)."""
    environment = [{"name": "HYDRATA_SPEC_URL", "value": spec_url}, {"name": "OMP_NUM_THREADS", "value": str(threads)}]
    main = {
        "command": ["python", "-m", "hydrata.compute.processes.remote_run"],
        "environment": environment,
        "resourceRequirements": [{"type": "VCPU", "value": str(tasks * threads)}],
    }
    return {
        "jobName": name,
        "jobQueue": settings.HYDRATA_BATCH_JOB_QUEUE,
        "jobDefinition": settings.HYDRATA_BATCH_JOB_DEFINITION,
        "nodeOverrides": {"numNodes": 1, "nodePropertyOverrides": [{"targetNodes": "0", "containerOverrides": main}]},
        "timeout": {"attemptDurationSeconds": max(MINIMUM_ATTEMPT_SECONDS, wall_seconds)},
        "propagateTags": True,
        "tags": {"hydrata:job": name},
    }


def job_state(job_id: str) -> JobState:
    jobs = _call("describe_jobs", jobs=[job_id]).get("jobs", [])
    if not jobs:
        return UNKNOWN
    word = str(jobs[0]["status"])
    return JobState(state=word, running=word == "RUNNING", ended=word not in ACTIVE_STATES)


def cancel_job(job_id: str) -> None:
    with contextlib.suppress(ClusterError):  # already gone: there is nothing left to stop
        _call("terminate_job", jobId=job_id, reason="Cancelled on the Hydrata platform.")


def _call(operation: str, **parameters: Any) -> dict[str, Any]:
    client = boto3.session.Session().client(
        "batch", region_name=settings.HYDRATA_BATCH_REGION, endpoint_url=settings.HYDRATA_BATCH_ENDPOINT_URL
    )
    try:
        return getattr(client, operation)(**parameters)
    except ClientError as refused:
        raise ClusterError(f"AWS Batch {operation}: {refused.response['Error'].get('Message', '')[:300]}") from None
    except BotoCoreError as failure:
        raise ClusterError(f"AWS Batch {operation} could not be called: {type(failure).__name__}") from None


BATCH = Cluster(name="AWS Batch", submit=submit, state=job_state, cancel=cancel_job)
