from django.contrib import admin

from hydrata.studies.models import DesignInput, DesignMember, DesignStudy, DesignStudyApproval


@admin.register(DesignInput)
class DesignInputAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "kind", "project", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "project__name"]
    raw_id_fields = ["project", "created_by"]
    list_select_related = ["project"]
    readonly_fields = ["created_at"]


@admin.register(DesignStudy)
class DesignStudyAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "project", "base_scenario", "central_statistic", "created_at"]
    search_fields = ["name", "project__name"]
    raw_id_fields = ["project", "base_scenario", "ifd", "temporal_patterns", "storm_losses", "created_by"]
    list_select_related = ["project", "base_scenario"]
    readonly_fields = ["created_at"]


@admin.register(DesignMember)
class DesignMemberAdmin(admin.ModelAdmin):
    """Members are made with their study; the admin shows them."""

    list_display = ["id", "study", "aep", "duration_min", "pattern", "rain_depth_mm", "excess_depth_mm"]
    list_select_related = ["study"]
    readonly_fields = [field.name for field in DesignMember._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(DesignStudyApproval)
class DesignStudyApprovalAdmin(admin.ModelAdmin):
    list_display = ["id", "study", "approved_by", "approved_at"]
    list_select_related = ["study", "approved_by"]
    raw_id_fields = ["study", "approved_by"]
    readonly_fields = ["approved_at", "fingerprint"]
