"""A worker's write waits out a database it cannot reach (a restart, a failover; here a real `database is locked`)
and is stored once the database answers, or gives up after its wait. tests/production/test_study_restarts.py restarts
a real PostgreSQL under a design study."""

import threading
import time

import pytest
from django.contrib.auth.models import User
from django.db import OperationalError, connections

from hydrata.core.database import database_retried
from tests.locked_database import write_lock_held_elsewhere

NAME = "written-through-the-outage"


def store() -> User:
    return User.objects.create(username=NAME)


def test_a_write_waits_out_a_database_out_of_reach_and_is_stored_once_when_it_answers(transactional_db, caplog):
    stored: list[User] = []

    def worker() -> None:
        try:
            stored.append(database_retried(store, what="storing the user"))
        finally:
            connections.close_all()

    with caplog.at_level("WARNING", logger="hydrata.core.database"):
        with write_lock_held_elsewhere():
            thread = threading.Thread(target=worker)
            thread.start()
            deadline = time.monotonic() + 60
            while not any("storing the user again" in r.getMessage() for r in caplog.records):
                assert time.monotonic() < deadline and thread.is_alive(), "the write never met the locked database"
                time.sleep(0.05)
        thread.join(timeout=60)  # the lock is released: the next attempt is stored

    assert len(stored) == 1
    assert list(User.objects.filter(username=NAME).values_list("pk", flat=True)) == [stored[0].pk]


def test_a_write_gives_up_once_the_database_stays_out_of_reach_past_its_wait(transactional_db):
    with write_lock_held_elsewhere(), pytest.raises(OperationalError):
        database_retried(store, what="storing the user", seconds=0)

    assert not User.objects.filter(username=NAME).exists()
