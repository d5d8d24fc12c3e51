from rest_framework import serializers

from hydrata.anuga.models import Project


class ProjectCreateInput(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    projection = serializers.CharField(max_length=40)
    is_public = serializers.BooleanField(required=False, default=False)


class ProjectOutput(serializers.ModelSerializer):
    visibility = serializers.SerializerMethodField()
    role = serializers.SerializerMethodField()
    owner = serializers.CharField(source="owner.username")
    base_map = serializers.IntegerField(source="base_map_id")

    class Meta:
        model = Project
        fields = ["id", "name", "projection", "visibility", "role", "owner", "base_map", "created_at", "updated_at"]

    def get_visibility(self, project: Project) -> str:
        return "public" if project.is_public else "private"

    def get_role(self, project: Project) -> str | None:
        roles: dict[int, str] = self.context.get("roles", {})
        return roles.get(project.pk) or ("public" if project.is_public else None)
