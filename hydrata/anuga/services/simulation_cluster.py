"""A run on a Slurm cluster: the worker submits a job that runs hydrata.compute.remote_run on a compute node, and
follows it until it ends, as it follows a local child.

The node shares no disk with the platform: it fetches the package and sends back progress and results through
signed storage links (S3 in production) made for this run alone, valid for its queue allowance and wall-clock
limit. The results land under the run's results prefix, exit.json last; this side then finishes the run exactly
as a local one.
"""

import json
import logging
import time
from typing import Any

from django.conf import settings

from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.services import slurm
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
from hydrata.anuga.services.simulation_child import ChildLimits, child_limits
from hydrata.storage import get_storage
from hydrata.storage.errors import StorageError
from hydrata_contract.states import RunStatus

logger = logging.getLogger(__name__)

WATCH_INTERVAL_SECONDS = 3.0
TRANSFER_CONTENT_TYPE = "application/octet-stream"
JOB_FILES = ("progress.jsonl", "exit.json")


def package_names(manifest: dict[str, Any], input_fields: tuple[str, ...]) -> list[str]:
    """The files of a built package, relative to it: scenario.json's own list."""
    names = ["scenario.json", manifest["mesh"], manifest["elevation"], *manifest.get("time_series", {}).values()]
    return names + [manifest[kind] for kind in input_fields if manifest.get(kind)]


def simulate_on_slurm(run: Run) -> Run:
    limits = child_limits(run=run)
    threads = max(1, settings.HYDRATA_SLURM_THREADS_PER_TASK)
    try:
        script = slurm.job_script(
            name=f"hydrata-run-{run.pk}",
            spec_json=json.dumps(job_spec(run, limits=limits, threads=threads)),
            tasks=1,
            threads=threads,
            wall_seconds=limits.wall_seconds,
        )
        job_id = slurm.submit_job(script=script)
    except slurm.ClusterError as refused:
        return end_run(
            run,
            RunStatus.ERROR,
            error_message=f"The Slurm cluster did not take the job: {refused}",
            user_message="The cluster refused the run. Retry it with retry_run, or ask the platform's operator.",
        )
    Run.objects.filter(pk=run.pk).update(external_job_id=job_id)
    outcome: str = RunStatus.ERROR
    state = slurm.JobState(state="UNKNOWN")
    try:
        outcome, state = _follow(run, job_id, wall_seconds=limits.wall_seconds)
    finally:
        if not state.ended:  # this side failed, or stopped the run: never leave the job computing
            slurm.cancel_job(job_id=job_id)
    return _finish(run, job_id=job_id, outcome=outcome, state=state, limits=limits)


def job_spec(run: Run, *, limits: ChildLimits, threads: int) -> dict[str, Any]:
    storage = get_storage()
    expires = settings.HYDRATA_SLURM_QUEUE_SECONDS + limits.wall_seconds
    with storage.open(key=f"{run.package_prefix}/scenario.json") as stream:
        manifest = json.load(stream)
    put = {
        name: storage.presign_upload(
            key=f"{results_prefix(run)}/{name}", content_type=TRANSFER_CONTENT_TYPE, expires_in=expires
        )
        for name in (*RESULT_FILES, SWW_NAME)
    }
    arguments = ["--threads", str(threads)]
    if settings.HYDRATA_RUN_YIELD_SECONDS > 0:
        arguments += ["--yield-seconds", str(settings.HYDRATA_RUN_YIELD_SECONDS)]
    return {
        "inputs": {
            name: storage.presign_download(key=f"{run.package_prefix}/{name}", expires_in=expires)
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
        "arguments": arguments,
        "launcher": [],
        "limits": {
            "cpu_seconds": limits.cpu_seconds,
            "address_space_bytes": limits.address_space_bytes,
            "file_bytes": limits.file_bytes,
        },
    }


def _follow(run: Run, job_id: str, *, wall_seconds: int) -> tuple[str, slurm.JobState]:
    """Copy the job's progress into the run until it ends; cancel it on request or past its wall-clock limit
    (counted from when it started running, not while it queued). Returns the outcome and the last state seen."""
    running_since: float | None = None
    while True:
        state = slurm.job_state(job_id=job_id)
        if state.ended:
            return "exited", state
        if state.running and running_since is None:
            running_since = time.monotonic()
        record_progress(run, _job_progress(run))
        if Run.objects.filter(pk=run.pk, cancel_requested=True).exists():
            slurm.cancel_job(job_id=job_id)
            return RunStatus.CANCELLED, state
        if running_since is not None and time.monotonic() - running_since > wall_seconds:
            slurm.cancel_job(job_id=job_id)
            return "timed_out", state
        time.sleep(WATCH_INTERVAL_SECONDS)


def _finish(run: Run, *, job_id: str, outcome: str, state: slurm.JobState, limits: ChildLimits) -> Run:
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
                error_message=f"The Slurm job {job_id} ended ({state.state}) without reporting back.",
                user_message="The cluster lost the run. Retry it with retry_run.",
                log=log,
            )
        returncode = report.get("returncode") if report else None
        logger.warning("Run %s: Slurm job %s ended %s: %s", run.pk, job_id, state.state, report)
        return run_failed(
            run, returncode=returncode, timed_out=outcome == "timed_out", last=last, limits=limits, log=log
        )
    statistics = _read_json(f"{results_prefix(run)}/statistics.json") or {}
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
