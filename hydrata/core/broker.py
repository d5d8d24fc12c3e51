"""Whether the task broker still holds what was sent to it.

A Redis broker that restarts without persistence, or fails over to an empty replica, comes back without the messages
it held: work the database says is queued would then never reach a worker. A marker kept in the broker's own database
tells: once it is gone, so is everything the broker held when it was set, and the sweeps send that work again. Each
task claims its record before it works (a run is claimed only while queued), so a message that was not lost after
all, sent a second time, does nothing."""

from celery import current_app

REDIS_SCHEMES = ("redis://", "rediss://")
MARKER = "hydrata:broker-kept-its-messages:{sweep}"


def broker_lost_its_messages(*, sweep: str) -> bool:
    """True, once, when `sweep` asks after the broker lost its messages (and the first time it asks at all: a
    message sent before then cannot be told from one lost). Only Redis forgets: the embedded filesystem broker keeps
    its messages in files."""
    if not str(current_app.conf.broker_url).startswith(REDIS_SCHEMES):
        return False
    with current_app.connection_for_write() as connection:
        client = connection.default_channel.client
        return bool(client.set(MARKER.format(sweep=sweep), "1", nx=True))
