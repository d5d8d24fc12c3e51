"""Mounted under /api/v2/ beside the anuga routes (config/urls.py); each route is the contract's
(hydrata_contract/paths.py)."""

from django.urls import path

from hydrata.studies.api import sampling, views
from hydrata_contract import paths

urlpatterns = [
    path(paths.DESIGN_INPUTS.django(), views.DesignInputListCreateView.as_view(), name=paths.DESIGN_INPUTS.name),
    path(
        paths.DESIGN_INPUT_DETAIL.django(),
        views.DesignInputDetailView.as_view(),
        name=paths.DESIGN_INPUT_DETAIL.name,
    ),
    path(paths.DESIGN_STUDIES.django(), views.DesignStudyListCreateView.as_view(), name=paths.DESIGN_STUDIES.name),
    path(
        paths.DESIGN_STUDY_DETAIL.django(),
        views.DesignStudyDetailView.as_view(),
        name=paths.DESIGN_STUDY_DETAIL.name,
    ),
    path(
        paths.DESIGN_STUDY_APPROVE.django(),
        views.DesignStudyApproveView.as_view(),
        name=paths.DESIGN_STUDY_APPROVE.name,
    ),
    path(paths.DESIGN_STUDY_START.django(), views.DesignStudyStartView.as_view(), name=paths.DESIGN_STUDY_START.name),
    path(
        paths.DESIGN_STUDY_CANCEL.django(),
        views.DesignStudyCancelView.as_view(),
        name=paths.DESIGN_STUDY_CANCEL.name,
    ),
    path(
        paths.DESIGN_STUDY_SAMPLE.django(),
        sampling.DesignStudySampleView.as_view(),
        name=paths.DESIGN_STUDY_SAMPLE.name,
    ),
    path(
        paths.DESIGN_STUDY_TILES.django(),
        views.DesignStudyTileLayersView.as_view(),
        name=paths.DESIGN_STUDY_TILES.name,
    ),
    path(paths.DESIGN_STUDY_TILE.django(), views.DesignStudyTileView.as_view(), name=paths.DESIGN_STUDY_TILE.name),
]
