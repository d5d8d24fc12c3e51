"""How a computing run ends, wherever it computed (a local child or a cluster's job): its progress copied in,
then complete, cancelled or failed with the reason in a sentence."""

import json
from typing import Any

from django.db import transaction
from django.utils import timezone

from hydrata.anuga.models import Run
from hydrata.anuga.services.charges import refund_sentence, run_cost_of_computed
from hydrata.backends.local import LIMIT_HINT, ChildLimits, limit_exceeded
from hydrata.compute.scenario.package import as_number
from hydrata.core.records import record_update
from hydrata_contract.answers.runs import RunStatistics
from hydrata_contract.compute import EXIT_UNSTABLE
from hydrata_contract.layers import DEPTH_FRAMES_INDEX, TOTAL_LOSS_FILE, ResultLayer
from hydrata_contract.states import RunPhase, RunStatus

# What a complete simulation leaves (hydrata.compute.simulation.simulate), kept under the run's results prefix.
RESULT_FILES = (
    *(layer.filename for layer in ResultLayer),
    "statistics.json",
    "time_series.json",
    "preview.png",
    DEPTH_FRAMES_INDEX,
    TOTAL_LOSS_FILE,
    "run.log",
    "result.json",
)
SWW_NAME = "run.sww"


def results_prefix(run: Run) -> str:
    return f"runs/{run.pk}/results"


def latest_progress(chunk: bytes) -> dict[str, Any] | None:
    """The last readable line of progress.jsonl in a chunk of whole lines."""
    latest = None
    for line in chunk.decode(errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            latest = json.loads(line)
        except ValueError:
            continue
    return latest if isinstance(latest, dict) else None


def record_progress(run: Run, latest: dict[str, Any] | None) -> None:
    fields: dict[str, Any] = {"heartbeat_at": timezone.now()}
    if latest:
        fields |= {
            "phase": latest.get("phase") or RunPhase.COMPUTING,
            "progress_pct": latest.get("progress_pct", 0),
            "eta_seconds": latest.get("eta_seconds"),
            "sim_time": latest.get("sim_time"),
        }
    Run.objects.filter(pk=run.pk, status=RunStatus.COMPUTING).update(**fields)


def run_completed(run: Run, *, results_prefix: str, statistics: RunStatistics, log: str) -> Run:
    # A simulation that exits 0 has evolved to the end: its simulated time is the whole duration, even when it
    # finished before reporting any progress.
    return end_run(
        run,
        RunStatus.COMPLETE,
        phase=RunPhase.DONE,
        sim_time=float(run.duration),
        results_prefix=results_prefix,
        statistics=statistics.model_dump(mode="json"),
        log=log,
    )


def run_cancelled(run: Run, last_progress: dict[str, Any]) -> Run:
    """Stopped on request: it costs the share of its simulated time the child reported computing, no more."""
    sim_time = as_number(last_progress.get("sim_time")) or 0.0
    share = min(1.0, sim_time / run.duration) if run.duration else 0.0
    with transaction.atomic():
        cost, refund = run_cost_of_computed(run=run, computed_share=share)
        message = f"Cancelled while computing, {share:.0%} of the simulated time done; no results were kept."
        return end_run(
            run,
            RunStatus.CANCELLED,
            compute_cost=cost,
            sim_time=sim_time,
            progress_pct=100.0 * share,
            user_message=message + refund_sentence(refund),
        )


def run_failed(
    run: Run,
    *,
    returncode: int | None,
    timed_out: bool,
    last: dict[str, Any],
    limits: ChildLimits,
    log: str,
    reason: str = "",
) -> Run:
    """`reason`: what the simulation said went wrong first (under MPI the ranks stopped after it may say more)."""
    over = limit_exceeded(limits=limits, returncode=returncode, timed_out=timed_out, last_progress=last)
    if over:
        message, hint = over, LIMIT_HINT
    else:
        message = reason or last.get("error") or f"The simulation process ended unexpectedly (exit code {returncode})."
        hint = (
            "The model went numerically unstable: check the terrain, boundaries and inflows, or use a finer resolution."
            if returncode == EXIT_UNSTABLE
            else "Retry it with retry_run."
        )
    return end_run(run, RunStatus.ERROR, error_message=message, user_message=hint, log=log + f"\n{message}\n")


def end_run(run: Run, status: str, **fields: Any) -> Run:
    run.refresh_from_db()
    if run.status in (RunStatus.ERROR, RunStatus.CANCELLED) and status == RunStatus.COMPLETE:
        return run  # the reaper or a cancel got there first
    return record_update(run, status=status, finished_at=timezone.now(), child_pid=None, **fields)
