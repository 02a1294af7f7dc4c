"""The settings pages' navigation. Apps add their screens from `AppConfig.ready()`:

    navigation.register(NavItem("api-keys", _("API keys"), "apikeys:list", order=40))

Items with a permission are shown only to people who hold it.
"""

from dataclasses import dataclass
from typing import Any

from django.urls import reverse


@dataclass(frozen=True)
class NavItem:
    key: str
    label: Any
    url_name: str
    permission: str | None = None
    order: int = 100


_items: dict[str, NavItem] = {}


def register(item: NavItem) -> None:
    _items[item.key] = item


def visible_to(user: Any) -> list[dict[str, Any]]:
    if not getattr(user, "is_authenticated", False):
        return []
    return [
        {"key": item.key, "label": item.label, "url": reverse(item.url_name)}
        for item in sorted(_items.values(), key=lambda item: (item.order, item.key))
        if item.permission is None or user.has_perm(item.permission)
    ]
