from typing import Any

from django.conf import settings
from rest_framework import serializers

from hydrata.anuga.models import InputLayer, Project, Terrain
from hydrata.anuga.selectors.links import input_row_link, project_link, terrain_link
from hydrata.anuga.selectors.queue import terrain_queue_place
from hydrata.core.links import MapLinkField
from hydrata.storage import get_storage
from hydrata_contract.projects import Visibility
from hydrata_contract.states import TerrainStatus


class ProjectOutput(serializers.ModelSerializer):
    visibility = serializers.SerializerMethodField()
    role = serializers.SerializerMethodField()
    owner = serializers.CharField(source="owner.username")
    base_map = serializers.IntegerField(source="base_map_id")
    ui_url = MapLinkField(project_link)

    class Meta:
        model = Project
        fields = [
            "id",
            "name",
            "projection",
            "visibility",
            "role",
            "owner",
            "base_map",
            "ui_url",
            "created_at",
            "updated_at",
        ]

    def get_visibility(self, project: Project) -> str:
        return Visibility.PUBLIC if project.is_public else Visibility.PRIVATE

    def get_role(self, project: Project) -> str | None:
        roles: dict[int, str] = self.context.get("roles", {})
        return roles.get(project.pk) or (Visibility.PUBLIC if project.is_public else None)


class TerrainOutput(serializers.ModelSerializer):
    resolution = serializers.SerializerMethodField()
    s3_hillshade_url = serializers.SerializerMethodField()
    ui_url = MapLinkField(terrain_link)
    queue = serializers.SerializerMethodField()

    class Meta:
        model = Terrain
        fields = [
            "id",
            "project",
            "title",
            "status",
            "error_message",
            "source_filename",
            "native_crs",
            "crs",
            "reprojected",
            "width",
            "height",
            "resolution",
            "bbox_wgs84",
            "bbox_native",
            "elevation_min",
            "elevation_max",
            "nodata_fraction",
            "s3_hillshade_url",
            "ui_url",
            "created_at",
            "updated_at",
            "queue",
        ]

    def get_queue(self, terrain: Terrain) -> dict[str, Any] | None:
        return terrain_queue_place(terrain=terrain)

    def get_resolution(self, terrain: Terrain) -> list[float] | None:
        if terrain.resolution_x is None or terrain.resolution_y is None:
            return None
        return [terrain.resolution_x, terrain.resolution_y]

    def to_representation(self, terrain: Terrain) -> dict:
        data = super().to_representation(terrain)
        if not self.context.get("signed_links", True):
            data.pop("s3_hillshade_url")
        return data

    def get_s3_hillshade_url(self, terrain: Terrain) -> str | None:
        if not self.context.get("signed_links", True):
            return None
        if terrain.status != TerrainStatus.READY or not terrain.hillshade_key:
            return None
        return get_storage().presign_download(
            key=terrain.hillshade_key, expires_in=settings.HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS
        )


class InputLayerOutput(serializers.ModelSerializer):
    gn_layer = serializers.IntegerField(source="dataset_id", allow_null=True)
    has_features = serializers.SerializerMethodField()
    ui_url = MapLinkField(input_row_link)

    class Meta:
        model = InputLayer
        fields = [
            "id",
            "kind",
            "title",
            "is_default",
            "gn_layer",
            "has_features",
            "feature_count",
            "bbox_wgs84",
            "ui_url",
            "updated_at",
        ]

    def get_has_features(self, layer: InputLayer) -> bool:
        return layer.feature_count > 0
