"""Every task type of the platform has a soft and a hard Celery time limit, taken from settings."""

from config.celery import app

PLATFORM_TASKS = {
    "anuga.terrain_import": "terrain_import",
    "anuga.run_build": "run_build",
    "anuga.run_simulation": "run_simulation",
    "anuga.storage_cleanup": "storage_cleanup",
    "anuga.runs_reap_stale": "runs_reap_stale",
    "hydrata.uploads.tasks.dataset_import_task": "dataset_import",
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
