"""The OpenAPI schema's house parts (drf-spectacular): the two ways an agent authenticates, and the one error body.

The extensions name their authentication classes by dotted path, so this module imports no other hydrata app.
"""

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.http import HttpResponse
from django.utils.translation import check_for_language
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SCHEMA_KWARGS, SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.renderers import JSONRenderer

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


@dataclass(frozen=True)
class RenderedSchema:
    content: bytes
    content_type: str
    disposition: str


class RenderedSchemas:
    """The schema as answered, kept per process: drf-spectacular builds it anew for every request (about 0.5 CPU s
    here, and 0.4 s more to write it as YAML), yet it changes only with the code and the settings. A caller could
    otherwise spend a second of the server's CPU per request. The key is what the answer varies on
    (SchemaView.variant), and a few keys at most are kept, since a client chooses them."""

    LIMIT = 8

    def __init__(self) -> None:
        self.answers: OrderedDict[tuple[str, ...], RenderedSchema] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[str, ...]) -> RenderedSchema | None:
        with self.lock:
            return self.answers.get(key)

    def keep(self, key: tuple[str, ...], answer: RenderedSchema) -> None:
        with self.lock:
            self.answers[key] = answer
            while len(self.answers) > self.LIMIT:
                self.answers.popitem(last=False)

    def forget(self, **_: Any) -> None:
        with self.lock:
            self.answers.clear()


RENDERED_SCHEMAS = RenderedSchemas()
# A changed setting (a test's override) may change the schema (its URLconf, its title); production never changes one.
setting_changed.connect(RENDERED_SCHEMAS.forget, dispatch_uid="hydrata.core.schema.forget")


class SchemaView(SpectacularAPIView):
    """The schema itself, public (SPECTACULAR_SETTINGS' SERVE_PERMISSIONS): it describes the API, holds no data."""

    grant_levels = {"GET": "read"}

    @extend_schema(**SCHEMA_KWARGS)  # as drf-spectacular's own get: the schema describes itself only if asked to
    def get(self, request: Any, *args: Any, **kwargs: Any) -> HttpResponse:
        key = self.variant(request)
        answer = RENDERED_SCHEMAS.get(key)
        if answer is None:
            answer = self.rendered(request, super().get(request, *args, **kwargs))
            RENDERED_SCHEMAS.keep(key, answer)
        return HttpResponse(
            answer.content, content_type=answer.content_type, headers={"Content-Disposition": answer.disposition}
        )

    def variant(self, request: Any) -> tuple[str, ...]:
        """What the answer varies on, read as drf-spectacular reads it: the renderer, the indent a JSON renderer
        takes from the media type (1 to 8), the version the view would use, and a language that has translations.
        A parameter that changes nothing (an unknown language, another media-type parameter) is left out, so varying
        it cannot make every request a new build. `?version=` is any text (no ALLOWED_VERSIONS), and drf-spectacular
        writes it into the schema: each new one is built, and the limit bounds only the memory."""
        renderer, media_type = request.accepted_renderer, request.accepted_media_type
        indent = renderer.get_indent(media_type, {}) if isinstance(renderer, JSONRenderer) else None
        version = self.api_version or request.version or self._get_version_parameter(request)
        lang = request.GET.get("lang", "")
        language = lang if settings.USE_I18N and lang and check_for_language(lang) else ""
        return (renderer.media_type, str(indent or ""), str(version or ""), language)

    def rendered(self, request: Any, response: Any) -> RenderedSchema:
        """What DRF's response would write: the negotiated renderer's bytes and content type."""
        renderer, media_type = request.accepted_renderer, request.accepted_media_type
        content = renderer.render(response.data, media_type, self.get_renderer_context())
        content_type = f"{renderer.media_type}; charset={renderer.charset}" if renderer.charset else renderer.media_type
        return RenderedSchema(content, content_type, response["Content-Disposition"])


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
