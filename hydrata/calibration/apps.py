from django.apps import AppConfig


class CalibrationConfig(AppConfig):
    name = "hydrata.calibration"
    label = "calibration"
    verbose_name = "Calibration and sensitivity studies"
