"""The Group Accounts area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.kinds import Kind
from apps.core.navigation import NavItem
from apps.groupaccounts.permissions import GroupAccountsPerm

area = areas.declare(
    title=_("Group accounts"),
    description=_("Organisations the workspace deals with, with their contacts and activity"),
    words="account company organisation business firm client household family customer",
    nav=[
        NavItem("group-accounts", _("Group accounts"), "groupaccounts:list", GroupAccountsPerm.VIEW, order=36)
    ],
    kinds=[
        Kind(
            "group_account",
            "groupaccounts.GroupAccount",
            title="name",
            carries=("file", "document"),
        )
    ],
    catalogue_title="Group Accounts",
)
