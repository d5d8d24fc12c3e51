"""A real `database is locked`: another connection holds SQLite's write lock while the platform waits only briefly
for it. Reads go on (WAL); every write raises Django's OperationalError, as a busy or failed-over database does."""

import contextlib
import sqlite3
from collections.abc import Iterator

from django.db import connections


@contextlib.contextmanager
def write_lock_held_elsewhere(*, wait_seconds: float = 0.2) -> Iterator[None]:
    """Held for the block; the platform's connections (of every thread: they share the settings) wait
    `wait_seconds` for it instead of the configured timeout, then fail."""
    database = connections["default"]
    assert database.vendor == "sqlite", "the lock is SQLite's"
    options = database.settings_dict["OPTIONS"]
    configured = options["timeout"]
    database.close()  # opened again with the short wait
    options["timeout"] = wait_seconds
    holder = sqlite3.connect(database.settings_dict["NAME"], isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # the write lock; in WAL mode readers are not blocked
        yield
    finally:
        holder.rollback()
        holder.close()
        database.close()
        options["timeout"] = configured
