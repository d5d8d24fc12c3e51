"""The Celery app. Embedded default: kombu's filesystem broker under var/ (no server); production: Redis."""

import os
import sys
from typing import Any

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("hydrata")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def no_mpi_in_the_worker(**_: Any) -> None:
    """The worker builds meshes with ANUGA, which imports mpi4py, and mpi4py's import initialises MPI: the worker
    then kept an MPI listener on the machine's address for the rest of its life. With mpi4py's MPI module barred,
    ANUGA takes its serial interface; only the simulation child, a process of its own, runs under MPI."""
    keep_mpi_out()


def keep_mpi_out() -> None:
    if "mpi4py.MPI" not in sys.modules:
        sys.modules["mpi4py.MPI"] = None  # type: ignore[assignment]  # `from mpi4py import MPI` is an ImportError
