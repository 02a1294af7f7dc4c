"""Held-out requests for the MCP Gateway, written from docs/mcp-gateway.md and SPEC.md 4.7 before
any search hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("summary of the mcp gateway", "getMcpGatewayOverview"),
    ("show me the remote MCP servers", "mcpListServers"),
    ("what can the notion MCP server do", "mcpDiscoverTools"),
    ("invoke a tool on a third-party MCP server", "mcpCallTool"),
    ("get the resource at docs://readme from an external MCP server", "mcpReadResource"),
]
