"""The kinds of MCP client quick-setup writes a configuration for (SPEC 4.2).

Each kind turns (server name, MCP URL, headers) into the JSON its configuration file expects:

    generic            {"mcpServers": {<name>: {"url", "headers"}}}                 SPEC 4.2's shape
    desktop-assistant  the same shape, in the desktop application's MCP settings file
    editor             {"mcp": {"servers": {<name>: {"type": "http", "url", "headers"}}}}   editors' settings
    command-line       {"mcpServers": {<name>: {"type": "http", "url", "headers"}}}  terminal agents'
                       project files, which need the transport named

A new kind is one more entry in CLIENTS.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _

Headers = dict[str, str]


def _mcp_servers(name: str, url: str, headers: Headers) -> dict[str, Any]:
    return {"mcpServers": {name: {"url": url, "headers": headers}}}


def _typed_mcp_servers(name: str, url: str, headers: Headers) -> dict[str, Any]:
    return {"mcpServers": {name: {"type": "http", "url": url, "headers": headers}}}


def _editor(name: str, url: str, headers: Headers) -> dict[str, Any]:
    return {"mcp": {"servers": {name: {"type": "http", "url": url, "headers": headers}}}}


@dataclass(frozen=True)
class ClientKind:
    name: str
    title: Any
    build: Callable[[str, str, Headers], dict[str, Any]]
    config_format: Any
    instructions: tuple[Any, ...]
    # Clients of this kind usually sign in by OAuth 2.1 given the MCP URL alone (SPEC 5.1).
    oauth_capable: bool


CLIENTS: dict[str, ClientKind] = {
    kind.name: kind
    for kind in (
        ClientKind(
            name="command-line",
            title=_("Command-line agent"),
            build=_typed_mcp_servers,
            config_format=_("A project's MCP file (for example .mcp.json), key mcpServers"),
            instructions=(
                _("Save the configuration as the project's MCP file, or merge its mcpServers entry in."),
                _("Reload the agent's MCP servers: the workspace's tools appear under its name."),
            ),
            oauth_capable=True,
        ),
        ClientKind(
            name="desktop-assistant",
            title=_("Desktop assistant"),
            build=_mcp_servers,
            config_format=_("The application's MCP settings file, key mcpServers"),
            instructions=(
                _("Open the assistant's settings, then its MCP section, and edit its configuration file."),
                _("Merge the mcpServers entry of this configuration into the file (keep servers you have)."),
                _("Restart the assistant; the workspace appears under its name with its tools."),
            ),
            oauth_capable=True,
        ),
        ClientKind(
            name="editor",
            title=_("Code editor"),
            build=_editor,
            config_format=_("The editor's user or workspace settings (JSON), key mcp.servers"),
            instructions=(
                _("Open the editor's settings as JSON (user settings, or the workspace's)."),
                _("Merge the mcp entry of this configuration into them; the server's type is http."),
                _("Start the server from the editor's MCP view, or reload the window."),
            ),
            oauth_capable=True,
        ),
        ClientKind(
            name="generic",
            title=_("Any MCP client"),
            build=_mcp_servers,
            config_format=_("JSON with mcpServers → server name → url and headers"),
            instructions=(
                _("Give your client the URL and both headers; most read this mcpServers shape as it is."),
                _("Both headers go with every request: the token says who you are, the key meters use."),
            ),
            oauth_capable=False,
        ),
    )
}


def names() -> list[str]:
    return sorted(CLIENTS)


def get(name: str) -> ClientKind | None:
    return CLIENTS.get(name)
