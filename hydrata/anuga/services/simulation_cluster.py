"""A run on a cluster (Slurm, AWS Batch): the worker submits a job that runs hydrata.compute.processes.remote_run on a
compute node, and follows it until it ends, as it follows a local child.

The node shares no disk with the platform: it fetches the package and sends back progress and results through
signed storage links (S3 in production) made for this run alone, valid for its queue allowance and wall-clock
limit. The results land under the run's results prefix, exit.json last; this side then finishes the run exactly
as a local one.
"""

import json
import logging
import time
from pathlib import Path
from typing import Any

from django.conf import settings

from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.services.run_endings import (
    RESULT_FILES,
    SWW_NAME,
    end_run,
    latest_progress,
    record_progress,
    results_prefix,
    run_cancelled,
    run_completed,
    run_failed,
)
from hydrata.backends.aws_batch import BATCH
from hydrata.backends.cluster_jobs import NOT_SUBMITTED, Cluster, ClusterError, JobState
from hydrata.backends.local import ChildLimits, child_arguments, child_limits, mpiexec
from hydrata.backends.slurm import SLURM
from hydrata.storage import get_storage
from hydrata.storage.errors import StorageError
from hydrata_contract.answers.runs import RunStatistics
from hydrata_contract.compute import ComputeBackend
from hydrata_contract.layers import depth_frame_filename
from hydrata_contract.states import RunStatus

logger = logging.getLogger(__name__)

WATCH_INTERVAL_SECONDS = 3.0
TRANSFER_CONTENT_TYPE = "application/octet-stream"
JOB_FILES = ("progress.jsonl", "exit.json")
CLUSTERS: dict[str, Cluster] = {ComputeBackend.SLURM: SLURM, ComputeBackend.BATCH: BATCH}


def package_names(manifest: dict[str, Any], input_fields: tuple[str, ...]) -> list[str]:
    """The files of a built package, relative to it: scenario.json's own list."""
    names = ["scenario.json", manifest["mesh"], manifest["elevation"], *manifest.get("time_series", {}).values()]
    return names + [manifest[kind] for kind in input_fields if manifest.get(kind)]


def package_key(run: Run, manifest: dict[str, Any], name: str) -> str:
    """A design study member's package holds only what it changes (its scenario.json, its rain and its storm, listed
    in own_files); the rest, the mesh and the terrain above all, it reads from the build it shares."""
    shared = manifest.get("shared_prefix")
    if shared and name not in manifest.get("own_files", ()):
        return f"{shared}/{name}"
    return f"{run.package_prefix}/{name}"


def simulate_on_cluster(run: Run) -> Run:
    cluster = CLUSTERS[run.compute_backend]
    limits = child_limits(run=run)
    threads = max(1, settings.HYDRATA_SLURM_THREADS_PER_TASK)
    spec = job_spec(run, limits=limits, threads=threads)
    try:
        job_id = cluster.submit(
            name=f"hydrata-run-{run.pk}",
            spec=spec,
            spec_url=_stored_spec_link(run, spec, limits=limits),
            tasks=run.ranks,
            threads=threads,
            wall_seconds=limits.wall_seconds,
        )
    except ClusterError as refused:
        return end_run(
            run,
            RunStatus.ERROR,
            error_message=f"The {cluster.name} cluster did not take the job: {refused}",
            user_message="The cluster refused the run. Retry it with retry_run, or ask the platform's operator.",
        )
    Run.objects.filter(pk=run.pk).update(external_job_id=job_id)
    outcome: str = RunStatus.ERROR
    state = NOT_SUBMITTED
    try:
        outcome, state = _follow(run, cluster, job_id, wall_seconds=limits.wall_seconds)
    finally:
        if not state.ended:  # this side failed, or stopped the run: never leave the job computing
            cluster.cancel(job_id)
    return _finish(run, cluster, job_id=job_id, outcome=outcome, state=state, limits=limits)


def cancel_cluster_job(*, compute_backend: str, job_id: str) -> None:
    cluster = CLUSTERS.get(compute_backend)  # the backends are str enums: the stored word finds its cluster
    if cluster:
        cluster.cancel(job_id)


def _stored_spec_link(run: Run, spec: dict[str, Any], *, limits: ChildLimits) -> str:
    """The spec in storage, for a cluster that cannot hand its job stdin; the link is as long-lived as the rest."""
    storage = get_storage()
    key = f"{job_prefix(run)}/spec.json"
    storage.save(key=key, data=json.dumps(spec).encode(), content_type="application/json")
    return storage.presign_download(key=key, expires_in=settings.HYDRATA_SLURM_QUEUE_SECONDS + limits.wall_seconds)


def job_spec(run: Run, *, limits: ChildLimits, threads: int) -> dict[str, Any]:
    storage = get_storage()
    expires = settings.HYDRATA_SLURM_QUEUE_SECONDS + limits.wall_seconds
    with storage.open(key=f"{run.package_prefix}/scenario.json") as stream:
        manifest = json.load(stream)
    put = {
        name: storage.presign_upload(
            key=f"{results_prefix(run)}/{name}", content_type=TRANSFER_CONTENT_TYPE, expires_in=expires
        )
        for name in result_names()
    }
    return {
        "inputs": {
            name: storage.presign_download(key=package_key(run, manifest, name), expires_in=expires)
            for name in package_names(manifest, Scenario.INPUT_FIELDS)
        },
        "outputs": put,
        **{
            name.split(".")[0]: storage.presign_upload(
                key=f"{job_prefix(run)}/{name}", content_type=TRANSFER_CONTENT_TYPE, expires_in=expires
            )
            for name in JOB_FILES
        },
        "content_type": TRANSFER_CONTENT_TYPE,
        "arguments": child_arguments(run=run, threads=threads),
        "launcher": node_launcher(ranks=run.ranks),
        "limits": limits.process_limits(),
    }


def node_launcher(*, ranks: int) -> list[str]:
    """mpiexec from the MPI wheels beside the nodes' interpreter, for a run of several ranks; under Slurm it starts
    the ranks across the job's allocation (its tasks), on as many nodes as the cluster gave it."""
    if ranks <= 1:
        return []
    return mpiexec(python=Path(settings.HYDRATA_SLURM_PYTHON), ranks=ranks)


def result_names() -> tuple[str, ...]:
    """Every file a complete run may leave: a link is made for each, and the job sends those it wrote."""
    frames = (depth_frame_filename(frame) for frame in range(settings.HYDRATA_RUN_DEPTH_FRAMES))
    return (*RESULT_FILES, SWW_NAME, *frames)


def _follow(run: Run, cluster: Cluster, job_id: str, *, wall_seconds: int) -> tuple[str, JobState]:
    """Copy the job's progress into the run until it ends; cancel it on request or past its wall-clock limit
    (counted from when it started running, not while it queued). Returns the outcome and the last state seen."""
    running_since: float | None = None
    while True:
        state = cluster.state(job_id)
        if state.ended:
            return "exited", state
        if state.running and running_since is None:
            running_since = time.monotonic()
        record_progress(run, _job_progress(run))
        if Run.objects.filter(pk=run.pk, cancel_requested=True).exists():
            cluster.cancel(job_id)
            return RunStatus.CANCELLED, state
        if running_since is not None and time.monotonic() - running_since > wall_seconds:
            cluster.cancel(job_id)
            return "timed_out", state
        time.sleep(WATCH_INTERVAL_SECONDS)


def _finish(run: Run, cluster: Cluster, *, job_id: str, outcome: str, state: JobState, limits: ChildLimits) -> Run:
    last = _job_progress(run) or {}
    Run.objects.filter(pk=run.pk).update(external_job_id="")
    if outcome == RunStatus.CANCELLED:
        return run_cancelled(run, last)
    report = _read_json(f"{job_prefix(run)}/exit.json")
    log = _read_text(f"{results_prefix(run)}/run.log")
    if outcome == "timed_out" or report is None or report.get("returncode") != 0:
        if report is None and outcome != "timed_out":
            return end_run(
                run,
                RunStatus.ERROR,
                error_message=f"The {cluster.name} job {job_id} ended ({state.state}) without reporting back.",
                user_message="The cluster lost the run. Retry it with retry_run.",
                log=log,
            )
        returncode = report.get("returncode") if report else None
        logger.warning("Run %s: %s job %s ended %s: %s", run.pk, cluster.name, job_id, state.state, report)
        return run_failed(
            run, returncode=returncode, timed_out=outcome == "timed_out", last=last, limits=limits, log=log
        )
    statistics = RunStatistics.model_validate(_read_json(f"{results_prefix(run)}/statistics.json") or {})
    return run_completed(run, results_prefix=results_prefix(run), statistics=statistics, log=log)


def _job_progress(run: Run) -> dict[str, Any] | None:
    try:
        with get_storage().open(key=f"{job_prefix(run)}/progress.jsonl") as stream:
            return latest_progress(stream.read())
    except StorageError:
        return None  # not sent yet


def _read_json(key: str) -> dict[str, Any] | None:
    text = _read_text(key)
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _read_text(key: str) -> str:
    try:
        with get_storage().open(key=key) as stream:
            return stream.read()[-200_000:].decode(errors="replace")
    except StorageError:
        return ""


def job_prefix(run: Run) -> str:
    return f"runs/{run.pk}/job"
