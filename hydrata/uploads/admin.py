from django.contrib import admin

from hydrata.uploads.models import Dataset, UploadExecution


@admin.register(UploadExecution)
class UploadExecutionAdmin(admin.ModelAdmin):
    list_display = ["id", "user", "filename", "status", "dataset", "created_at"]
    list_filter = ["status"]
    search_fields = ["filename", "user__username"]
    raw_id_fields = ["user", "dataset"]
    list_select_related = ["user", "dataset"]
    readonly_fields = ["created_at", "updated_at"]


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "owner", "crs", "feature_count", "created_at"]
    search_fields = ["title", "name", "owner__username"]
    raw_id_fields = ["owner"]
    list_select_related = ["owner"]
