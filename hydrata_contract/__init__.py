"""The contract between Hydrata's two wings: the platform (`hydrata`) answers through it and the MCP server
(`hydrata_mcp`) reads through it. Every state name, input kind, result layer, error code and map link is spelt here
once. It imports the standard library and pydantic, never Django nor either wing (tests/hydrata_contract enforces
both)."""
