from django.contrib import admin

from hydrata.anuga.models import Map, Project, ProjectMembership


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
