"""The menu of the pages: links in groups, the groups in the order of `Group`.

An area puts its pages in the menu with its declaration (`areas.declare(group=areas.Group.SALES,
nav=[NavItem(...)], ...)`, apps.core.areas): in the area's group, each link behind a permission of
the area (its VIEW unless the link names another), so that a person whose role cannot open the
area, or whose workspace has not installed it, does not see it. Other apps add their pages from
`AppConfig.ready()`, naming the group:

    navigation.register(NavItem("api-keys", _("API keys"), "apikeys:list", group=Group.DEVELOPERS, order=30))

A link without a permission is shown to every person signed in; a group is shown when one of its
links is.
"""

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext_lazy as _


class Group(StrEnum):
    """The menu's groups, in its order: the one list a new area picks from (the group its people
    would look in first). The first and the last two are not areas': a person's own pages, and
    the workspace's for who connects programs or runs it."""

    label: Any

    def __new__(cls, key: str, label: Any) -> "Group":
        member = str.__new__(cls, key)
        member._value_ = key
        member.label = label
        return member

    # One's own: profile, password, notifications, access tokens, the apps one connected.
    YOU = "you", _("You")
    # The day's work: tasks, calendars, mail, events.
    WORK = "work", _("Work")
    # Customers, and selling to them and serving them: contacts, group accounts, deals, support.
    SALES = "sales", _("Sales")
    # Money: the ledger, invoices, bills, the bank.
    FINANCE = "finance", _("Finance")
    # The workspace's own people: HR, hiring, departments.
    PEOPLE = "people", _("People")
    # What the workspace writes and keeps: files, documents.
    CONTENT = "content", _("Content")
    # What runs by itself: listeners, agent teams, extensions.
    AUTOMATION = "automation", _("Automation")
    # Connecting agents and programs: agent connection, API keys, the endpoints, the tool calls.
    DEVELOPERS = "developers", _("Developers")
    # Running the workspace: its people and their roles.
    ADMINISTRATION = "administration", _("Administration")


@dataclass(frozen=True)
class NavItem:
    key: str  # a page marks its link the current one by naming it (`nav` in its context)
    label: Any
    url_name: str
    permission: str | None = None
    order: int = 100  # within its group
    # An area's links are in the area's group unless they name another.
    group: Group | None = None


@dataclass(frozen=True)
class Link:
    key: str
    label: Any
    url: str


@dataclass(frozen=True)
class Section:
    """A group as one person sees it: the links of it they may open (never none)."""

    group: Group
    links: list[Link]

    @property
    def key(self) -> str:
        return self.group.value

    @property
    def label(self) -> Any:
        return self.group.label


_items: dict[str, tuple[Group, NavItem]] = {}
_GROUP_ORDER = {group: index for index, group in enumerate(Group)}


def register(item: NavItem) -> None:
    if item.group is None:
        raise ValueError(f"the menu's link {item.key!r} names no group (apps.core.navigation.Group)")
    _items[item.key] = (item.group, item)


def visible_to(user: Any) -> list[Section]:
    """The menu as `user` sees it: each group with the links whose permission they hold."""
    if not getattr(user, "is_authenticated", False):
        return []
    sections: dict[Group, list[Link]] = {}
    for group, item in sorted(_items.values(), key=_place):
        if item.permission is None or user.has_perm(item.permission):
            sections.setdefault(group, []).append(Link(item.key, item.label, reverse(item.url_name)))
    return [Section(group, links) for group, links in sections.items()]


def _place(entry: tuple[Group, NavItem]) -> tuple[int, int, str]:
    group, item = entry
    return (_GROUP_ORDER[group], item.order, item.key)
