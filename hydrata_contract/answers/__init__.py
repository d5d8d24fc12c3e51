"""The answers of the platform's REST API, one pydantic model each: the platform's views are held to them (every
answer in the tests), the OpenAPI schema describes them (drf-spectacular reads these models), and the MCP tools
read answers through them. A field an answer gains is added here once."""
