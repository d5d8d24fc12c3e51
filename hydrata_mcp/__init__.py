"""The MCP wing: knows the Hydrata platform only through its public REST API."""

__version__ = "0.1.0"
