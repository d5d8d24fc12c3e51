"""Mounted under /api/v2/anuga/ beside the run routes (config/urls.py)."""

from django.urls import path

from hydrata.reports.api import views

urlpatterns = [
    path("runs/<int:run_id>/report/", views.RunReportView.as_view(), name="run-report"),
]
