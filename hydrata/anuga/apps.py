from django.apps import AppConfig


class AnugaConfig(AppConfig):
    name = "hydrata.anuga"
    label = "anuga"
    verbose_name = "ANUGA flood models"
