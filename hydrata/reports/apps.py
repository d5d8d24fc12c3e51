from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "hydrata.reports"
    label = "reports"
    verbose_name = "Reports"
