"""The backends' tests queue runs as the anuga services' tests do: their fixture, shared."""

from tests.hydrata.anuga.services.conftest import queue_run  # noqa: F401 (a pytest fixture)
