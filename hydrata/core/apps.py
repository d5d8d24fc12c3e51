from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "hydrata.core"
    label = "hydrata_core"

    def ready(self) -> None:
        from hydrata.core import schema  # noqa: F401  (registers the schema's authentication extensions)
