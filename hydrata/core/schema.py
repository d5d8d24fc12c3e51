"""The OpenAPI schema's house parts (drf-spectacular): the two ways an agent authenticates, and the one error body.

The extensions name their authentication classes by dotted path, so this module imports no other hydrata app.
"""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from hydrata.core.pagination import PAGE_PARAMETERS

ERROR_STATUSES = ("400", "401", "402", "403", "404", "405", "409", "413", "415", "422", "429")
ERROR_BODY = {
    "type": "object",
    "description": "Every refusal: a machine `code` (e.g. GRANT_LEVEL_TOO_LOW), a `detail` a person can act on, "
    "and sometimes more fields (required_level, limit, errors...).",
    "properties": {"code": {"type": "string"}, "detail": {"type": "string"}},
    "required": ["code", "detail"],
    "additionalProperties": True,
}


class AgentKeyScheme(OpenApiAuthenticationExtension):
    target_class = "hydrata.agents.authentication.AgentKeyAuthentication"
    name = "agentKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "hk_...",
            "description": "An agent key made on /agents/, at level read, draft or launch.",
        }


class ConnectFlowScheme(OpenApiAuthenticationExtension):
    target_class = "hydrata.oauth.authentication.ConnectTokenAuthentication"
    name = "connectFlow"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "oauth2",
            "description": "The connect flow: an MCP client signs a person in (PKCE) and "
            "gets a JWT access token for a grant at the chosen level.",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "/oauth/authorize/",
                    "tokenUrl": "/oauth/token/",
                    "refreshUrl": "/oauth/token/",
                    "scopes": {
                        "read": "Look at projects, maps and results",
                        "draft": "Also build and edit models",
                        "launch": "Also launch simulations, which spend money",
                        "offline_access": "Stay connected between sessions",
                    },
                }
            },
        }


def name_slashless_aliases(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """GeoNode clients call some routes with and without the trailing slash: the alias without it gets an
    operationId of its own (`..._no_slash`) rather than the numeral spectacular would add with a warning."""
    paths = result.get("paths", {})
    for path, operations in paths.items():
        if not path.endswith("/") and f"{path}/" in paths:
            for operation in operations.values():
                operation["operationId"] += "_no_slash"
    return result


def add_error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Every operation may answer with the error body; spectacular only sees the success shapes."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_BODY
    reference = {"$ref": "#/components/schemas/Error"}
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            for status in ERROR_STATUSES:
                responses.setdefault(
                    status,
                    {"description": "Refused; see `code`.", "content": {"application/json": {"schema": reference}}},
                )
    return result


class SchemaView(SpectacularAPIView):
    """The schema itself, public (SPECTACULAR_SETTINGS' SERVE_PERMISSIONS): it describes the API, holds no data."""

    grant_levels = {"GET": "read"}


class SchemaDocsView(SpectacularSwaggerSplitView):
    """Swagger UI under the site's CSP: its files from this site (the sidecar), its start-up script from this same
    URL with `?script` rather than inline, and its page's style from a file."""

    grant_levels = {"GET": "read"}
    template_name = "core/swagger_ui.html"


class PageSchema(AutoSchema):
    """The schema of a view whose GET answers a page as a contract model (`RunPage`, `ScenarioPage`...): its
    operation is named a list (`..._list`) and takes `page` and `page_size`, as drf-spectacular describes a list
    it pages itself."""

    def get_override_parameters(self) -> list:
        paging = PAGE_PARAMETERS if self.method == "GET" else []
        return [*super().get_override_parameters(), *paging]

    def get_operation_id(self) -> str:
        operation_id = super().get_operation_id()
        if self.method == "GET" and operation_id.endswith("_retrieve"):
            return operation_id.removesuffix("_retrieve") + "_list"
        return operation_id
