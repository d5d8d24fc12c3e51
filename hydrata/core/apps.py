from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "hydrata.core"
    label = "hydrata_core"
