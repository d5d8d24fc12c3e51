from django.apps import AppConfig


class UploadsConfig(AppConfig):
    name = "hydrata.uploads"
    label = "uploads"
    verbose_name = "Uploads and datasets"

    def ready(self) -> None:
        from hydrata.core.queues import queued_work_register
        from hydrata.uploads.selectors import QUEUED_WORK

        queued_work_register(*QUEUED_WORK)
