"""The anuga API's answers are described by the contract's models (hydrata_contract/answers). What is left here is
the `ui_url` field the observations' documentation serializers still take from this module."""

from rest_framework import serializers


def map_link() -> serializers.URLField:
    return serializers.URLField(help_text="Opens the project's map on this object; give it to the person.")
