"""Tool profiles: short lists of tools made for the jobs people do, for clients that cap how many
tools they take (Cursor and Trae about 40, OpenAI and VS Code 128 in all).

A client chooses one by URL on the same endpoint (`/api/mcp?profile=sales`) or by the
`X-MCP-Profile` header; the server card lists them. A profile narrows what `tools/list` shows,
never what the person may do: the catalogue's own tools (searchTools, describeTool, callTool) are
in every profile, so every other tool the person may use stays reachable. The `toolsets` and
`readonly` narrowing apply on top of a profile.

The profiles are named here; each area says which of its tools go in which (the `profiles` of
its declaration, apps.core.areas), so a new area joins a profile without touching this module.
The start-up check (apps.catalogue.checks) holds every profile to MAX_TOOLS tools and MAX_TOKENS
tokens of what a model reads of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from apps.catalogue import registry
from apps.catalogue.checks import model_tokens
from apps.catalogue.registry import ToolSpec
from apps.core import areas

MAX_TOOLS = 40
# What a model reads of the profile's tools (apps.catalogue.checks.model_tokens), summed.
MAX_TOKENS = 10_000


@dataclass(frozen=True)
class Profile:
    key: str
    title: str
    description: str


PROFILES = (
    Profile(
        "essentials",
        "Essentials",
        "Everyday work: people, the diary, to-dos, documents, files and notifications.",
    ),
    Profile(
        "sales",
        "Sales",
        "Customers and their companies, meetings, e-mails and follow-ups.",
    ),
    Profile(
        "operations",
        "Operations",
        "Tasks and their boards, schedules, documents and files.",
    ),
    Profile(
        "people",
        "People",
        "Teams and who is in them, colleagues' diaries, notices and handovers.",
    ),
)


def get(key: str) -> Profile | None:
    return next((profile for profile in PROFILES if profile.key == key), None)


@lru_cache(maxsize=64)
def _names(key: str, version: int) -> frozenset[str]:
    named = {name for area in areas.all_areas() for name in area.profiles.get(key, ())}
    # The finding and running tools of this app; other apps' tools of the catalogue area (the task
    # tools of apps.mcp) are reached through them like any other tool.
    own = {
        spec.name
        for spec in registry.all_tools()
        if spec.area == "catalogue" and not spec.fixture and spec.module.startswith("apps.catalogue.")
    }
    return frozenset(named | own)


def tool_names(key: str) -> frozenset[str]:
    """The names of the tools profile `key` lists (for the registry as it is now)."""
    return _names(key, registry.version())


def tools(key: str) -> list[ToolSpec]:
    names = tool_names(key)
    return [spec for spec in registry.all_tools() if spec.name in names]


def problems() -> list[str]:
    """What is wrong with the profiles: an area naming an unknown profile or a tool not its own,
    a profile over its limits."""
    found = []
    for area in areas.all_areas():
        for key, names in area.profiles.items():
            if get(key) is None:
                found.append(f"area {area.key!r} puts tools in {key!r}, which is not a profile")
            for name in names:
                spec = registry.get(name)
                if spec is None or spec.area != area.key:
                    found.append(
                        f"area {area.key!r} puts {name!r} in {key!r}, but it is not one of its tools"
                    )
    for profile in PROFILES:
        listed = tools(profile.key)
        if len(listed) > MAX_TOOLS:
            found.append(f"profile {profile.key!r} lists {len(listed)} tools, more than {MAX_TOOLS}")
        tokens = round(sum(model_tokens(spec) for spec in listed))
        if tokens > MAX_TOKENS:
            found.append(f"profile {profile.key!r} costs a model {tokens} tokens, more than {MAX_TOKENS}")
    return found
