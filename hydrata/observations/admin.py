from django.contrib import admin

from hydrata.observations.models import Comparison, FloodEvent, Observation


@admin.register(FloodEvent)
class FloodEventAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "started_at", "ended_at", "created_at"]
    search_fields = ["name", "project__name"]
    raw_id_fields = ["project", "created_by"]
    list_select_related = ["project"]
    readonly_fields = ["created_at", "updated_at"]


@admin.register(Observation)
class ObservationAdmin(admin.ModelAdmin):
    list_display = ["id", "event", "quantity", "value_m", "tolerance_m", "x", "y", "given_crs", "source"]
    list_filter = ["quantity"]
    search_fields = ["event__name", "event__project__name", "source"]
    raw_id_fields = ["event", "created_by"]
    list_select_related = ["event"]
    readonly_fields = ["created_at", "updated_at"]


@admin.register(Comparison)
class ComparisonAdmin(admin.ModelAdmin):
    """Comparisons are computed by the platform from a run and an event; the admin shows them."""

    list_display = ["id", "run", "event", "method", "computed_at"]
    search_fields = ["event__name", "event__project__name"]
    list_select_related = ["run", "event"]
    readonly_fields = [field.name for field in Comparison._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False
