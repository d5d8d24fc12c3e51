"""Running a queued simulation: the ANUGA child process, watched by this Celery task until it ends.

The child (hydrata.compute.simulation.simulate) knows nothing of the database. It writes progress lines to a file and
results to a folder; this side copies progress into the run, stops the child on cancel or past its wall-clock
limit, and stores results. The child dies with its worker (PR_SET_PDEATHSIG), so a killed worker never leaves an
orphan computing; its environment and resource limits are in simulation_child.py.

A database that restarts or fails over meanwhile costs the run nothing: the watch skips a beat and keeps the child
computing, and every record of the run (claimed, processing, ended) waits the database out (database_retried).
"""

import json
import logging
import os
import select
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.services.run_endings import (
    RESULT_FILES,
    end_run,
    latest_progress,
    record_progress,
    results_prefix,
    run_cancelled,
    run_completed,
    run_failed,
)
from hydrata.anuga.services.simulation_cluster import CLUSTERS, package_key, package_names, simulate_on_cluster
from hydrata.backends.fork_server import ForkedChild, forked_child
from hydrata.backends.local import (
    ChildLimits,
    child_arguments,
    child_command,
    child_environment,
    child_limits,
    child_setup,
    rank_failure,
    threads_per_rank,
)
from hydrata.compute.simulation.phase_clock import WORKER_PHASES_LINE, PhaseClock, children_cpu_seconds
from hydrata.core.database import DATABASE_UNREACHABLE, connections_reset, database_retried
from hydrata.core.records import record_update
from hydrata.storage import get_storage
from hydrata_contract.answers.runs import RunStatistics
from hydrata_contract.layers import DEPTH_FRAME_GLOB
from hydrata_contract.states import RunPhase, RunStatus

logger = logging.getLogger(__name__)

Child = subprocess.Popen | ForkedChild

# The watch wakes at once when the child exits, and otherwise every few seconds to copy its progress and check
# for a cancel: on a machine with few cores, each wake-up (file read, DB queries) is time taken from ANUGA.
WATCH_INTERVAL_SECONDS = 3.0
HEARTBEAT_EVERY_SECONDS = 5.0
TERMINATE_GRACE_SECONDS = 5.0


def run_simulate(*, run_id: int, worker: str = "") -> Run:
    run, claimed = database_retried(lambda: _claim(run_id, worker), what=f"claiming run {run_id}")
    if not claimed:
        return run  # cancelled while queued, or a redelivered task: never start the child
    try:
        if run.compute_backend in CLUSTERS:
            return simulate_on_cluster(run)
        return _simulate_locally(run)
    except Exception:
        logger.exception("Simulation of run %s failed", run.pk)
        return database_retried(
            lambda: end_run(
                run,
                RunStatus.ERROR,
                error_message="The simulation failed with an internal error; it has been logged.",
                user_message="The run failed on our side. Retry it with retry_run.",
            ),
            what=f"ending run {run.pk} in error",
        )


def _claim(run_id: int, worker: str) -> tuple[Run, bool]:
    """The queued run, now computing on this worker, and True; any other run as it is, and False."""
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.status != RunStatus.QUEUED:
            return run, False
        now = timezone.now()
        run.status, run.phase, run.started_at, run.heartbeat_at = (
            RunStatus.COMPUTING,
            RunPhase.PREPARING_INPUTS,
            now,
            now,
        )
        run.worker_hostname = worker or socket.gethostname()
        run.save()
        return run, True


def _simulate_locally(run: Run) -> Run:
    workdir = Path(tempfile.mkdtemp(prefix=f"run-{run.pk}-"))
    try:
        return _simulate_in(run, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _simulate_in(run: Run, workdir: Path) -> Run:
    package, output = workdir / "package", workdir / "output"
    output.mkdir()
    clock = PhaseClock()
    _download_package(run, package)
    clock.mark("package_download")
    # What the child is given reads the run's scenario: waited out too, like every record of the run.
    limits, options = database_retried(
        lambda: (child_limits(run=run), child_arguments(run=run, threads=threads_per_rank(ranks=run.ranks))),
        what=f"reading run {run.pk}'s limits",
    )
    children_cpu = children_cpu_seconds()
    child = _spawn(run, package, output, workdir / "child.stderr", limits, options)
    try:
        database_retried(
            lambda: Run.objects.filter(pk=run.pk).update(child_pid=child.pid), what=f"recording run {run.pk}'s child"
        )
        outcome = _watch(run, child, output / "progress.jsonl", wall_seconds=limits.wall_seconds)
    finally:
        if child.poll() is None:  # this side failed (or its task hit its time limit): never leave the child running
            _terminate(child)
    clock.mark("watch")  # the wall: the child's; the CPU: this worker's own, copying progress and checking cancels
    child_cpu = child.cpu_seconds if isinstance(child, ForkedChild) else children_cpu_seconds() - children_cpu
    clock.add("child", wall=0.0, cpu=child_cpu)
    if outcome == RunStatus.CANCELLED:
        last = _last_progress(output / "progress.jsonl")
        return database_retried(lambda: run_cancelled(run, last), what=f"ending run {run.pk} cancelled")
    if outcome == "timed_out" or child.returncode != 0:
        return database_retried(
            lambda: _failed(run, child, workdir, limits, timed_out=outcome == "timed_out"),
            what=f"ending run {run.pk} in error",
        )
    database_retried(
        lambda: record_update(
            run,
            status=RunStatus.PROCESSING,
            phase=RunPhase.POST_PROCESSING,
            progress_pct=100,
            eta_seconds=0,
            heartbeat_at=timezone.now(),
        ),
        what=f"recording run {run.pk} as processing",
    )
    prefix = results_prefix(run)
    _store_results(output, prefix)
    statistics = RunStatistics.model_validate(json.loads((output / "statistics.json").read_text()))
    clock.mark("results_upload")
    log = _read(output / "run.log") + WORKER_PHASES_LINE + clock.as_json() + "\n"
    return database_retried(
        lambda: run_completed(run, results_prefix=prefix, statistics=statistics, log=log),
        what=f"ending run {run.pk} complete",
    )


def _download_package(run: Run, destination: Path) -> None:
    storage = get_storage()
    destination.mkdir(parents=True)
    with storage.open(key=f"{run.package_prefix}/scenario.json") as stream:
        manifest = json.load(stream)
    (destination / "scenario.json").write_text(json.dumps(manifest))
    for name in package_names(manifest, Scenario.INPUT_FIELDS)[1:]:  # scenario.json is written above
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        with storage.open(key=package_key(run, manifest, name)) as stream, target.open("wb") as out:
            shutil.copyfileobj(stream, out)


def _failed(run: Run, child: Child, workdir: Path, limits: ChildLimits, *, timed_out: bool) -> Run:
    output = workdir / "output"
    stderr_tail = (workdir / "child.stderr").read_text(errors="replace")[-4000:]
    logger.warning("Run %s: the simulation exited with %s: %s", run.pk, child.returncode, stderr_tail)
    returncode, reason = child.returncode, _first_error(output / "progress.jsonl")
    died = rank_failure(stderr_tail, ranks=run.ranks) if run.ranks > 1 else None
    if died and died[1] is not None:
        returncode = -died[1]  # a rank killed by a signal, as a serial child's exit would say it
    return run_failed(
        run,
        returncode=returncode,
        timed_out=timed_out,
        last=_last_progress(output / "progress.jsonl"),
        limits=limits,
        log=_read(output / "run.log"),
        reason=reason or (died[0] if died else ""),
    )


def _spawn(run: Run, package: Path, output: Path, stderr_path: Path, limits: ChildLimits, options: list[str]) -> Child:
    """The child, forked by the worker's fork server (hydrata/backends/fork_server.py) or else started by exec; or
    mpiexec and its ranks. mpiexec forwards a SIGTERM to every rank, and reports a rank that ended badly on its stdout,
    which goes with the child's stderr (each rank sends its own stdout to run.log)."""
    ranks = run.ranks
    threads = threads_per_rank(ranks=ranks)
    arguments = ["--package", str(package), "--output", str(output), *options]
    environment = child_environment(threads=threads)
    with stderr_path.open("wb") as stderr:
        if ranks == 1:
            forked = forked_child(
                arguments=arguments, cwd=output, env=environment, limits=limits, stderr=stderr.fileno()
            )
            if forked is not None:
                return forked
        return subprocess.Popen(
            child_command(ranks=ranks, arguments=arguments),
            env=environment,
            stdout=stderr if ranks > 1 else subprocess.DEVNULL,
            stderr=stderr,
            preexec_fn=child_setup(limits),
            cwd=output,
        )


def _watch(run: Run, child: Child, progress_path: Path, *, wall_seconds: float) -> str:
    """Copy progress into the run until the child ends; stop it on cancel or past its wall-clock limit.
    Returns 'exited', 'cancelled' or 'timed_out'."""
    offset, last_beat, started = 0, 0.0, time.monotonic()
    # readable once the child has exited (a forked child: once its server has said so)
    exit_signal = child.exit_descriptor() if isinstance(child, ForkedChild) else os.pidfd_open(child.pid)
    try:
        while child.poll() is None:
            offset, latest = _new_progress(progress_path, offset)
            try:
                if latest or time.monotonic() - last_beat >= HEARTBEAT_EVERY_SECONDS:
                    record_progress(run, latest)
                    last_beat = time.monotonic()
                cancelled = Run.objects.filter(pk=run.pk, cancel_requested=True).exists()
            except DATABASE_UNREACHABLE as error:  # the child computes on; the next wake-up tries again
                logger.warning("Run %s: the database could not be reached (%s); still computing", run.pk, error)
                connections_reset()
                cancelled = False
            if cancelled:
                _terminate(child)
                return RunStatus.CANCELLED
            if time.monotonic() - started > wall_seconds:
                _terminate(child)
                return "timed_out"
            select.select([exit_signal], [], [], WATCH_INTERVAL_SECONDS)  # sleeps in the kernel, no polling
        return "exited"  # what it wrote last is read by whoever needs it: the results, or the failure's reason
    finally:
        os.close(exit_signal)


def _new_progress(path: Path, offset: int) -> tuple[int, dict[str, Any] | None]:
    if not path.exists():
        return offset, None
    with path.open("rb") as stream:
        stream.seek(offset)
        chunk = stream.read()
    complete = chunk[: chunk.rfind(b"\n") + 1]
    return offset + len(complete), latest_progress(complete)


def _last_progress(path: Path) -> dict[str, Any]:
    return _new_progress(path, 0)[1] or {}


def _first_error(path: Path) -> str:
    """The first failure a process of the child reported: under MPI the ranks stopped after it may report too."""
    if not path.exists():
        return ""
    for line in path.read_text(errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("error"):
            return str(record["error"])
    return ""


def _terminate(child: Child) -> None:
    child.terminate()
    try:
        child.wait(timeout=TERMINATE_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def _store_results(output: Path, prefix: str) -> None:
    storage = get_storage()
    saved = [*sorted(output.glob("*.sww")), *sorted(output.glob(DEPTH_FRAME_GLOB))]
    files = [output / name for name in RESULT_FILES] + saved
    for path in files:
        if path.exists():
            with path.open("rb") as stream:
                storage.save(key=f"{prefix}/{path.name}", data=stream)


def _read(path: Path) -> str:
    return path.read_text(errors="replace")[-200_000:] if path.exists() else ""
