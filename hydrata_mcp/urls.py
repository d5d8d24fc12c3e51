from django.urls import path

from hydrata_mcp.transport import mcp_endpoint

urlpatterns = [
    path("mcp/", mcp_endpoint, name="mcp"),
    path("mcp", mcp_endpoint, name="mcp-no-slash"),
]
