"""Areas and permissions: the vocabulary every door (pages, MCP, gateway) checks against.

A permission is a string "<area>.<action>" declared once, in the app that owns the area, as a
member of a `PermissionEnum` (Saleor's per-app permission enums):

    PEOPLE = register_area("people", _("People"), core=True)

    @register_permissions
    class PeoplePerm(PermissionEnum):
        VIEW = "people.view", Level.READ, _("See who is in the workspace")

Each permission has a level. The built-in roles grant every permission up to their level, so an
area added later extends owner, admin, member and viewer without a data migration. Custom roles
list their permissions explicitly. Whether a user holds one is decided by
`apps.core.actors.can` (behind it, `apps.accounts.access`), and nowhere else.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Any, TypeVar


class Level(IntEnum):
    READ = 10
    WRITE = 20
    DELETE = 30
    ADMIN = 40
    OWNER = 50


@dataclass(frozen=True)
class Area:
    key: str
    title: Any
    description: Any = ""
    # Core areas are always there; the others are installed per workspace.
    core: bool = False


class PermissionEnum(StrEnum):
    """Members are declared as `NAME = "<area>.<action>", Level.X, _("what it allows")`."""

    level: Level
    label: Any

    def __new__(cls, code: str, level: Level = Level.READ, label: Any = "") -> "PermissionEnum":
        member = str.__new__(cls, code)
        member._value_ = code
        member.level = level
        member.label = label or code
        return member

    @property
    def area(self) -> str:
        return self.value.split(".", 1)[0]


_areas: dict[str, Area] = {}
_permissions: dict[str, PermissionEnum] = {}
_enums: dict[str, type[PermissionEnum]] = {}

E = TypeVar("E", bound=type[PermissionEnum])


def register_area(key: str, title: Any, description: Any = "", *, core: bool = False) -> Area:
    area = Area(key=key, title=title, description=description, core=core)
    existing = _areas.get(key)
    if existing is not None and existing != area:
        raise ValueError(f"area {key!r} is registered twice with different definitions")
    _areas[key] = area
    return area


def register_permissions(enum: E) -> E:
    for member in enum:
        if member.value in _permissions and _permissions[member.value] is not member:
            raise ValueError(f"permission {member.value!r} is declared twice")
        _permissions[member.value] = member
        _enums.setdefault(member.area, enum)
    return enum


def enum_of(area: str) -> type[PermissionEnum] | None:
    """The enum that declares the permissions of `area` (the first registered for it)."""
    return _enums.get(area)


def areas() -> list[Area]:
    return sorted(_areas.values(), key=lambda area: area.key)


def optional_area_keys() -> list[str]:
    return [area.key for area in areas() if not area.core]


def get_area(key: str) -> Area | None:
    return _areas.get(key)


def area_title(key: str) -> Any:
    """The title of the area `key`, or the key itself when no area has it."""
    area = _areas.get(key)
    return area.title if area else key


def all_permissions() -> list[PermissionEnum]:
    return sorted(_permissions.values(), key=lambda member: member.value)


def get_permission(code: str) -> PermissionEnum | None:
    return _permissions.get(code)


def permissions_up_to(level: Level) -> frozenset[str]:
    return frozenset(code for code, member in _permissions.items() if member.level <= level)


def unknown_permissions(codes: Iterable[str]) -> list[str]:
    return sorted(code for code in codes if code not in _permissions)
