"""The Group Accounts area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.kinds import Kind
from apps.core.navigation import NavItem
from apps.groupaccounts.permissions import GroupAccountsPerm

area = areas.declare(
    title=_("Group accounts"),
    group=areas.Group.SALES,
    description=_("Organisations the workspace deals with, with their contacts and activity"),
    words="account company organisation business firm client household family customer",
    hints={
        "createGroupAccount": "new company organisation customer account",
        "getGroupAccount": "details industry website people of a company account",
        "deleteGroupAccount": "remove delete archive a company organisation account",
        "examineGroupAccount": "company briefing: people, relationship health, recent mails, coming calls",
        "listGroupAccounts": "all companies customers organisations accounts",
        "searchGroupAccounts": "find a company account by name, email domain or one of its people",
        "updateGroupAccount": "change edit a company account",
        "linkContactToGroupAccount": "add a person to a company account",
        "unlinkContactFromGroupAccount": "take remove a person off an account left the company",
        "getGroupAccountAttachments": "documents and files of a company account",
        "getGroupAccountUpcomingEvents": "meetings coming up with a company",
        "searchGroupAccountEmails": "emails with a company",
        "getMyBillingOverview": "what my api keys cost, spend, usage, bill",
    },
    profiles={
        "essentials": ("searchGroupAccounts", "getGroupAccount"),
        "sales": (
            "searchGroupAccounts",
            "getGroupAccount",
            "listGroupAccounts",
            "createGroupAccount",
            "examineGroupAccount",
        ),
        "billing": ("searchGroupAccounts", "getGroupAccount"),
        "support": (
            "searchGroupAccounts",
            "getGroupAccount",
            "searchGroupAccountEmails",
            "getGroupAccountUpcomingEvents",
        ),
        "admin": ("getMyBillingOverview", "deleteGroupAccount"),
        "housekeeping": (
            "getGroupAccountAttachments",
            "linkDocumentToGroupAccount",
            "linkFileToGroupAccount",
            "unlinkContactFromGroupAccount",
            "linkContactToGroupAccount",
            "updateGroupAccount",
        ),
    },
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
