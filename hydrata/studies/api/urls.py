"""Mounted under /api/v2/anuga/ beside the anuga routes (config/urls.py)."""

from django.urls import path

from hydrata.studies.api import sampling, views

PROJECT = "projects/<int:project_id>/"
STUDY = f"{PROJECT}design-studies/<int:study_id>/"
TILE = "<str:z>/<str:x>/<str:y>.png"  # as the run tiles': a bad address is answered 400 with a reason

urlpatterns = [
    path(f"{PROJECT}design-inputs/", views.DesignInputListCreateView.as_view(), name="design-inputs"),
    path(f"{PROJECT}design-inputs/<int:input_id>/", views.DesignInputDetailView.as_view(), name="design-input-detail"),
    path(f"{PROJECT}design-studies/", views.DesignStudyListCreateView.as_view(), name="design-studies"),
    path(f"{PROJECT}design-studies/<int:study_id>/", views.DesignStudyDetailView.as_view(), name="design-study-detail"),
    path(f"{STUDY}approve/", views.DesignStudyApproveView.as_view(), name="design-study-approve"),
    path(f"{STUDY}start/", views.DesignStudyStartView.as_view(), name="design-study-start"),
    path(f"{STUDY}cancel/", views.DesignStudyCancelView.as_view(), name="design-study-cancel"),
    path(f"{STUDY}sample/", sampling.DesignStudySampleView.as_view(), name="design-study-sample"),
    path(f"{STUDY}tiles/", views.DesignStudyTileLayersView.as_view(), name="design-study-tiles"),
    path(f"{STUDY}tiles/<str:aep>/<str:layer>/{TILE}", views.DesignStudyTileView.as_view(), name="design-study-tile"),
]
