from django.contrib import admin

from hydrata.calibration.models import CalibrationMember, CalibrationStudy


@admin.register(CalibrationStudy)
class CalibrationStudyAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "project", "base_scenario", "method", "status", "created_at"]
    list_filter = ["method", "status"]
    search_fields = ["name", "project__name"]
    raw_id_fields = ["project", "base_scenario", "event", "created_by"]
    list_select_related = ["project", "base_scenario"]
    readonly_fields = ["created_at"]


@admin.register(CalibrationMember)
class CalibrationMemberAdmin(admin.ModelAdmin):
    list_display = ["id", "study", "index", "objective", "told"]
    raw_id_fields = ["study", "run"]
    list_select_related = ["study"]
