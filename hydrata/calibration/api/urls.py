"""Mounted under /api/v2/ beside the anuga routes (config/urls.py); each route is the contract's
(hydrata_contract/paths.py)."""

from django.urls import path

from hydrata.calibration.api import views
from hydrata_contract import paths

urlpatterns = [
    path(
        paths.CALIBRATION_STUDIES.django(),
        views.CalibrationStudyListCreateView.as_view(),
        name=paths.CALIBRATION_STUDIES.name,
    ),
    path(
        paths.CALIBRATION_STUDY_DETAIL.django(),
        views.CalibrationStudyDetailView.as_view(),
        name=paths.CALIBRATION_STUDY_DETAIL.name,
    ),
    path(
        paths.CALIBRATION_STUDY_APPROVE.django(),
        views.CalibrationStudyApproveView.as_view(),
        name=paths.CALIBRATION_STUDY_APPROVE.name,
    ),
    path(
        paths.CALIBRATION_STUDY_START.django(),
        views.CalibrationStudyStartView.as_view(),
        name=paths.CALIBRATION_STUDY_START.name,
    ),
    path(
        paths.CALIBRATION_STUDY_CANCEL.django(),
        views.CalibrationStudyCancelView.as_view(),
        name=paths.CALIBRATION_STUDY_CANCEL.name,
    ),
]
