"""The database connections of a process, for the moments a process's life (not a request) decides about them."""

from django.db import connections


def database_pools_close() -> None:
    """Return this thread's connections and close the process's PostgreSQL connection pools (opened again on the
    next query). A process about to fork calls it, so that no child inherits the pool's sockets and threads."""
    for connection in connections.all(initialized_only=True):
        connection.close()
        if connection.settings_dict.get("OPTIONS", {}).get("pool"):
            connection.close_pool()  # type: ignore[attr-defined]  # PostgreSQL's DatabaseWrapper has it
