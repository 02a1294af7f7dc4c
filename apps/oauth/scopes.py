"""The OAuth scopes of the MCP endpoint, and what each lets a connection see.

Scopes are coarse and only ever narrow: the person's role stays the real boundary, checked on
every tool call (`apps.core.actors.can`). The rule the MCP door applies:

    mcp        every tool the role allows
    mcp:read   only read-only tools
    mcp:write  read-only tools and the rest (what the role allows)

`offline_access` is not about tools: it asks for a refresh token.
"""

from collections.abc import Iterable

from oauth2_provider.settings import oauth2_settings

MCP = "mcp"
MCP_READ = "mcp:read"
MCP_WRITE = "mcp:write"
OFFLINE_ACCESS = "offline_access"

# The scopes that open the MCP endpoint; a token needs at least one of them.
MCP_SCOPES = frozenset({MCP, MCP_READ, MCP_WRITE})
# Listed in the protected-resource metadata (RFC 9728): what the resource itself understands.
RESOURCE_SCOPES = (MCP, MCP_READ, MCP_WRITE)


def mcp_scopes(scopes: Iterable[str]) -> frozenset[str]:
    """The MCP scopes among `scopes` (a token's scope string split, or a Principal's scopes)."""
    return frozenset(scopes) & MCP_SCOPES


def allows_read_tools(scopes: Iterable[str]) -> bool:
    return bool(mcp_scopes(scopes))


def allows_write_tools(scopes: Iterable[str]) -> bool:
    return bool(mcp_scopes(scopes) & {MCP, MCP_WRITE})


def allows_tool(scopes: Iterable[str], *, read_only: bool) -> bool:
    """Whether a connection with `scopes` may see and call a tool (read-only or not).

    The role check comes on top of this, always."""
    return allows_read_tools(scopes) if read_only else allows_write_tools(scopes)


def scope_for_tool(*, read_only: bool) -> str:
    """The narrowest scope that allows a tool: what an `insufficient_scope` challenge asks for."""
    return MCP_READ if read_only else MCP_WRITE


def describe(scopes: Iterable[str]) -> list[str]:
    """The scopes in plain words for people (consent and settings pages): one line for what the
    tools may do (the broadest scope wins, since `mcp:write` includes reading), then one for
    `offline_access`."""
    wanted = set(scopes)
    words = oauth2_settings.SCOPES
    lines = []
    if wanted & {MCP, MCP_WRITE}:
        lines.append(words[MCP] if MCP in wanted else words[MCP_WRITE])
    elif MCP_READ in wanted:
        lines.append(words[MCP_READ])
    if OFFLINE_ACCESS in wanted:
        lines.append(words[OFFLINE_ACCESS])
    return [str(line) for line in lines]
