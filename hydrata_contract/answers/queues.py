"""Where a piece of background work stands before it ends: waiting on its queue, or taken by a worker."""

from pydantic import Field

from hydrata_contract.answers.base import Answer
from hydrata_contract.states import QueueState, WorkQueue


class QueuePlace(Answer):
    """Counted from the database (what no worker has claimed yet), not read from the broker. Counts only: whose
    work is ahead is never said."""

    state: QueueState = Field(description="queued: no worker has taken it yet; running: a worker is on it.")
    queue: WorkQueue
    ahead: int | None = Field(
        description="While queued: work on the same queue, queued before this, that no worker has taken yet."
    )
    running: int | None = Field(description="While queued: work on the same queue that workers are on now.")
