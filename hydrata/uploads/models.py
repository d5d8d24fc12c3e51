"""GeoNode-style uploads: an execution records one upload's import; a dataset is what a finished import made."""

import uuid

from django.conf import settings
from django.db import models

from hydrata_contract.states import UploadStatus


class Dataset(models.Model):
    """A vector layer imported from GeoJSON. The features live in storage; the row holds what describes them."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="datasets")
    title = models.CharField(max_length=255)
    name = models.SlugField(max_length=255, help_text="Slug of the uploaded file's name.")
    storage_key = models.CharField(max_length=500, help_text="The normalised FeatureCollection, as GeoJSON.")
    crs = models.CharField(max_length=64, help_text="Authority code of the features' CRS, e.g. EPSG:28356.")
    feature_count = models.PositiveIntegerField()
    geometry_types = models.JSONField(default=list, help_text='Distinct geometry types, e.g. ["LineString"].')
    property_names = models.JSONField(default=list, help_text="Union of the features' property keys.")
    bbox_wgs84 = models.JSONField(help_text="[minx, miny, maxx, maxy] in longitude/latitude.")
    bbox_native = models.JSONField(help_text="[minx, miny, maxx, maxy] in the dataset's CRS.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.title


class UploadExecution(models.Model):
    """One upload and its background import (GeoNode's ExecutionRequest)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="upload_executions")
    filename = models.CharField(max_length=255)
    storage_key = models.CharField(max_length=500)
    status = models.CharField(max_length=10, choices=UploadStatus.choices(), default=UploadStatus.READY)
    log = models.TextField(blank=True, default="", help_text="What happened, for a person to read.")
    dataset = models.ForeignKey(Dataset, null=True, blank=True, on_delete=models.SET_NULL, related_name="executions")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"upload {self.id} of {self.filename} ({self.status})"
