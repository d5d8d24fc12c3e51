from django.apps import AppConfig


class UploadsConfig(AppConfig):
    name = "hydrata.uploads"
    label = "uploads"
    verbose_name = "Uploads and datasets"
