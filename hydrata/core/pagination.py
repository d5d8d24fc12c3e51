from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework import pagination


class PageNumberPagination(pagination.PageNumberPagination):
    """count, next, previous, results; page_size up to 100. A page of a project's things also has `ui_url`."""

    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        described = super().get_paginated_response_schema(schema)
        for name in ("next", "previous"):  # DRF writes OpenAPI 3.0's `nullable`; the schema is 3.1
            link = described["properties"][name]
            if link.pop("nullable", False):
                link["type"] = [link["type"], "null"]
        described["properties"]["ui_url"] = {
            "type": "string",
            "format": "uri",
            "description": "On a page of a project's things: the map's panel that shows them.",
        }
        return described


# A view whose answer is a contract page (count, next, previous, results) declares these itself: drf-spectacular
# adds them, and names the operation `..._list`, only for a list of a serializer.
PAGE_PARAMETERS = [
    OpenApiParameter("page", int, required=False, description="A page number within the paginated result set."),
    OpenApiParameter("page_size", int, required=False, description="Number of results to return per page."),
]
