from django.apps import AppConfig


class ObservationsConfig(AppConfig):
    name = "hydrata.observations"
    label = "observations"
    verbose_name = "Flood observations and comparisons"
