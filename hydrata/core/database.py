"""The database connections of a process, for the moments a process's life (not a request) decides about them."""

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connections

logger = logging.getLogger(__name__)
T = TypeVar("T")


def database_pools_close() -> None:
    """Return this thread's connections and close the process's PostgreSQL connection pools (opened again on the
    next query). A process about to fork calls it, so that no child inherits the pool's sockets and threads."""
    for connection in connections.all(initialized_only=True):
        connection.close()
        if connection.settings_dict.get("OPTIONS", {}).get("pool"):
            connection.close_pool()  # type: ignore[attr-defined]  # PostgreSQL's DatabaseWrapper has it


# What a database that restarts, fails over or drops a connection raises (Django's wrappers; psycopg_pool's
# PoolTimeout arrives as OperationalError): worth waiting out, unlike an error in the query itself.
DATABASE_UNREACHABLE: tuple[type[Exception], ...] = (OperationalError, InterfaceError)
# How long a worker waits out an unreachable database before it gives up on the write in hand.
DATABASE_RETRY_SECONDS = 120.0
_FIRST_WAIT_SECONDS, _LONGEST_WAIT_SECONDS = 0.5, 5.0


def database_retried(write: Callable[[], T], *, what: str, seconds: float = DATABASE_RETRY_SECONDS) -> T:
    """`write()`, again and again while the database cannot be reached (a restart or a failover), for up to
    `seconds`: a worker's record of work it has done is not thrown away because the database blinked. Each attempt
    starts on a fresh connection. Call it outside any transaction: `write` must be whole (its own atomic block)."""
    deadline, wait = time.monotonic() + seconds, _FIRST_WAIT_SECONDS
    while True:
        try:
            return write()
        except DATABASE_UNREACHABLE as error:
            if time.monotonic() + wait > deadline:
                raise
            logger.warning("The database could not be reached (%s); %s again in %.1f s", error, what, wait)
            connections_reset()
            time.sleep(wait)
            wait = min(2 * wait, _LONGEST_WAIT_SECONDS)


def connections_reset() -> None:
    """Close this thread's connections that an error left unusable, so that the next query opens a new one."""
    for connection in connections.all(initialized_only=True):
        if connection.in_atomic_block:
            continue  # its transaction's owner unwinds it
        connection.close_if_unusable_or_obsolete()
