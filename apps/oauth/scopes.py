"""The OAuth scopes of the MCP endpoint, and what each lets a connection see.

Scopes are coarse and only ever narrow: the person's role stays the real boundary, checked on
every tool call (`apps.core.actors.can`). The rule the MCP door applies:

    mcp        every tool the role allows
    mcp:read   only read-only tools
    mcp:write  read-only tools and the rest (what the role allows)

`offline_access` is not about tools: it asks for a refresh token.

`profile:<key>` (at most one) pins the connection to a tool profile (apps.catalogue.profiles):
the MCP door lists only that profile's tools, and the rest stay reachable through searchTools and
callTool. The person chooses it on the consent page (preselected from the scope the client asked
for); a refresh keeps it whatever scope it asks for. Profiles are accepted, not advertised: a
client that asks for every scope in the metadata would otherwise ask for every profile at once.
"""

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _
from oauth2_provider.scopes import SettingsScopes
from oauth2_provider.settings import oauth2_settings

from apps.catalogue import profiles

MCP = "mcp"
MCP_READ = "mcp:read"
MCP_WRITE = "mcp:write"
OFFLINE_ACCESS = "offline_access"
PROFILE_PREFIX = "profile:"

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


def profile_scope(key: str) -> str:
    return f"{PROFILE_PREFIX}{key}"


def profile_scopes(scopes: Iterable[str]) -> list[str]:
    """The profile scopes among `scopes` (known profiles or not)."""
    return [scope for scope in scopes if scope.startswith(PROFILE_PREFIX)]


def profile_of(scopes: Iterable[str]) -> str:
    """The profile a token's scopes pin it to ("" for none)."""
    pinned = profile_scopes(scopes)
    return pinned[0].removeprefix(PROFILE_PREFIX) if pinned else ""


def with_profile(scope: str, key: str) -> str:
    """`scope` (a space-separated string) pinned to profile `key` instead of any it names ("":
    to none)."""
    kept = [value for value in scope.split() if not value.startswith(PROFILE_PREFIX)]
    return " ".join([*kept, profile_scope(key)] if key else kept)


def _profile_words(key: str) -> str:
    profile = profiles.get(key)
    title = profile.title if profile is not None else key
    return _("List only the %(profile)s tools in the app; searchTools and callTool still reach the rest") % {
        "profile": title
    }


class Scopes(SettingsScopes):
    """The toolkit's scopes backend: the settings' scopes and one `profile:<key>` per profile."""

    def get_all_scopes(self) -> dict[str, Any]:
        return {
            **oauth2_settings.SCOPES,
            **{profile_scope(profile.key): _profile_words(profile.key) for profile in profiles.PROFILES},
        }

    def get_available_scopes(
        self, application: Any = None, request: Any = None, *args: Any, **kwargs: Any
    ) -> list[str]:
        return list(self.get_all_scopes())


def describe(scopes: Iterable[str]) -> list[str]:
    """The scopes in plain words for people (consent and settings pages): one line for what the
    tools may do (the broadest scope wins, since `mcp:write` includes reading), one for the
    profile, then one for `offline_access`."""
    wanted = set(scopes)
    words = oauth2_settings.SCOPES
    lines = []
    if wanted & {MCP, MCP_WRITE}:
        lines.append(words[MCP] if MCP in wanted else words[MCP_WRITE])
    elif MCP_READ in wanted:
        lines.append(words[MCP_READ])
    if profile := profile_of(wanted):
        lines.append(_profile_words(profile))
    if OFFLINE_ACCESS in wanted:
        lines.append(words[OFFLINE_ACCESS])
    return [str(line) for line in lines]
