"""Mounted under /api/v2/ beside the uploads routes, at the path GeoNode clients read a dataset from."""

from django.urls import path

from hydrata.anuga.api import datasets

urlpatterns = [
    path("datasets/<int:dataset_id>/", datasets.DatasetDetailView.as_view(), name="dataset-detail"),
]
