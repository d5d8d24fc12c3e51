"""The bodies of the platform's writes, one pydantic model each: the platform's views parse every JSON body through
its model (`parsed` in hydrata/core/bodies.py), the OpenAPI schema describes the request bodies from them
(drf-spectacular reads these models), and the MCP tools build what they send with them. A field a write gains is
added here once. A field the model does not name is refused (`extra="forbid"`)."""
