"""The one bounded wait loop of the polling tools, with MCP progress notifications while it waits."""

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar

import anyio
from mcp.server.mcpserver import Context
from pydantic import Field

from hydrata_contract.states import QueueState

DEFAULT_TIMEOUT_SECONDS = 240
MAX_TIMEOUT_SECONDS = 280
DEFAULT_POLL_INTERVAL_SECONDS = 5
# Each check is a REST call and an activity row; a faster loop only hammers the platform.
MIN_POLL_INTERVAL_SECONDS = 2

TimeoutSeconds = Annotated[
    float,
    Field(
        ge=0,
        description="Seconds to wait, at most 280 (0 reads once); on timed_out, call again.",
    ),
]
PollIntervalSeconds = Annotated[
    float,
    Field(ge=MIN_POLL_INTERVAL_SECONDS, le=60, description="Seconds between checks."),
]

T = TypeVar("T")


@dataclass(frozen=True)
class Waited(Generic[T]):
    value: T
    finished: bool
    polls: int
    elapsed_seconds: float


async def wait_for(
    ctx: Context,
    *,
    read: Callable[[], Awaitable[T]],
    finished: Callable[[T], bool],
    describe: Callable[[T], str],
    timeout_seconds: float,
    poll_interval_seconds: float,
) -> Waited[T]:
    """Read until `finished` or the time is up. Progress (seconds waited, of the timeout) is reported before each
    sleep; the SDK sends it only when the client asked for progress."""
    timeout = min(max(timeout_seconds, 0.0), MAX_TIMEOUT_SECONDS)
    started = time.monotonic()
    polls = 0
    while True:
        value = await read()
        polls += 1
        elapsed = time.monotonic() - started
        done = finished(value)
        if done or elapsed + poll_interval_seconds > timeout:
            return Waited(value=value, finished=done, polls=polls, elapsed_seconds=round(elapsed, 2))
        await ctx.report_progress(round(elapsed, 3), timeout, describe(value))
        await anyio.sleep(poll_interval_seconds)


def queue_in_words(what: str, place: dict[str, Any] | None) -> str:
    """Where the platform says `what` (the build, the import) stands, as a sentence: queued behind N other jobs
    (the contract's QueuePlace, counted by the platform), or running; '' when it says nothing (it has ended)."""
    if not place:
        return ""
    if place.get("state") == QueueState.RUNNING:
        return f"The {what} is running."
    ahead, running = place.get("ahead") or 0, place.get("running") or 0
    jobs = "job" if ahead == 1 else "jobs"
    return f"The {what} is queued behind {ahead} other {jobs} ({running} running); no worker has taken it yet."
