"""Running a queued simulation: the ANUGA child process, watched by this Celery task until it ends.

The child (hydrata.compute.simulate) knows nothing of the database. It writes progress lines to a file and
results to a folder; this side copies progress into the run, stops the child on cancel or past its wall-clock
limit, and stores results. The child dies with its worker (PR_SET_PDEATHSIG), so a killed worker never leaves an
orphan computing; its environment and resource limits are in simulation_child.py.
"""

import json
import logging
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.services.charges import refund_sentence, run_cost_of_computed
from hydrata.anuga.services.simulation_child import (
    LIMIT_HINT,
    ChildLimits,
    child_environment,
    child_limits,
    child_setup,
    limit_exceeded,
)
from hydrata.compute.package import as_number
from hydrata.core.records import record_update
from hydrata.storage import get_storage
from hydrata_contract.compute import EXIT_UNSTABLE
from hydrata_contract.layers import ResultLayer
from hydrata_contract.states import RunPhase, RunStatus

logger = logging.getLogger(__name__)

# The watch wakes at once when the child exits, and otherwise every few seconds to copy its progress and check
# for a cancel: on a machine with few cores, each wake-up (file read, DB queries) is time taken from ANUGA.
WATCH_INTERVAL_SECONDS = 3.0
HEARTBEAT_EVERY_SECONDS = 5.0
TERMINATE_GRACE_SECONDS = 5.0

RESULT_FILES = (
    *(layer.filename for layer in ResultLayer),
    "statistics.json",
    "time_series.json",
    "preview.png",
    "run.log",
    "result.json",
)


def run_simulate(*, run_id: int, worker: str = "") -> Run:
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.status != RunStatus.QUEUED:
            return run  # cancelled while queued, or a redelivered task: never start the child
        now = timezone.now()
        run.status, run.phase, run.started_at, run.heartbeat_at = (
            RunStatus.COMPUTING,
            RunPhase.PREPARING_INPUTS,
            now,
            now,
        )
        run.worker_hostname = worker or socket.gethostname()
        run.save()
    workdir = Path(tempfile.mkdtemp(prefix=f"run-{run.pk}-"))
    try:
        return _simulate_in(run, workdir)
    except Exception:
        logger.exception("Simulation of run %s failed", run.pk)
        return _end(
            run,
            RunStatus.ERROR,
            error_message="The simulation failed with an internal error; it has been logged.",
            user_message="The run failed on our side. Retry it with retry_run.",
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _simulate_in(run: Run, workdir: Path) -> Run:
    package, output = workdir / "package", workdir / "output"
    output.mkdir()
    _download_package(run, package)
    limits = child_limits(run=run)
    child = _spawn(package, output, workdir / "child.stderr", limits)
    try:
        Run.objects.filter(pk=run.pk).update(child_pid=child.pid)
        outcome = _watch(run, child, output / "progress.jsonl", wall_seconds=limits.wall_seconds)
    finally:
        if child.poll() is None:  # this side failed (or its task hit its time limit): never leave the child running
            _terminate(child)
    if outcome == RunStatus.CANCELLED:
        return _cancelled(run, _last_progress(output / "progress.jsonl"))
    if outcome == "timed_out" or child.returncode != 0:
        return _failed(run, child, workdir, limits, timed_out=outcome == "timed_out")
    record_update(
        run,
        status=RunStatus.PROCESSING,
        phase=RunPhase.POST_PROCESSING,
        progress_pct=100,
        eta_seconds=0,
        heartbeat_at=timezone.now(),
    )
    prefix = f"runs/{run.pk}/results"
    _store_results(output, prefix)
    statistics = json.loads((output / "statistics.json").read_text())
    # A child that exits 0 has evolved to the end: its simulated time is the whole duration, even when it finished
    # before reporting any progress.
    return _end(
        run,
        RunStatus.COMPLETE,
        phase=RunPhase.DONE,
        sim_time=float(run.duration),
        results_prefix=prefix,
        statistics=statistics,
        log=_read(output / "run.log"),
    )


def _cancelled(run: Run, last_progress: dict[str, Any]) -> Run:
    """Stopped on request: it costs the share of its simulated time the child reported computing, no more."""
    sim_time = as_number(last_progress.get("sim_time")) or 0.0
    share = min(1.0, sim_time / run.duration) if run.duration else 0.0
    with transaction.atomic():
        cost, refund = run_cost_of_computed(run=run, computed_share=share)
        message = f"Cancelled while computing, {share:.0%} of the simulated time done; no results were kept."
        return _end(
            run,
            RunStatus.CANCELLED,
            compute_cost=cost,
            sim_time=sim_time,
            progress_pct=100.0 * share,
            user_message=message + refund_sentence(refund),
        )


def _download_package(run: Run, destination: Path) -> None:
    storage = get_storage()
    destination.mkdir(parents=True)
    with storage.open(key=f"{run.package_prefix}/scenario.json") as stream:
        manifest = json.load(stream)
    (destination / "scenario.json").write_text(json.dumps(manifest))
    names = [manifest["mesh"], manifest["elevation"], *manifest.get("time_series", {}).values()]
    names += [manifest[kind] for kind in Scenario.INPUT_FIELDS if manifest.get(kind)]
    for name in names:
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        with storage.open(key=_package_key(run, manifest, name)) as stream, target.open("wb") as out:
            shutil.copyfileobj(stream, out)


def _package_key(run: Run, manifest: dict[str, Any], name: str) -> str:
    """A design study member's package holds only what it changes (its scenario.json, its rain and its storm, listed
    in own_files); the rest, the mesh and the terrain above all, it reads from the build it shares."""
    shared = manifest.get("shared_prefix")
    if shared and name not in manifest.get("own_files", ()):
        return f"{shared}/{name}"
    return f"{run.package_prefix}/{name}"


def _failed(run: Run, child: subprocess.Popen, workdir: Path, limits: ChildLimits, *, timed_out: bool) -> Run:
    output = workdir / "output"
    last = _last_progress(output / "progress.jsonl")
    stderr_tail = (workdir / "child.stderr").read_text(errors="replace")[-4000:]
    logger.warning("Run %s: the simulation exited with %s: %s", run.pk, child.returncode, stderr_tail)
    over = limit_exceeded(limits=limits, returncode=child.returncode, timed_out=timed_out, last_progress=last)
    if over:
        message, hint = over, LIMIT_HINT
    else:
        message = last.get("error") or f"The simulation process ended unexpectedly (exit code {child.returncode})."
        hint = (
            "The model went numerically unstable: check the terrain, boundaries and inflows, or use a finer resolution."
            if child.returncode == EXIT_UNSTABLE
            else "Retry it with retry_run."
        )
    return _end(
        run, RunStatus.ERROR, error_message=message, user_message=hint, log=_read(output / "run.log") + f"\n{message}\n"
    )


def _spawn(package: Path, output: Path, stderr_path: Path, limits: ChildLimits) -> subprocess.Popen:
    threads = max(1, settings.HYDRATA_ANUGA_THREADS)
    command = [
        sys.executable,
        "-m",
        "hydrata.compute.simulate",
        "--package",
        str(package),
        "--output",
        str(output),
        "--threads",
        str(threads),
    ]
    if settings.HYDRATA_RUN_YIELD_SECONDS > 0:
        command += ["--yield-seconds", str(settings.HYDRATA_RUN_YIELD_SECONDS)]
    with stderr_path.open("wb") as stderr:
        return subprocess.Popen(
            command,
            env=child_environment(threads=threads),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            preexec_fn=child_setup(limits),
            cwd=output,
        )


def _watch(run: Run, child: subprocess.Popen, progress_path: Path, *, wall_seconds: float) -> str:
    """Copy progress into the run until the child ends; stop it on cancel or past its wall-clock limit.
    Returns 'exited', 'cancelled' or 'timed_out'."""
    offset, last_beat, started = 0, 0.0, time.monotonic()
    exit_signal = os.pidfd_open(child.pid)  # readable once the child has exited
    try:
        while child.poll() is None:
            offset, latest = _new_progress(progress_path, offset)
            if latest or time.monotonic() - last_beat >= HEARTBEAT_EVERY_SECONDS:
                _record_progress(run, latest)
                last_beat = time.monotonic()
            if Run.objects.filter(pk=run.pk, cancel_requested=True).exists():
                _terminate(child)
                return RunStatus.CANCELLED
            if time.monotonic() - started > wall_seconds:
                _terminate(child)
                return "timed_out"
            select.select([exit_signal], [], [], WATCH_INTERVAL_SECONDS)  # sleeps in the kernel, no polling
        return "exited"  # what it wrote last is read by whoever needs it: the results, or the failure's reason
    finally:
        os.close(exit_signal)


def _record_progress(run: Run, latest: dict[str, Any] | None) -> None:
    fields: dict[str, Any] = {"heartbeat_at": timezone.now()}
    if latest:
        fields |= {
            "phase": latest.get("phase") or RunPhase.COMPUTING,
            "progress_pct": latest.get("progress_pct", 0),
            "eta_seconds": latest.get("eta_seconds"),
            "sim_time": latest.get("sim_time"),
        }
    Run.objects.filter(pk=run.pk, status=RunStatus.COMPUTING).update(**fields)


def _new_progress(path: Path, offset: int) -> tuple[int, dict[str, Any] | None]:
    if not path.exists():
        return offset, None
    with path.open("rb") as stream:
        stream.seek(offset)
        chunk = stream.read()
    complete = chunk[: chunk.rfind(b"\n") + 1]
    lines = [line for line in complete.decode(errors="replace").splitlines() if line.strip()]
    latest = None
    for line in lines:
        try:
            latest = json.loads(line)
        except ValueError:
            continue
    return offset + len(complete), latest


def _last_progress(path: Path) -> dict[str, Any]:
    return _new_progress(path, 0)[1] or {}


def _terminate(child: subprocess.Popen) -> None:
    child.terminate()
    try:
        child.wait(timeout=TERMINATE_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def _store_results(output: Path, prefix: str) -> None:
    storage = get_storage()
    files = [output / name for name in RESULT_FILES] + sorted(output.glob("*.sww"))
    for path in files:
        if path.exists():
            with path.open("rb") as stream:
                storage.save(key=f"{prefix}/{path.name}", data=stream)


def _read(path: Path) -> str:
    return path.read_text(errors="replace")[-200_000:] if path.exists() else ""


def _end(run: Run, status: str, **fields: Any) -> Run:
    run.refresh_from_db()
    if run.status in (RunStatus.ERROR, RunStatus.CANCELLED) and status == RunStatus.COMPLETE:
        return run  # the reaper or a cancel got there first
    return record_update(run, status=status, finished_at=timezone.now(), child_pid=None, **fields)
