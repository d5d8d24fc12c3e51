"""Admin for agent access. Keys are never stored, so nothing here can show one; the digest is read-only.

Grants are created on the /agents/ page or with `manage.py create_agent_key`, where the key is shown once to
whoever creates it, or by a person's consent in the connect flow, so the admin cannot add them.
"""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from hydrata.agents.models import AgentAccount, AgentActivity, AgentGrant, AgentSpend, CapabilitySuggestion
from hydrata.agents.services import account_set_paused, grant_revoke


@admin.register(AgentAccount)
class AgentAccountAdmin(admin.ModelAdmin):
    list_display = ["user", "agents_paused", "paused_at", "monthly_spend_limit", "runs_need_approval"]
    list_filter = ["agents_paused", "runs_need_approval"]
    search_fields = ["user__username", "user__email"]
    raw_id_fields = ["user"]
    readonly_fields = ["paused_at"]

    def save_model(self, request: HttpRequest, obj: AgentAccount, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if "agents_paused" in form.changed_data:
            account_set_paused(user=obj.user, paused=obj.agents_paused)  # keeps paused_at in step


class RevokedFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("active", "Not revoked"), ("revoked", "Revoked")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "active":
            return queryset.filter(revoked_at__isnull=True)
        if self.value() == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        return queryset


@admin.register(AgentGrant)
class AgentGrantAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "kind", "level", "key_prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["kind", "level", RevokedFilter]
    search_fields = ["name", "key_prefix", "client_host", "user__username"]
    fields = [
        "user",
        "kind",
        "name",
        "level",
        "key_prefix",
        "key_digest",
        "application",
        "client_host",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    ]
    # Revoking is one-way: use the action (or the owner's /agents/ page); a revoked key is never revived here.
    readonly_fields = [
        "user",
        "kind",
        "key_prefix",
        "key_digest",
        "application",
        "client_host",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    actions = ["revoke_selected"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Revoke the selected grants")
    def revoke_selected(self, request: HttpRequest, queryset: QuerySet[AgentGrant]) -> None:
        revoked = 0
        for grant in queryset.filter(revoked_at__isnull=True):
            grant_revoke(grant=grant)
            revoked += 1
        self.message_user(request, f"Revoked {revoked} grant(s).")


@admin.register(AgentActivity)
class AgentActivityAdmin(admin.ModelAdmin):
    """An audit log: viewable, never added or edited by hand."""

    list_display = ["created_at", "grant", "method", "path", "status_code", "client"]
    list_filter = ["method", "status_code"]
    search_fields = ["path", "client", "grant__name", "grant__user__username"]
    list_select_related = ["grant"]
    date_hierarchy = "created_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: AgentActivity | None = None) -> bool:
        return False


@admin.register(AgentSpend)
class AgentSpendAdmin(admin.ModelAdmin):
    list_display = ["created_at", "user", "grant", "amount", "description"]
    search_fields = ["user__username", "description", "grant__name"]
    raw_id_fields = ["user", "grant"]
    list_select_related = ["user", "grant"]
    date_hierarchy = "created_at"
    readonly_fields = ["created_at"]


@admin.register(CapabilitySuggestion)
class CapabilitySuggestionAdmin(admin.ModelAdmin):
    list_display = ["created_at", "summary", "user", "grant"]
    search_fields = ["summary", "details", "workflow", "user__username"]
    raw_id_fields = ["user", "grant"]
    list_select_related = ["user", "grant"]
    readonly_fields = ["created_at"]
