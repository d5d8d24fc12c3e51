from django.apps import AppConfig


class AnugaConfig(AppConfig):
    name = "hydrata.anuga"
    label = "anuga"
    verbose_name = "ANUGA flood models"

    def ready(self) -> None:
        from hydrata.anuga.selectors.queue import QUEUED_WORK
        from hydrata.core.queues import queued_work_register

        queued_work_register(*QUEUED_WORK)
