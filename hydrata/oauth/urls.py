"""The authorization server's routes. The namespace is the library's, which its views reverse."""

from django.urls import path
from oauth2_provider.views import RevokeTokenView

from hydrata.oauth import views
from hydrata.oauth.views import flow_only

app_name = "oauth2_provider"

PROTECTED_RESOURCE = flow_only(views.ProtectedResourceMetadataView.as_view())

urlpatterns = [
    path(
        ".well-known/oauth-authorization-server",
        flow_only(views.ServerMetadataView.as_view()),
        name="oauth-server-metadata",
    ),
    path(".well-known/oauth-protected-resource", PROTECTED_RESOURCE, name="oauth-resource-metadata"),
    # RFC 9728's path form for the MCP endpoint; with its trailing slash too, as clients derive it from /mcp/.
    path(".well-known/oauth-protected-resource/mcp", PROTECTED_RESOURCE, name="oauth-resource-metadata-mcp"),
    path(".well-known/oauth-protected-resource/mcp/", PROTECTED_RESOURCE),
    path(".well-known/jwks.json", flow_only(views.jwks_view), name="jwks"),
    path("oauth/authorize/", flow_only(views.ConsentView.as_view()), name="authorize"),
    path("oauth/token/", flow_only(views.ConnectTokenView.as_view()), name="token"),
    path("oauth/revoke/", flow_only(RevokeTokenView.as_view()), name="revoke-token"),
    path("oauth/register/", flow_only(views.RegistrationView.as_view()), name="dcr-register"),
    path(
        "oauth/register/<str:client_id>/",
        flow_only(views.RegistrationManagementView.as_view()),
        name="dcr-register-management",
    ),
]
