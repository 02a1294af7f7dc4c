"""Kits: the named sets of catalogue tools a team member is given. They are the catalogue's tool
profiles (apps.catalogue.profiles), each also in a read-only form (its tools that change nothing),
so that a member can be given the reads of a job without its writes. The catalogue's own tools
(searchTools, describeTool, callTool, which would reach past a kit) and the Teams area's own
(a member does not run teams) are in no kit.

What a member may call is `effective`: its kits' tools that its team's creator may use now, asked
of the dispatcher at every call (apps.catalogue.dispatch.may_use), never remembered.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from apps.catalogue import profiles, registry
from apps.catalogue.dispatch import may_use
from apps.core.credentials import Principal

READ_SUFFIX = "-read"
# Areas whose tools no kit holds.
OUTSIDE = frozenset({"catalogue", "teams"})


@dataclass(frozen=True)
class Kit:
    key: str
    title: str
    description: str
    tools: tuple[str, ...]

    @property
    def writes(self) -> bool:
        """It holds a tool that changes something."""
        return any(not spec.read_only for spec in map(registry.get, self.tools) if spec is not None)


def all_kits() -> list[Kit]:
    found = []
    for profile in profiles.PROFILES:
        specs = [
            spec
            for spec in profiles.tools(profile.key)
            if spec.area not in OUTSIDE and not spec.fixture and not spec.runs_tools
        ]
        names = tuple(sorted(spec.name for spec in specs))
        if not names:
            continue
        found.append(Kit(profile.key, profile.title, profile.description, names))
        reads = tuple(sorted(spec.name for spec in specs if spec.read_only))
        if reads and len(reads) < len(names):
            found.append(
                Kit(
                    profile.key + READ_SUFFIX,
                    f"{profile.title} (read only)",
                    f"{profile.description} Its tools that change nothing.",
                    reads,
                )
            )
    return found


def get(key: str) -> Kit | None:
    return next((kit for kit in all_kits() if kit.key == key), None)


def tools_of(keys: Iterable[str]) -> set[str]:
    by_key = {kit.key: kit for kit in all_kits()}
    return {name for key in keys if key in by_key for name in by_key[key].tools}


def usable(principal: Principal, kit: Kit) -> tuple[str, ...]:
    """The kit's tools `principal` may use now."""
    return tuple(name for name in kit.tools if may_use(principal, name))


def writes(keys: Iterable[str]) -> bool:
    """The kits named hold a tool that changes something."""
    return any(not spec.read_only for spec in map(registry.get, tools_of(keys)) if spec is not None)


def effective(principal: Principal, keys: Iterable[str]) -> list[str]:
    """What a member with these kits, acting for `principal` (its team's creator), may call now."""
    return sorted(name for name in tools_of(keys) if may_use(principal, name))
