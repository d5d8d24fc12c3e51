"""The Celery app. Embedded default: kombu's filesystem broker under var/ (no server); production: Redis."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("hydrata")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
