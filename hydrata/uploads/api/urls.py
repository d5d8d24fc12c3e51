"""Mounted under /api/v2/ at the paths GeoNode clients use (hydrata_contract/paths.py). The dataset read
(datasets/<id>/) is served by hydrata/anuga/api/dataset_urls.py: who may see a dataset depends on projects, which
uploads does not know."""

from django.urls import path

from hydrata.uploads.api import views
from hydrata_contract import paths

urlpatterns = [
    path(paths.UPLOAD.django(), views.UploadCreateView.as_view(), name=paths.UPLOAD.name),
    path(paths.UPLOAD_NO_SLASH.django(), views.UploadCreateView.as_view(), name=paths.UPLOAD_NO_SLASH.name),
    # GeoNode serves this without a trailing slash; both forms are accepted.
    path(paths.EXECUTION_STATUS.django(), views.ExecutionStatusView.as_view(), name=paths.EXECUTION_STATUS.name),
    path(
        paths.EXECUTION_STATUS_SLASH.django(),
        views.ExecutionStatusView.as_view(),
        name=paths.EXECUTION_STATUS_SLASH.name,
    ),
]
