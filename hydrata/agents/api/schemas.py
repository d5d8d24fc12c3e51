"""Documentation serializers: the shapes of the answers the agents API builds as dicts, for the OpenAPI schema only."""

from rest_framework import serializers

from hydrata.agents.models import GrantKind, GrantLevel


class AgentMe(serializers.Serializer):
    """AgentMeView: the calling grant."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=GrantKind.choices)
    name = serializers.CharField()
    level = serializers.ChoiceField(choices=GrantLevel.choices)
    key_prefix = serializers.CharField(allow_blank=True, help_text="Empty for a connected app.")
    client_host = serializers.CharField(allow_blank=True, help_text="Empty for an agent key.")
    account = serializers.CharField()
    paused = serializers.BooleanField()
    spend_used_this_month = serializers.CharField(help_text="A decimal amount in `currency`.")
    spend_limit_monthly = serializers.CharField(allow_null=True, help_text="A decimal amount; null for no limit.")
    currency = serializers.CharField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    last_used_at = serializers.DateTimeField(allow_null=True)


class CapabilitySuggestion(serializers.Serializer):
    id = serializers.IntegerField()
    summary = serializers.CharField()
    created_at = serializers.DateTimeField()
