from django.contrib import admin

from hydrata.anuga.models import (
    InputLayer,
    Map,
    Project,
    ProjectMembership,
    Run,
    Scenario,
    ScenarioApproval,
    Terrain,
    TerrainUpload,
    TimeSeries,
)


@admin.register(Map)
class MapAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "project", "created_at"]
    search_fields = ["title", "project__name"]
    list_select_related = ["project"]
    readonly_fields = ["created_at"]


class ProjectMembershipInline(admin.TabularInline):
    model = ProjectMembership
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "projection", "is_public", "owner", "base_map", "created_at"]
    list_filter = ["is_public"]
    search_fields = ["name", "owner__username", "projection"]
    raw_id_fields = ["owner", "base_map"]
    list_select_related = ["owner", "base_map"]
    readonly_fields = ["created_at", "updated_at"]
    inlines = [ProjectMembershipInline]


@admin.register(ProjectMembership)
class ProjectMembershipAdmin(admin.ModelAdmin):
    list_display = ["project", "user", "role"]
    list_filter = ["role"]
    search_fields = ["project__name", "user__username"]
    raw_id_fields = ["project", "user"]
    list_select_related = ["project", "user"]


@admin.register(Terrain)
class TerrainAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "title",
        "project",
        "status",
        "crs",
        "native_crs",
        "elevation_min",
        "elevation_max",
        "created_at",
    ]
    list_filter = ["status"]
    search_fields = ["title", "project__name"]
    raw_id_fields = ["project", "upload", "created_by"]
    list_select_related = ["project"]
    readonly_fields = ["created_at", "updated_at"]


@admin.register(TerrainUpload)
class TerrainUploadAdmin(admin.ModelAdmin):
    list_display = ["staging_key", "project", "user", "content_type", "declared_size", "expires_at"]
    raw_id_fields = ["project", "user"]
    list_select_related = ["project", "user"]


@admin.register(InputLayer)
class InputLayerAdmin(admin.ModelAdmin):
    list_display = ["title", "kind", "project", "is_default", "dataset", "feature_count", "updated_at"]
    list_filter = ["kind", "is_default"]
    search_fields = ["title", "project__name"]
    raw_id_fields = ["project", "dataset"]
    list_select_related = ["project", "dataset"]


@admin.register(TimeSeries)
class TimeSeriesAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "series_type", "units", "row_count", "first_timestamp", "last_timestamp"]
    list_filter = ["series_type"]
    search_fields = ["name", "project__name", "location_name"]
    raw_id_fields = ["project", "created_by"]
    list_select_related = ["project"]


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "resolution", "duration", "latest_run_is_valid", "updated_at"]
    search_fields = ["name", "project__name"]
    raw_id_fields = [
        "project",
        "terrain",
        "boundary",
        "friction",
        "inflow",
        "rainfall",
        "structure",
        "breakline",
        "culvert",
        "weir",
        "mesh_region",
        "initial_condition",
        "soil",
        "created_by",
    ]
    list_select_related = ["project"]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    """Runs change state only through the platform's services; the admin shows them."""

    list_display = [
        "id",
        "scenario",
        "status",
        "phase",
        "progress_pct",
        "mesh_triangle_count",
        "compute_cost",
        "created_at",
        "finished_at",
    ]
    list_filter = ["status", "compute_backend"]
    search_fields = ["scenario__name", "scenario__project__name"]
    list_select_related = ["scenario"]
    readonly_fields = [field.name for field in Run._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(ScenarioApproval)
class ScenarioApprovalAdmin(admin.ModelAdmin):
    """Sign-offs are made by people in the map; the admin shows them."""

    list_display = ["id", "scenario", "approved_by", "approved_at"]
    search_fields = ["scenario__name", "approved_by__username"]
    list_select_related = ["scenario", "approved_by"]
    readonly_fields = ["scenario", "approved_by", "approved_at", "state_digest"]

    def has_add_permission(self, request) -> bool:
        return False
