"""The Group Accounts area, as the rest of the service knows it (apps.core.areas)."""

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.actors import Actor
from apps.core.kinds import Kind
from apps.core.navigation import NavItem
from apps.groupaccounts.permissions import GroupAccountsPerm


def _get(*, actor: Actor | None, pk: int, action: str, trash: bool) -> Any:
    from apps.groupaccounts.selectors import account_for_attachments

    return account_for_attachments(actor, pk, action != "view")


area = areas.register(
    areas.Area(
        app="groupaccounts",
        key="groupaccounts",
        title=_("Group accounts"),
        description=_("Organisations the workspace deals with, with their contacts and activity"),
        permissions=GroupAccountsPerm,
        nav=[
            NavItem(
                "group-accounts", _("Group accounts"), "groupaccounts:list", GroupAccountsPerm.VIEW, order=36
            )
        ],
        kinds=[
            Kind(
                "group_account",
                "groupaccounts.GroupAccount",
                title="name",
                get=_get,
                carries=("file", "document"),
            )
        ],
        catalogue_title="Group Accounts",
    )
)
