"""Every task type of the platform has a soft and a hard Celery time limit, taken from settings."""

import json
import os
import subprocess
import sys

from config.celery import app

PLATFORM_TASKS = {
    "anuga.terrain_import": "terrain_import",
    "anuga.run_build": "run_build",
    "anuga.run_simulation": "run_simulation",
    "anuga.storage_cleanup": "storage_cleanup",
    "anuga.runs_reap_stale": "runs_reap_stale",
    "hydrata.uploads.tasks.dataset_import_task": "dataset_import",
    "studies.design_study_advance": "study_advance",
    "studies.design_studies_advance": "study_advance",
    "studies.design_study_envelopes": "study_envelopes",
}


def platform_tasks() -> dict:
    app.loader.import_default_modules()
    return {name: task for name, task in app.tasks.items() if task.__module__.startswith("hydrata.")}


def test_every_platform_task_has_a_soft_and_a_hard_time_limit_from_settings(settings):
    tasks = platform_tasks()

    assert set(PLATFORM_TASKS) <= set(tasks), sorted(tasks)
    for name, task in tasks.items():
        assert name in PLATFORM_TASKS, f"{name} is a new task type: give it time limits and list it here"
        soft = settings.HYDRATA_TASK_TIME_LIMITS[PLATFORM_TASKS[name]]
        assert task.soft_time_limit == soft, name
        assert task.time_limit == soft + settings.HYDRATA_TASK_HARD_LIMIT_GRACE_SECONDS, name


def printed_in_a_fresh_process(script: str, **environment: str) -> str:
    """What `script` prints under the settings `environment` gives (settings are read once, so in a fresh process)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **environment}
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout


def redis_transport_options(**environment: str) -> dict:
    """The broker options the settings give a deployment on Redis."""
    script = (
        "from django.conf import settings; import json; print(json.dumps(settings.CELERY_BROKER_TRANSPORT_OPTIONS))"
    )
    return json.loads(printed_in_a_fresh_process(script, CELERY_BROKER_URL="redis://127.0.0.1:1/0", **environment))


def test_on_redis_every_late_acknowledged_task_is_killed_long_before_its_message_could_be_handed_out_again():
    visibility = redis_transport_options()["visibility_timeout"]

    for name, task in platform_tasks().items():
        if task.acks_late is not False:  # the simulation is acknowledged as it starts, so it is never handed out again
            assert task.time_limit + 3600 <= visibility, name


def test_the_visibility_timeout_on_redis_is_a_setting():
    assert redis_transport_options(HYDRATA_BROKER_VISIBILITY_TIMEOUT_SECONDS="90000") == {"visibility_timeout": 90000}


def test_a_worker_on_the_embedded_broker_looks_for_new_tasks_ten_times_a_second(tmp_path):
    """kombu's default (once a second) kept each task waiting half a second on average before a worker took it."""
    script = "from config.celery import app; print(app.connection_for_read().transport.polling_interval)"

    polling = printed_in_a_fresh_process(script, CELERY_BROKER_URL="filesystem://", HYDRATA_VAR_DIR=str(tmp_path))

    assert float(polling) == 0.1
