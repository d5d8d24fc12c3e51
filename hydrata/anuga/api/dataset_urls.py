"""Mounted under /api/v2/ beside the uploads routes, at the path GeoNode clients read a dataset from
(hydrata_contract/paths.py)."""

from django.urls import path

from hydrata.anuga.api import datasets
from hydrata_contract import paths

urlpatterns = [
    path(paths.DATASET_DETAIL.django(), datasets.DatasetDetailView.as_view(), name=paths.DATASET_DETAIL.name),
]
