"""The read-only `ui_url` field of an answer: the object's place in the site's map, built by a link function."""

from collections.abc import Callable
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


@extend_schema_field(OpenApiTypes.URI)
class MapLinkField(serializers.Field):
    def __init__(self, link: Callable[[Any], str], **kwargs: Any) -> None:
        kwargs.setdefault("help_text", "Opens the project's map on this object; give it to the person.")
        super().__init__(source="*", read_only=True, **kwargs)
        self.link = link

    def to_representation(self, value: Any) -> str:
        return self.link(value)
