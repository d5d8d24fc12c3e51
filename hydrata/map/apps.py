from django.apps import AppConfig


class MapConfig(AppConfig):
    name = "hydrata.map"
    label = "map"
    verbose_name = "The map"
