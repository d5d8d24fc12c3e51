"""Uploads import on Celery: here the task runs inline (eager), and stored files go under the test's tmp_path."""

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def imports_run_inline(settings, tmp_path) -> Iterator[None]:
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True  # what the app would read on a fresh start
    settings.MEDIA_ROOT = tmp_path / "media"
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True  # the running app read its configuration already
    try:
        yield
    finally:
        app.conf.task_always_eager = previous
