from django.apps import AppConfig


class StudiesConfig(AppConfig):
    name = "hydrata.studies"
    label = "studies"
    verbose_name = "Design flood studies (ARR 2019)"
