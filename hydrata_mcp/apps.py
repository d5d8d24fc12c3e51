from django.apps import AppConfig


class HydrataMCPConfig(AppConfig):
    name = "hydrata_mcp"
    verbose_name = "Hydrata MCP server"
