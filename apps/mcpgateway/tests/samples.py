"""A normal call of every MCP Gateway tool, against the loopback MCP server, for the catalogue's
contract test."""

import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.mcpgateway.tests.factories import server
from apps.mcpgateway.tests.servers import shared


def _server(actor: Any) -> tuple[str, str]:
    marker = f"Weather{uuid.uuid4().hex[:8]}"
    made = server(actor, name=f"srv-{uuid.uuid4().hex[:8]}", title=f"{marker} station", url=shared().url)
    return made.name, marker


@sample("getMcpGatewayOverview")
def get_mcp_gateway_overview(actor: Any) -> Sample:
    _name, marker = _server(actor)
    return Sample({}, private=[marker])


@sample("mcpListServers")
def mcp_list_servers(actor: Any) -> Sample:
    _name, marker = _server(actor)
    return Sample({"query": marker.lower()}, private=[marker])


@sample("mcpDiscoverTools")
def mcp_discover_tools(actor: Any) -> Sample:
    name, marker = _server(actor)
    return Sample({"server": name}, private=[marker])


@sample("mcpCallTool")
def mcp_call_tool(actor: Any) -> Sample:
    name, marker = _server(actor)
    return Sample({"tool": f"{name}__forecast", "arguments": {"city": "Oslo"}}, private=[marker])


@sample("mcpReadResource")
def mcp_read_resource(actor: Any) -> Sample:
    name, marker = _server(actor)
    return Sample({"server": name, "uri": "notes://today"}, private=[marker])
