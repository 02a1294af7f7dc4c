"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("overview of the connected MCP servers", "getMcpGatewayOverview"),
    ("how is the MCP gateway doing, any failing servers", "getMcpGatewayOverview"),
    ("which outside MCP servers can I use", "mcpListServers"),
    ("list the external MCP servers the admin connected", "mcpListServers"),
    ("is the weather MCP server answering", "mcpListServers"),
    ("what tools does the github MCP server offer", "mcpDiscoverTools"),
    ("discover the tools of an external MCP server", "mcpDiscoverTools"),
    ("refresh the tool list of the jira MCP server", "mcpDiscoverTools"),
    ("call the create_issue tool on the linear MCP server", "mcpCallTool"),
    ("run a tool of an outside MCP server", "mcpCallTool"),
    ("use the external MCP server's search tool", "mcpCallTool"),
    ("read a resource from the docs MCP server", "mcpReadResource"),
    ("open the file resource notes://today on an external MCP server", "mcpReadResource"),
    ("fetch the contents of a resource URI from an outside MCP server", "mcpReadResource"),
]
