"""Mounted under /api/v2/ at the paths GeoNode clients use. The dataset read (datasets/<id>/) is served by
hydrata/anuga/api/dataset_urls.py: who may see a dataset depends on projects, which uploads does not know."""

from django.urls import path

from hydrata.uploads.api import views

urlpatterns = [
    path("uploads/upload/", views.UploadCreateView.as_view(), name="upload-create"),
    path("uploads/upload", views.UploadCreateView.as_view(), name="upload-create-no-slash"),
    # GeoNode serves this without a trailing slash; both forms are accepted.
    path(
        "resource-service/execution-status/<str:execution_id>",
        views.ExecutionStatusView.as_view(),
        name="execution-status",
    ),
    path(
        "resource-service/execution-status/<str:execution_id>/",
        views.ExecutionStatusView.as_view(),
        name="execution-status-slash",
    ),
]
