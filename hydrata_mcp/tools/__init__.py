"""One module per domain; each tool registers itself with `registry.tool`."""
