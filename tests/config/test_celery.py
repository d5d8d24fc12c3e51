"""Every task type of the platform has a soft and a hard Celery time limit, taken from settings, and its queue; every
worker started takes the queues it should; a simulation takes the cores over its worker's slots in threads."""

import json
import os
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest

from config.celery import app, pool_size_record
from hydrata.anuga.models import Run, Scenario
from hydrata.backends.local import simulation_threads, threads_per_rank
from hydrata_contract.states import RunStatus, WorkQueue
from tests.factories import make_project
from tests.processes import ROOT, celery_worker_command, procfile_command

PLATFORM_TASKS = {
    "anuga.terrain_import": "terrain_import",
    "anuga.run_build": "run_build",
    "anuga.run_simulation": "run_simulation",
    "anuga.storage_cleanup": "storage_cleanup",
    "anuga.runs_reap_stale": "runs_reap_stale",
    "hydrata.uploads.tasks.dataset_import_task": "dataset_import",
    "studies.design_study_advance": "study_advance",
    "studies.design_studies_advance": "study_advance",
    "calibration.calibration_study_advance": "study_advance",
    "calibration.calibration_studies_advance": "study_advance",
    "studies.design_study_envelopes": "study_envelopes",
    "reports.render_pdf": "report_pdf",
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


# The queue of every task of the platform (docs/queues.md): what a person waits on goes on the interactive queue.
PLATFORM_QUEUES = {
    "anuga.terrain_import": "interactive",
    "anuga.run_build": "interactive",
    "anuga.run_simulation": "interactive",  # a study member's: the studies queue (below)
    "anuga.storage_cleanup": "interactive",
    "anuga.runs_reap_stale": "interactive",
    "hydrata.uploads.tasks.dataset_import_task": "interactive",
    "studies.design_study_advance": "studies",
    "studies.design_studies_advance": "interactive",
    "calibration.calibration_study_advance": "studies",
    "calibration.calibration_studies_advance": "interactive",
    "studies.design_study_envelopes": "studies",
    "reports.render_pdf": "interactive",
}


def queue_of(name: str, *args) -> str:
    """The queue Celery's router gives a message of task `name` sent with `args`."""
    return app.amqp.router.route({}, name, args=args, kwargs={})["queue"].name


@pytest.mark.django_db
def test_every_platform_task_is_routed_to_its_queue():
    tasks = platform_tasks()

    assert set(tasks) == set(PLATFORM_QUEUES), "a new task type: give it a queue in config/celery.py and list it here"
    for name in tasks:
        assert queue_of(name, 1) == PLATFORM_QUEUES[name], name


@pytest.mark.django_db
def test_a_simulation_goes_on_the_studies_queue_exactly_when_its_run_is_a_study_member():
    project = make_project()
    scenario = Scenario.objects.create(project=project, name="base", resolution=10, duration=600)
    single = Run.objects.create(scenario=scenario, resolution=10, duration=600, status=RunStatus.QUEUED)
    member = Run.objects.create(
        scenario=scenario, resolution=10, duration=600, status=RunStatus.QUEUED, study_member=True
    )

    assert queue_of("anuga.run_simulation", single.pk) == "interactive"
    assert queue_of("anuga.run_simulation", member.pk) == "studies"


def makefile_variable(name: str) -> str:
    found = re.search(rf"^{name} = (.*)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert found, name
    return found.group(1)


def queues_option(command: str) -> set[str]:
    found = re.search(r"--queues[= ](\S+)", command)
    assert found, f"{command!r} names no queues"
    return set(found.group(1).split(","))


def test_every_worker_started_takes_the_interactive_queue_and_the_studies_queue_is_taken_too():
    everything = {str(queue) for queue in WorkQueue}
    makefile = (ROOT / "Makefile").read_text()
    worker_target = re.search(r"^worker: install\n\t(.*)$", makefile, re.MULTILINE).group(1)
    interactive, studies = makefile_variable("INTERACTIVE_WORKER"), makefile_variable("STUDIES_WORKER")

    assert queues_option(procfile_command("worker")) == everything
    assert queues_option(procfile_command("interactive")) == {"interactive"}
    assert queues_option(worker_target) == everything
    assert queues_option(" ".join(celery_worker_command("test@host"))) == everything  # the tests' and benchmarks'
    # make run: a worker that takes only the interactive queue (so a build always finds it free), and one for the rest.
    assert queues_option(interactive) == {"interactive"}
    assert queues_option(studies) == everything - {"interactive"}
    assert "$(INTERACTIVE_WORKER)" in makefile and "$(STUDIES_WORKER)" in makefile


@pytest.mark.parametrize(("slots", "threads"), [(1, 8), (3, 2), (4, 2), (5, 1), (8, 1), (16, 1)])
def test_a_simulation_takes_the_cores_over_its_workers_slots_so_slots_times_threads_never_exceed_them(
    settings, monkeypatch, slots, threads
):
    settings.HYDRATA_ANUGA_THREADS = 0
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    monkeypatch.setitem(app.conf, "hydrata_pool_size", None)
    pool_size_record(sender="test@host", instance=SimpleNamespace(concurrency=slots))

    assert simulation_threads() == threads
    assert slots * threads <= 8 or threads == 1


def test_threads_set_in_the_environment_are_what_each_simulation_takes(settings):
    settings.HYDRATA_ANUGA_THREADS = 3

    assert simulation_threads() == 3
    assert threads_per_rank(ranks=2) == 1 and threads_per_rank(ranks=1) == 3


def test_outside_a_worker_a_simulation_takes_every_core(settings, monkeypatch):
    settings.HYDRATA_ANUGA_THREADS = 0
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    monkeypatch.setitem(app.conf, "hydrata_pool_size", None)

    assert simulation_threads() == 8


def test_on_redis_a_worker_reserves_no_message_it_has_no_free_slot_for():
    """Else a worker busy with a study's members holds a build behind them (a simulation is acknowledged as it
    starts, which frees its reservation for the next message)."""
    script = "from django.conf import settings; print(settings.CELERY_WORKER_DISABLE_PREFETCH)"

    printed = printed_in_a_fresh_process(script, CELERY_BROKER_URL="redis://127.0.0.1:1/0")

    assert printed.strip() == "True"
