from django.urls import path

from hydrata_mcp.discovery import SERVER_CARD_PATH, server_card_view
from hydrata_mcp.transport import mcp_endpoint

urlpatterns = [
    path("mcp/", mcp_endpoint, name="mcp"),
    path("mcp", mcp_endpoint, name="mcp-no-slash"),
    path(SERVER_CARD_PATH.lstrip("/"), server_card_view, name="mcp-server-card"),
]
