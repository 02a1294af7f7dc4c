"""The MCP clients quick-setup writes a configuration for (SPEC 4.2), each in the format its own
documentation gives, where that client reads it, with the tool profile that suits it.

Each kind turns a `Server` (the workspace's name, the MCP URL, the two headers) into:

- `config`: what goes in the client's file (or request), and `config_format`: where that is;
- `command`: for clients that add a server from the command line, the line that does it;
- `profile`: the profile preselected for it: clients that cap or degrade with many tools (Cursor
  and Trae about 40, Windsurf 50 to 100, VS Code and the OpenAI API 128 in all) get a short list,
  clients that defer tools behind their own search get every tool.

    claude-code        .mcp.json {"mcpServers": {<slug>: {"type": "http", "url", "headers"}}},
                       or `claude mcp add --transport http … --header …`
    claude-desktop     custom connector by URL (OAuth); with a token and key, claude_desktop_config
                       .json through the mcp-remote bridge (the file takes only local servers)
    cursor             ~/.cursor/mcp.json {"mcpServers": {<name>: {"url", "headers"}}}
    vscode             .vscode/mcp.json {"servers": {<name>: {"type": "http", "url", "headers"}},
                       "inputs": […]} (secrets prompted for, not in the file), or `code --add-mcp`
    windsurf           ~/.codeium/windsurf/mcp_config.json {"mcpServers": {<name>: {"serverUrl",
                       "headers"}}}
    openai             a Responses API `tools` entry {"type": "mcp", "server_label", "server_url",
                       "headers"}; ChatGPT itself connects by URL with OAuth
    generic            {"mcpServers": {<name>: {"url", "headers"}}}                 SPEC 4.2's shape
    desktop-assistant  the same shape, in a desktop application's MCP settings file
    editor             {"mcp": {"servers": {<name>: {"type": "http", "url", "headers"}}}}
    command-line       {"mcpServers": {<name>: {"type": "http", "url", "headers"}}}

A new client is one more entry in CLIENTS (and one more reader in the interoperability test,
apps/apikeys/tests/test_quick_setup_clients.py, which connects with each as its client would).
"""

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _

Headers = dict[str, str]


@dataclass(frozen=True)
class Server:
    """What every configuration is made of."""

    name: str  # the workspace's brand name: what clients show
    url: str  # the MCP URL (with ?profile= when the key is pinned to one)
    headers: Headers  # Authorization (the access token) and X-Api-Key

    @property
    def slug(self) -> str:
        """The name where a client wants an identifier (command lines, tool-name prefixes)."""
        return slugify(self.name) or "atrium"

    @property
    def token(self) -> str:
        return self.headers["Authorization"].removeprefix("Bearer ")


def _mcp_servers(server: Server) -> dict[str, Any]:
    return {"mcpServers": {server.name: {"url": server.url, "headers": server.headers}}}


def _typed_mcp_servers(server: Server) -> dict[str, Any]:
    return {"mcpServers": {server.name: {"type": "http", "url": server.url, "headers": server.headers}}}


def _editor(server: Server) -> dict[str, Any]:
    return {"mcp": {"servers": {server.name: {"type": "http", "url": server.url, "headers": server.headers}}}}


def _claude_code(server: Server) -> dict[str, Any]:
    return {"mcpServers": {server.slug: {"type": "http", "url": server.url, "headers": server.headers}}}


def _claude_code_command(server: Server) -> str:
    headers = [part for name, value in server.headers.items() for part in ("--header", f"{name}: {value}")]
    return shlex.join(["claude", "mcp", "add", "--transport", "http", server.slug, server.url, *headers])


# The environment variables the bridge reads the two header values from (kept out of its
# arguments, where spaces are mangled on some systems).
BRIDGE_ENV = {"Authorization": "ATRIUM_AUTHORIZATION", "X-Api-Key": "ATRIUM_API_KEY"}


def _claude_desktop(server: Server) -> dict[str, Any]:
    headers = [part for name in server.headers for part in ("--header", f"{name}:${{{BRIDGE_ENV[name]}}}")]
    return {
        "mcpServers": {
            server.name: {
                "command": "npx",
                "args": ["-y", "mcp-remote", server.url, *headers],
                "env": {BRIDGE_ENV[name]: value for name, value in server.headers.items()},
            }
        }
    }


# The ids of the VS Code inputs the two secrets are prompted for.
VSCODE_INPUTS = {"token": "atrium-access-token", "key": "atrium-api-key"}


def _vscode(server: Server) -> dict[str, Any]:
    return {
        "inputs": [
            {
                "type": "promptString",
                "id": VSCODE_INPUTS["token"],
                "description": f"{server.name}: access token ({settings.ACCESS_TOKEN_PREFIX}_…)",
                "password": True,
            },
            {
                "type": "promptString",
                "id": VSCODE_INPUTS["key"],
                "description": f"{server.name}: API key ({settings.API_KEY_PREFIX}_…)",
                "password": True,
            },
        ],
        "servers": {
            server.name: {
                "type": "http",
                "url": server.url,
                "headers": {
                    "Authorization": f"Bearer ${{input:{VSCODE_INPUTS['token']}}}",
                    "X-Api-Key": f"${{input:{VSCODE_INPUTS['key']}}}",
                },
            }
        },
    }


def _vscode_command(server: Server) -> str:
    entry = {"name": server.name, "type": "http", "url": server.url, "headers": server.headers}
    return shlex.join(["code", "--add-mcp", json.dumps(entry, separators=(",", ":"))])


def _windsurf(server: Server) -> dict[str, Any]:
    return {"mcpServers": {server.name: {"serverUrl": server.url, "headers": server.headers}}}


def _openai(server: Server) -> dict[str, Any]:
    return {
        "type": "mcp",
        "server_label": server.slug.replace("-", "_"),
        "server_description": f"The {server.name} workspace's tools",
        "server_url": server.url,
        "headers": server.headers,
    }


@dataclass(frozen=True)
class ClientKind:
    name: str
    title: Any
    build: Callable[[Server], dict[str, Any]]
    # Where the configuration goes, in a few words (the file, and where it lives).
    config_format: Any
    instructions: tuple[Any, ...]
    # Clients of this kind usually sign in by OAuth 2.1 given the MCP URL alone (SPEC 5.1).
    oauth_capable: bool
    # The tool profile preselected for it (apps.catalogue.profiles; "" for every tool).
    profile: str = ""
    # The command line that adds the server, for clients that have one.
    command: Callable[[Server], str] | None = None
    # The client's own documentation of what this configuration follows.
    docs: str = ""
    # A client known by name (not a kind of client): listed on the Agent connection page, each
    # with `locations`, where its configuration lives: (the file or place, what it is for).
    named: bool = True
    locations: tuple[tuple[str, Any], ...] = ()


CLIENTS: dict[str, ClientKind] = {
    kind.name: kind
    for kind in (
        ClientKind(
            name="claude-code",
            title=_("Claude Code"),
            build=_claude_code,
            command=_claude_code_command,
            config_format=_("Run the command, or save the configuration as .mcp.json at the project's root"),
            instructions=(
                _("Run the command in a terminal (add --scope user to have it in every project)."),
                _("Or save the configuration as the project's .mcp.json, or merge its mcpServers entry in."),
                _("Check with claude mcp list, or /mcp inside a session."),
            ),
            oauth_capable=True,
            docs="https://docs.claude.com/en/docs/claude-code/mcp",
            locations=(
                (".mcp.json", _("at the project's root, shared with the project (--scope project)")),
                ("~/.claude.json", _("yours only: this project (the default scope) or all (--scope user)")),
            ),
        ),
        ClientKind(
            name="claude-desktop",
            title=_("Claude Desktop"),
            build=_claude_desktop,
            config_format=_(
                "claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, "
                "Windows: %APPDATA%\\Claude\\), key mcpServers; the bridge needs Node.js"
            ),
            instructions=(
                _(
                    "Without a file: Settings, Connectors, Add custom connector, paste the MCP URL "
                    "above and sign in."
                ),
                _(
                    "With this token and key: Settings, Developer, Edit Config, and merge the mcpServers "
                    "entry in. The file takes only local servers, so the mcp-remote bridge carries it."
                ),
                _("Quit and reopen Claude Desktop; the workspace appears with its tools."),
            ),
            oauth_capable=True,
            docs="https://modelcontextprotocol.io/docs/develop/connect-remote-servers",
            locations=(
                ("~/Library/Application Support/Claude/claude_desktop_config.json", _("macOS")),
                ("%APPDATA%\\Claude\\claude_desktop_config.json", _("Windows")),
            ),
        ),
        ClientKind(
            name="cursor",
            title=_("Cursor"),
            build=_mcp_servers,
            profile="essentials",
            config_format=_(
                "~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project), key mcpServers"
            ),
            instructions=(
                _("Merge the mcpServers entry into ~/.cursor/mcp.json (keep the servers you have)."),
                _("Open Cursor Settings, MCP: the workspace shows with its tools; enable it if it is off."),
                _("Cursor works best with about 40 tools: the profile keeps it so; search finds the rest."),
            ),
            oauth_capable=True,
            docs="https://cursor.com/docs/context/mcp",
            locations=(
                ("~/.cursor/mcp.json", _("every project")),
                (".cursor/mcp.json", _("one project, at its root")),
            ),
        ),
        ClientKind(
            name="vscode",
            title=_("Visual Studio Code"),
            build=_vscode,
            command=_vscode_command,
            profile="essentials",
            config_format=_(
                ".vscode/mcp.json in the workspace, key servers; the token and key are asked for"
            ),
            instructions=(
                _("Save the configuration as .vscode/mcp.json (or merge its servers and inputs in)."),
                _("Start the server from the file or the MCP view; paste the token and key when asked."),
                _("Or run the command to add it to your user profile, secrets included."),
            ),
            oauth_capable=True,
            docs="https://code.visualstudio.com/docs/copilot/customization/mcp-servers",
            locations=(
                (".vscode/mcp.json", _("the workspace (the token and key are asked for)")),
                ("code --add-mcp", _("your user profile's mcp.json, secrets included")),
            ),
        ),
        ClientKind(
            name="windsurf",
            title=_("Windsurf"),
            build=_windsurf,
            profile="essentials",
            config_format=_("~/.codeium/windsurf/mcp_config.json, key mcpServers (serverUrl, not url)"),
            instructions=(
                _("Open the MCP settings (Configure), and merge the mcpServers entry into mcp_config.json."),
                _("Refresh the MCP servers: the workspace shows with its tools."),
            ),
            oauth_capable=True,
            docs="https://docs.windsurf.com/windsurf/cascade/mcp",
            locations=(("~/.codeium/windsurf/mcp_config.json", _("every project; serverUrl, not url")),),
        ),
        ClientKind(
            name="openai",
            title=_("ChatGPT and the OpenAI API"),
            build=_openai,
            profile="essentials",
            config_format=_("An entry of tools in a Responses API request (POST /v1/responses)"),
            instructions=(
                _("Put the entry in the tools of your Responses API requests (128 tools at most)."),
                _(
                    "ChatGPT connects by URL and signs in by itself: in developer mode, Settings, "
                    "Connectors, Create, with the MCP URL (add ?profile=essentials)."
                ),
            ),
            oauth_capable=True,
            docs="https://platform.openai.com/docs/guides/tools-connectors-mcp",
            locations=(
                ("POST /v1/responses", _("an entry of the request's tools (Responses API)")),
                ("ChatGPT", _("Settings, Connectors, Create: the MCP URL alone (OAuth)")),
            ),
        ),
        ClientKind(
            name="command-line",
            named=False,
            title=_("Other command-line agent"),
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
            named=False,
            title=_("Other desktop assistant"),
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
            named=False,
            title=_("Other code editor"),
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
            named=False,
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


def named() -> list[ClientKind]:
    """The clients known by name, in CLIENTS' order (the Agent connection page lists them)."""
    return [kind for kind in CLIENTS.values() if kind.named]
