"""Mounted under /api/v2/ beside the run routes (config/urls.py); the route is the contract's
(hydrata_contract/paths.py)."""

from django.urls import path

from hydrata.reports.api import views
from hydrata_contract import paths

urlpatterns = [
    path(paths.RUN_REPORT.django(), views.RunReportView.as_view(), name=paths.RUN_REPORT.name),
]
