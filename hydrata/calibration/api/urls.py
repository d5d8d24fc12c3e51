"""Mounted under /api/v2/anuga/ beside the anuga routes (config/urls.py)."""

from django.urls import path

from hydrata.calibration.api import views

PROJECT = "projects/<int:project_id>/"
STUDY = f"{PROJECT}calibration-studies/<int:study_id>/"

urlpatterns = [
    path(f"{PROJECT}calibration-studies/", views.CalibrationStudyListCreateView.as_view(), name="calibration-studies"),
    path(STUDY, views.CalibrationStudyDetailView.as_view(), name="calibration-study-detail"),
    path(f"{STUDY}approve/", views.CalibrationStudyApproveView.as_view(), name="calibration-study-approve"),
    path(f"{STUDY}start/", views.CalibrationStudyStartView.as_view(), name="calibration-study-start"),
    path(f"{STUDY}cancel/", views.CalibrationStudyCancelView.as_view(), name="calibration-study-cancel"),
]
