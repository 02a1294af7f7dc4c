"""The outside services the MCP Gateway speaks to: MCP servers over Streamable HTTP (client.py)."""
