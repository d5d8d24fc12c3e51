"""Where background work stands on its queue, counted from the database: each app says which of its rows are work
on which queue (waiting, or taken by a worker) when it is ready (its AppConfig registers them), so that the queue's
picture is one sum here and no floor of the platform reads another's models. The broker is never asked: a message
a worker has reserved but not started is still waiting, as its row says.

Which task goes on which queue is config/celery.py's (route_task); the rows registered here must follow it.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from hydrata_contract.states import QueueState, WorkQueue


@dataclass(frozen=True)
class QueuedWork:
    """One kind of work on one queue: `waiting` are its rows no worker has taken, `running` those a worker is on;
    `queued_at` names the field that holds when each row's task was sent."""

    queue: WorkQueue
    waiting: Callable[[], QuerySet[Any]]
    running: Callable[[], QuerySet[Any]]
    queued_at: str


KINDS: list[QueuedWork] = []


def queued_work_register(*kinds: QueuedWork) -> None:
    KINDS.extend(kind for kind in kinds if kind not in KINDS)


def queue_place(*, queue: WorkQueue, started: bool, queued_at: datetime | None) -> dict[str, Any]:
    """The contract's QueuePlace of one piece of work that has not ended: running once a worker has taken it;
    else queued, with the work of its queue sent before it that no worker has taken yet (`ahead`) and the work
    workers are on now (`running`). Two counts a kind, on indexed fields."""
    if started:
        return {"state": QueueState.RUNNING, "queue": queue, "ahead": None, "running": None}
    kinds = [kind for kind in KINDS if kind.queue == queue]
    ahead = sum(
        kind.waiting().filter(**{f"{kind.queued_at}__lt": queued_at}).count() if queued_at else 0 for kind in kinds
    )
    running = sum(kind.running().count() for kind in kinds)
    return {"state": QueueState.QUEUED, "queue": queue, "ahead": ahead, "running": running}
