from rest_framework import serializers


class CapabilitySuggestionInput(serializers.Serializer):
    summary = serializers.CharField(max_length=300)
    details = serializers.CharField(required=False, allow_blank=True, default="", max_length=20000)
    workflow = serializers.CharField(required=False, allow_blank=True, default="", max_length=20000)
