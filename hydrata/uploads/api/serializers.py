from typing import Any

from rest_framework import serializers

from hydrata.uploads.models import Dataset, UploadExecution
from hydrata.uploads.selectors import execution_queue_place
from hydrata_contract.states import UploadStatus


class ExecutionStatusOutput(serializers.ModelSerializer):
    """GeoNode's execution-status shape."""

    exec_id = serializers.UUIDField(source="id")
    func_name = serializers.SerializerMethodField()
    created = serializers.DateTimeField(source="created_at")
    last_updated = serializers.DateTimeField(source="updated_at")
    output_params = serializers.SerializerMethodField()

    class Meta:
        model = UploadExecution
        fields = ["exec_id", "status", "func_name", "created", "last_updated", "log", "output_params", "queue"]

    queue = serializers.SerializerMethodField()

    def get_queue(self, execution: UploadExecution) -> dict[str, Any] | None:
        return execution_queue_place(execution=execution)

    def get_func_name(self, execution: UploadExecution) -> str:
        return "upload"

    def get_output_params(self, execution: UploadExecution) -> dict[str, Any]:
        if execution.status != UploadStatus.FINISHED:
            return {}
        resources = [{"id": execution.dataset_id}] if execution.dataset_id is not None else []
        return {"resources": resources}


class DatasetOutput(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    created = serializers.DateTimeField(source="created_at")

    class Meta:
        model = Dataset
        fields = [
            "pk",
            "title",
            "name",
            "owner",
            "crs",
            "feature_count",
            "geometry_types",
            "property_names",
            "bbox_wgs84",
            "created",
        ]
