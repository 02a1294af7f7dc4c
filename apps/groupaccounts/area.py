"""The Group Accounts area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem
from apps.groupaccounts.permissions import GroupAccountsPerm

area = areas.declare(
    title=_("Group accounts"),
    group=areas.Group.SALES,
    description=_("Organisations the workspace deals with, with their contacts and activity"),
    words="account company organisation business firm client household family customer",
    hints={
        "linkFileToGroupAccount": "attach link a stored file to a company account, or unlink it",
        "linkDocumentToGroupAccount": "attach link a document to a company account, or unlink it",
        "createGroupAccount": "new company organisation customer supplier partner account, household",
        "getGroupAccount": "details industry website domains people of a company account, who is on it",
        "deleteGroupAccount": "remove delete archive a company organisation account",
        "restoreGroupAccount": "bring back undelete unarchive a deleted or archived company account",
        "examineGroupAccount": (
            "company briefing: people, relationship health, recent mails, coming calls, everything about it"
        ),
        "listGroupAccounts": "all companies customers suppliers partners organisations accounts we have",
        "searchGroupAccounts": (
            "find a company account by name, email domain or one of its people, which company someone "
            "belongs to, which account someone is part of"
        ),
        "updateGroupAccount": (
            "change edit a company account, its kind customer prospect supplier, industry website domains "
            "tags owner"
        ),
        "linkContactToGroupAccount": "add a person to a company account with a role",
        "unlinkContactFromGroupAccount": "take remove a person off an account, they left the company",
        "getGroupAccountAttachments": "documents and files of a company account",
        "getGroupAccountUpcomingEvents": "meetings coming up with anyone at a company",
        "searchGroupAccountEmails": "emails with anyone at a company, messages from its people",
        "getMyBillingOverview": "what my api keys cost, ai spend, usage, tool calls, storage used, bill",
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
        "billing": ("searchGroupAccounts", "getGroupAccount", "restoreGroupAccount"),
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
            url=page("groupaccounts:list", anchor="group-account-"),
            search=("name", "description", "industry", "website"),
        )
    ],
    catalogue_title="Group Accounts",
)
