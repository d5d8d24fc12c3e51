"""Mounted under /api/v2/ at the paths GeoNode clients use."""

from django.urls import path

from hydrata.uploads.api import views

urlpatterns = [
    path("uploads/upload/", views.UploadCreateView.as_view(), name="upload-create"),
    path("uploads/upload", views.UploadCreateView.as_view(), name="upload-create-no-slash"),
    # GeoNode serves this without a trailing slash; both forms are accepted.
    path("resource-service/execution-status/<str:execution_id>", views.ExecutionStatusView.as_view(),
         name="execution-status"),
    path("resource-service/execution-status/<str:execution_id>/", views.ExecutionStatusView.as_view(),
         name="execution-status-slash"),
    path("datasets/<int:dataset_id>/", views.DatasetDetailView.as_view(), name="dataset-detail"),
]
