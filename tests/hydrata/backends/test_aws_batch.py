"""The `batch` target against moto's AWS Batch, as far as moto goes: botocore holds every request to the real
Batch API's model (names and types), and moto checks the queue and the job definition exist and keeps the job.
Moto runs nothing (its Batch without Docker marks a job SUCCEEDED at once), so a run there ends in error for want
of its exit report: the platform never calls a run complete on the cluster's word alone. What only a real account
proves is in docs/compute-backends.md ("The targets", `batch`)."""

import json
from datetime import timedelta

import boto3
import moto
import pytest

from hydrata.anuga.models import Run
from hydrata.anuga.services.runs import WORKER_STOPPED_REPORTING, runs_reap_stale
from hydrata.anuga.services.simulation import run_simulate
from hydrata.backends import aws_batch
from hydrata.backends.cluster_jobs import ClusterError
from hydrata.storage import get_storage
from hydrata_contract.states import RunStatus
from tests.factories import make_computing_run, make_project

pytestmark = pytest.mark.django_db(transaction=True)
REGION = "ap-southeast-2"


@pytest.fixture
def batch(settings):
    """A job queue and the operator's multi-node job definition in moto's Batch, configured as the platform's."""
    with moto.mock_aws(config={"batch": {"use_docker": False}}):
        role = boto3.client("iam", region_name=REGION).create_role(RoleName="batch", AssumeRolePolicyDocument="{}")
        client = boto3.client("batch", region_name=REGION)
        environment = client.create_compute_environment(
            computeEnvironmentName="flood", type="UNMANAGED", state="ENABLED", serviceRole=role["Role"]["Arn"]
        )
        client.create_job_queue(
            jobQueueName="flood",
            state="ENABLED",
            priority=1,
            computeEnvironmentOrder=[{"order": 1, "computeEnvironment": environment["computeEnvironmentArn"]}],
        )
        container = {"image": "hydrata:latest", "vcpus": 1, "memory": 2048, "command": ["python"]}
        client.register_job_definition(
            jobDefinitionName="hydrata-run",
            type="multinode",
            nodeProperties={
                "numNodes": 1,
                "mainNode": 0,
                "nodeRangeProperties": [{"targetNodes": "0:", "container": container}],
            },
        )
        settings.HYDRATA_COMPUTE_BACKENDS = ["local", "batch"]
        settings.HYDRATA_BATCH_JOB_QUEUE, settings.HYDRATA_BATCH_JOB_DEFINITION = "flood", "hydrata-run"
        settings.HYDRATA_BATCH_REGION, settings.HYDRATA_BATCH_ENDPOINT_URL = REGION, None
        yield client


def test_a_run_on_batch_is_submitted_to_the_operators_queue_and_ends_in_error_without_the_jobs_exit_report(
    batch, queue_run
):
    _, run_id = queue_run(300)
    Run.objects.filter(pk=run_id).update(compute_backend="batch")

    run = run_simulate(run_id=run_id)

    assert run.status == RunStatus.ERROR
    assert "AWS Batch job" in run.error_message and "(SUCCEEDED) without reporting back" in run.error_message
    job = batch.list_jobs(jobQueue="flood", jobStatus="SUCCEEDED")["jobSummaryList"][0]
    described = batch.describe_jobs(jobs=[job["jobId"]])["jobs"][0]
    assert described["jobName"] == f"hydrata-run-{run_id}" and described["timeout"]["attemptDurationSeconds"] >= 900
    with get_storage().open(key=f"runs/{run_id}/job/spec.json") as stream:
        spec = json.load(stream)  # what the job's one link (HYDRATA_SPEC_URL) reads
    assert set(spec["inputs"]) >= {"scenario.json"} and spec["exit"].startswith("http")
    assert Run.objects.get(pk=run_id).external_job_id == ""


def test_a_request_batch_would_refuse_is_a_cluster_error_naming_no_link(batch, settings):
    settings.HYDRATA_BATCH_JOB_QUEUE = "no-such-queue"

    with pytest.raises(ClusterError) as refused:
        aws_batch.submit(
            name="run", spec={}, spec_url="https://x.example/s?X-Amz-Signature=1", tasks=2, threads=1, wall_seconds=60
        )
    assert "X-Amz-Signature" not in str(refused.value)


def test_cancelling_a_job_batch_no_longer_knows_is_quiet(batch):
    aws_batch.cancel_job("no-such-job")


def test_a_run_of_two_ranks_asks_batch_for_one_node_holding_every_ranks_vcpus(batch):
    request = aws_batch.job_request(
        name="ranks", spec_url="https://x.example/s?X-Amz-Signature=1", tasks=2, threads=3, wall_seconds=60
    )

    overrides = request["nodeOverrides"]
    assert overrides["numNodes"] == 1
    (main,) = overrides["nodePropertyOverrides"]
    assert main["targetNodes"] == "0"
    assert main["containerOverrides"]["resourceRequirements"] == [{"type": "VCPU", "value": "6"}]
    assert {"name": "OMP_NUM_THREADS", "value": "3"} in main["containerOverrides"]["environment"]
    assert batch.submit_job(**request)["jobName"] == "ranks"  # botocore holds it to the real API's model


def test_a_run_whose_worker_was_lost_has_its_batch_job_terminated_even_once_it_is_running(batch, settings):
    # Moto's Batch starts (and finishes) a job as it is submitted: a job past RUNNABLE, as a computing run's is.
    # Only TerminateJob stops such a job; CancelJob leaves it to run on, and Batch records no reason on it.
    job_id = aws_batch.submit(
        name="hydrata-run-lost", spec={}, spec_url="https://x.example/s", tasks=1, threads=1, wall_seconds=60
    )
    silent = timedelta(seconds=settings.HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS + 1)
    run = make_computing_run(make_project(), silent_for=silent)
    Run.objects.filter(pk=run.pk).update(compute_backend="batch", external_job_id=job_id)

    ended = runs_reap_stale()

    job = batch.describe_jobs(jobs=[job_id])["jobs"][0]
    assert ended == 1 and Run.objects.get(pk=run.pk).error_message == WORKER_STOPPED_REPORTING
    assert job.get("statusReason") == "Cancelled on the Hydrata platform."
